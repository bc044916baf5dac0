#pragma once
// StateQueryResult (org.apache.kafka.streams.query.StateQueryResult): per-partition results, or a
// global result for global stores, and their merged position. A result knows the pin of the
// KafkaStreams that made it, since two of its methods changed between the pins (deltas 16, 17).

#include <map>

#include "base/expected.h"
#include "iq/kafka_pin.h"
#include "iq/query_result.h"
#include "iq/streams_error.h"

namespace iq {

class StateQueryResult {
 public:
  explicit StateQueryResult(KafkaPin pin = KafkaPin::k2024_10_25) : pin_(pin) {}

  // Overwrites a duplicate partition, as Kafka's HashMap.put does.
  void add_result(int32_t partition, QueryResult r) {
    partition_results_.insert_or_assign(partition, std::move(r));
  }
  void set_global_result(QueryResult r) { global_result_ = std::move(r); }

  const std::map<int32_t, QueryResult>& partition_results() const { return partition_results_; }
  const std::optional<QueryResult>& global_result() const { return global_result_; }

  // Kafka quirk (docs/iqv2-semantics.md §6, quirk 9), old pin: keeps only successes with a
  // non-null result; failures are silently ignored, so "the owning partition failed" looks like
  // "key absent". Pin delta 16 (e0e7323f9b, KAFKA-15768): the 2026-08-20 pin keeps failures too,
  // so a failure is returned, and a failure beside another failure or a hit throws.
  // None left: nullptr. More than one: IllegalArgumentException.
  template <typename V>
  base::Expected<const QueryResult*, StreamsError> only_partition_result() const {
    const bool keeps_failures = at_least(pin_, KafkaPin::k2026_08_20);
    const QueryResult* found = nullptr;
    int found_count = 0;
    for (const auto& [partition, r] : partition_results_) {
      const bool kept = r.is_success() ? has_non_null_result<V>(r) : keeps_failures;
      if (!kept) continue;
      found = &r;
      ++found_count;
    }
    if (found_count > 1) {
      return base::unexpected(StreamsError{
          StreamsError::Kind::IllegalArgument,
          "The query did not return exactly one partition result: " + partitions_string()});
    }
    return found;
  }

  // Kafka quirk 8: merges every partition result's position, failed ones included; a
  // global result's own position otherwise (null for the only global result that exists).
  std::optional<Position> position() const {
    if (global_result_) return global_result_->position();
    Position merged = Position::empty_position();
    for (const auto& [partition, r] : partition_results_) {
      if (r.position()) merged.merge(*r.position(), pin_);
    }
    return merged;
  }
  KafkaPin kafka_pin() const { return pin_; }

 private:
  // A null result is an empty optional (KeyQuery family); iterators are never null.
  template <typename V>
  static bool has_non_null_result(const QueryResult& r) {
    if (const auto* opt = r.raw_result().template get_if<std::optional<V>>())
      return opt->has_value();
    return r.raw_result().has_value();
  }
  std::string partitions_string() const {
    std::string out = "{";
    bool first = true;
    for (const auto& [partition, r] : partition_results_) {
      if (!first) out += ", ";
      first = false;
      out += std::to_string(partition) + "=" + r.to_string();
    }
    return out + "}";
  }

  KafkaPin pin_;
  std::map<int32_t, QueryResult> partition_results_;
  std::optional<QueryResult> global_result_;
};

}  // namespace iq
