#include "processor/processor_context_impl.h"

#include "state/position_serde.h"
#include "state/store_query_utils.h"

namespace iq {

Status ProcessorContextImpl::log_change(const std::string& store_name, const Bytes& key,
                                        const ValueBytes& value, int64_t timestamp,
                                        const Position& position) {
  if (config_.type == TaskType::kStandby) {
    return base::unexpected(
        StreamsError{StreamsError::Kind::UnsupportedOperation,
                     "this should not happen: logChange() is not supported in standby tasks."});
  }
  const auto changelog = state_manager_.changelog_partition(store_name);
  IQ_ASSERT(changelog.has_value(), "logChange for unlogged store {}", store_name);
  IQ_ASSERT(collector_ != nullptr, "logChange without a record collector");
  Headers headers;
  if (config_.consistency_enabled) {
    // Serialized now, so later changes to the position cannot leak into the record.
    headers.push_back(
        {store_query_utils::kVectorVersionHeader,
         Bytes(std::string(1, static_cast<char>(store_query_utils::kVectorVersion)))});
    headers.push_back(
        {store_query_utils::kVectorHeader, Bytes(position_serde::serialize_padded(position))});
  }
  auto offset =
      collector_->send(changelog->first, changelog->second, key, value, timestamp, headers);
  if (!offset) return base::unexpected(offset.error());
  // The collector speaks Kafka longs; the offset it returns is in the changelog topic.
  state_manager_.update_changelog_offset(store_name, ChangelogOffset(*offset));
  return ok_status();
}

}  // namespace iq
