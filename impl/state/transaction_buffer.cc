#include "state/transaction_buffer.h"

#include "state/store_query_utils.h"

namespace iq {

void TransactionBuffer::stage(const Bytes& key, const ValueBytes& value) {
  pending_writes_.insert_or_assign(key, value);
  pending_writes_bytes_ +=
      static_cast<int64_t>(key.size()) + static_cast<int64_t>(value ? value->size() : 0);
}

const ValueBytes* TransactionBuffer::get(const Bytes& key) const {
  auto it = pending_writes_.find(key);
  return it == pending_writes_.end() ? nullptr : &it->second;
}

StagedWrites TransactionBuffer::staging_snapshot(const std::optional<Bytes>& from,
                                                 const std::optional<Bytes>& to, bool to_inclusive,
                                                 IsolationLevel level) const {
  if (level == IsolationLevel::READ_COMMITTED) return {};
  auto first = from ? pending_writes_.lower_bound(*from) : pending_writes_.begin();
  auto last = !to            ? pending_writes_.end()
              : to_inclusive ? pending_writes_.upper_bound(*to)
                             : pending_writes_.lower_bound(*to);
  // Kafka's subMap refuses from > to (IllegalArgumentException); its callers never ask for one
  // (the stores return an empty iterator first), and here such a range is simply empty.
  if (from && to && *from > *to) return {};
  return StagedWrites(first, last);
}

void TransactionBuffer::update_position(const StateStoreContext* context) {
  store_query_utils::update_position(pending_position_, context);
}

void TransactionBuffer::merge_pending_position_into(Position& committed) {
  // Transactional stores exist only at the 2026-08-20 pin: its merge (pin delta 17).
  committed.merge(pending_position_, KafkaPin::k2026_08_20);
  pending_position_ = Position::empty_position();
}

void TransactionBuffer::rollback() {
  pending_writes_.clear();
  pending_writes_bytes_ = 0;
  pending_position_ = Position::empty_position();
}

std::vector<KeyValue<Bytes, Bytes>> staged_merge(const StagedWrites& staging,
                                                 const std::vector<KeyValue<Bytes, Bytes>>& base,
                                                 bool reverse) {
  std::vector<KeyValue<Bytes, Bytes>> out;
  out.reserve(base.size() + staging.size());
  visit_staged_merge(staging, base, reverse, [&](const Bytes& k, const Bytes& v) {
    out.push_back({k, v});
  });
  return out;
}

}  // namespace iq
