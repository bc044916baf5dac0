#pragma once
// The findings catalogue: for each declared Kafka behaviour (properties::ViolationClass other
// than kFailure) what an IQv2 caller needs to know about it, in one place, read by `iqsim
// findings` (text and JSON) and by every report's findings section. Entries are keyed by the
// class's stable name (properties::class_key: "cache_flush_partly_applied"), so a class added or
// renamed elsewhere needs only its entry here; findings_catalogue_test fails until it has one.
//
//   for (const Finding& f : findings_catalogue()) print(f.key, f.title);
//   const Finding* f = find_finding("alos_reprocessing");  // nullptr for "failure" or unknown
//   html += render_findings_section({{"alos_reprocessing", 3}}, "findings");

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace iq::reports {

struct Finding {
  std::string_view key;           // properties::class_key of its ViolationClass
  std::string_view title;         // a few words
  std::string_view explanation;   // one paragraph for an IQv2 user: what they see and why
  std::string_view kafka_source;  // the classes and methods at apache/kafka 1eb7644 that cause it
  std::string_view conditions;    // guarantee, store kind, caching, faults under which it shows
  // The minimal scenario that shows it (a repository path, a ctest of its own), or empty when
  // no minimal file exists yet; `seen_in` then says where it shows (a template and seeds).
  std::string_view scenario;
  std::string_view seen_in;
  std::string_view what_to_do;  // what a caller can do about it
};

// Every entry, in properties::kViolationClasses order.
std::span<const Finding> findings_catalogue();
// The entry of a class key, or nullptr ("failure", a key of another build).
const Finding* find_finding(std::string_view key);

// The HTML anchor of a class's catalogue entry on a page: "about-<key>".
std::string finding_anchor(std::string_view key);

// A report section (id `section_id`) explaining each class of `seen` (class key -> how often,
// in the caller's unit `unit`: "violations", "seeds"), one <article id="about-KEY"> each; keys
// without an entry are named as such. Nothing to explain: a line that says so.
std::string render_findings_section(const std::map<std::string, uint64_t>& seen,
                                    const std::string& section_id, const std::string& unit);

}  // namespace iq::reports
