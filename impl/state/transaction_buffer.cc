#include "state/transaction_buffer.h"

#include "state/store_query_utils.h"

namespace iq {

void PendingPosition::update_position(const StateStoreContext* context) {
  store_query_utils::update_position(pending_position_, context);
}

Position PendingPosition::staged_over(const Position& committed) const {
  Position staged = committed.copy();
  // Transactional stores exist only at the 2026-08-20 pin: its merge (pin delta 17).
  staged.merge(pending_position_, KafkaPin::k2026_08_20);
  return staged;
}

void PendingPosition::merge_pending_position_into(Position& committed) {
  // Transactional stores exist only at the 2026-08-20 pin: its merge (pin delta 17).
  committed.merge(pending_position_, KafkaPin::k2026_08_20);
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
