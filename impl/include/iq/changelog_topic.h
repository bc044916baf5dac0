#pragma once
// The changelog topic name of a store, built in one place (Kafka's
// ProcessorStateManager.storeChangelogTopic): "<application.id>-<store>-changelog". The inverse
// tells whether a topic is a given store's changelog, for code that sees only topic names.

#include <string>
#include <string_view>

namespace iq {

inline constexpr std::string_view kChangelogTopicSuffix = "-changelog";

inline std::string store_changelog_topic(std::string_view application_id,
                                         std::string_view store_name) {
  std::string topic;
  topic.reserve(application_id.size() + 1 + store_name.size() + kChangelogTopicSuffix.size());
  topic.append(application_id).append("-").append(store_name).append(kChangelogTopicSuffix);
  return topic;
}

// Whether `topic` is the changelog of `store_name` under some application id, that is, ends in
// "-<store>-changelog" with a non-empty application id before it.
inline bool is_store_changelog_topic(std::string_view topic, std::string_view store_name) {
  const size_t suffix_size = 1 + store_name.size() + kChangelogTopicSuffix.size();
  if (topic.size() <= suffix_size) return false;
  const std::string_view tail = topic.substr(topic.size() - suffix_size);
  return tail[0] == '-' && tail.substr(1, store_name.size()) == store_name &&
         tail.substr(1 + store_name.size()) == kChangelogTopicSuffix;
}

}  // namespace iq
