#pragma once
// The transaction buffer of a transactional state store (KIP-892, the 2026-08-20 pin only, pin
// delta 5; docs/kafka-2026-08-20.md §3): Kafka's TransactionBuffer / AbstractTransactionBuffer
// (SI/AbstractTransactionBuffer.java), the pending position its backends keep beside it
// (InMemoryTransactionBuffer, RocksDBTransactionBuffer), and StagedMergeIterator.
//
// A write to a transactional store is staged here instead of reaching the store; the store's
// StateStore::commit applies every staged write to its base (the map, or RocksDB in one
// WriteBatch) and moves the pending position into the committed one. A rollback (a close, dirty or
// clean, and so a crash) discards both. Reads choose: READ_UNCOMMITTED sees the staged writes over
// the base (newest staged value wins, a staged tombstone hides the base key), READ_COMMITTED sees
// the base alone.
//
// Kafka's buffer is shared with IQ threads behind a read-write lock, and owner iterators copy the
// staged range eagerly. iqsim is single-threaded and materializes every iterator when the query
// runs (iq/key_value_iterator.h), so both of Kafka's paths read the same contents here: the
// staged range at the instant of the read merged over the base at that instant.

#include <map>
#include <optional>
#include <vector>

#include "iq/bytes.h"
#include "iq/isolation_level.h"
#include "iq/position.h"
#include "iq/status.h"

namespace iq {

class StateStoreContext;

// The backends' pending position (InMemoryTransactionBuffer, InMemoryWindowTransactionBuffer,
// InMemorySessionTransactionBuffer, RocksDBTransactionBuffer each keep one): the position of the
// writes staged since the last commit.
class PendingPosition {
 public:
  // updatePosition advances it from the record context (StoreQueryUtils.updatePosition's rules);
  // pending_position() is a copy; staged_over(committed) is the staged position, `committed`
  // merged with it (a copy: getPosition() of a transactional store); merge_pending_position_into
  // moves it into `committed` and empties it.
  void update_position(const StateStoreContext* context);
  Position pending_position() const { return pending_position_.copy(); }
  Position staged_over(const Position& committed) const;
  void merge_pending_position_into(Position& committed);

 protected:
  void clear_pending_position() { pending_position_ = Position::empty_position(); }

 private:
  Position pending_position_ = Position::empty_position();
};

// Each backend's estimateKeySize: the bytes a staged key counts for (a Bytes key its length; the
// window and session stores' composite keys add their timestamps, in_memory_*_store.h).
inline int64_t staged_key_bytes(const Bytes& key) {
  return static_cast<int64_t>(key.size());
}

// AbstractTransactionBuffer<K>: staged writes by key (the value, or nullopt for a staged delete, a
// tombstone), ordered as the backend's base iterates.
template <typename Key>
class BasicTransactionBuffer : public PendingPosition {
 public:
  using Writes = std::map<Key, ValueBytes>;

  // TransactionBuffer.stage: a put (or, `value` nullopt, a delete). Every call adds the key's and
  // the value's bytes to the uncommitted count, overwrites of a staged key included, as Kafka's
  // AbstractTransactionBuffer.stage does.
  void stage(const Key& key, const ValueBytes& value) {
    pending_writes_.insert_or_assign(key, value);
    pending_writes_bytes_ +=
        staged_key_bytes(key) + static_cast<int64_t>(value ? value->size() : 0);
  }
  // TransactionBuffer.get: nullptr when the key has no staged entry (read the base), else the
  // staged value (nullopt: a staged delete).
  const ValueBytes* get(const Key& key) const {
    auto it = pending_writes_.find(key);
    return it == pending_writes_.end() ? nullptr : &it->second;
  }
  bool is_empty() const { return pending_writes_.empty(); }
  // approximateNumUncommittedBytes: key and value bytes of every stage call since the last commit
  // or rollback (a backend may add its own, as the RocksDB store adds its WriteBatch's size).
  int64_t approximate_num_uncommitted_bytes() const { return pending_writes_bytes_; }
  const Writes& staged() const { return pending_writes_; }

  // stagingSnapshot(from, to, toInclusive, level): the staged writes in [from, to] (or [from, to)
  // when `to_inclusive` is false; a missing bound is open), copied; empty under READ_COMMITTED, so
  // that the merge degenerates to the base.
  Writes staging_snapshot(const std::optional<Key>& from, const std::optional<Key>& to,
                          bool to_inclusive, IsolationLevel level) const {
    if (level == IsolationLevel::READ_COMMITTED) return {};
    // Kafka's subMap refuses from > to (IllegalArgumentException); its callers never ask for one
    // (the stores return an empty iterator first), and here such a range is simply empty.
    if (from && to && *to < *from) return {};
    auto first = from ? pending_writes_.lower_bound(*from) : pending_writes_.begin();
    auto last = !to            ? pending_writes_.end()
                : to_inclusive ? pending_writes_.upper_bound(*to)
                               : pending_writes_.lower_bound(*to);
    return Writes(first, last);
  }

  // commit: `flush_to_base(staged())` applies the staged writes to the base; on success the staged
  // writes and the byte count are cleared. On failure nothing is cleared, as when Kafka's
  // flushToBase throws. The pending position is the caller's to merge first.
  template <typename FlushToBase>
  Status commit(FlushToBase&& flush_to_base) {
    Status flushed = flush_to_base(static_cast<const Writes&>(pending_writes_));
    if (!flushed) return flushed;
    pending_writes_.clear();
    pending_writes_bytes_ = 0;
    return ok_status();
  }
  // rollback: the staged writes, the byte count and the pending position are discarded (the
  // backends' discardPendingBatch clears the pending position).
  void rollback() {
    pending_writes_.clear();
    pending_writes_bytes_ = 0;
    clear_pending_position();
  }

 private:
  Writes pending_writes_;
  int64_t pending_writes_bytes_ = 0;
};

// The key-value stores' buffer (InMemoryTransactionBuffer, RocksDBTransactionBuffer).
using TransactionBuffer = BasicTransactionBuffer<Bytes>;
using StagedWrites = TransactionBuffer::Writes;

// StagedMergeIterator, materialized: `staging` over `base`, both in the iteration order asked for
// (`reverse`: descending; `base` must already be in that order). A staged value replaces the base
// entry of the same key, a staged tombstone hides it, and a staged tombstone with no base entry
// yields nothing. `visit(key, value)` is called for each merged entry, in order.
template <typename Visit>
void visit_staged_merge(const StagedWrites& staging,
                        const std::vector<KeyValue<Bytes, Bytes>>& base, bool reverse,
                        Visit&& visit) {
  auto merge = [&](auto s, auto s_end) {
    auto b = base.begin();
    while (s != s_end || b != base.end()) {
      // Which side comes first in the order asked for; equal keys: the staged write wins.
      int cmp = -1;
      if (s == s_end) {
        cmp = 1;
      } else if (b != base.end()) {
        const int raw = Bytes::compare(s->first.view(), b->key.view());
        cmp = reverse ? -raw : raw;
      }
      if (cmp > 0) {
        visit(b->key, b->value);
        ++b;
        continue;
      }
      if (s->second) visit(s->first, *s->second);  // a tombstone yields nothing
      if (cmp == 0) ++b;
      ++s;
    }
  };
  if (reverse) {
    merge(staging.rbegin(), staging.rend());
  } else {
    merge(staging.begin(), staging.end());
  }
}

// The merge of `staging` over base entries (KeyValue<Bytes, Bytes>), as entries.
std::vector<KeyValue<Bytes, Bytes>> staged_merge(const StagedWrites& staging,
                                                 const std::vector<KeyValue<Bytes, Bytes>>& base,
                                                 bool reverse);

}  // namespace iq
