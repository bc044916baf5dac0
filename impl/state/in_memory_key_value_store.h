#pragma once
// InMemoryKeyValueStore (SI/InMemoryKeyValueStore.java): an ordered map of bytes. Not persistent:
// its position is never written to disk, so a restart starts from an empty position.
//
// Transactional (KIP-892, enable.transactional.statestores at the 2026-08-20 pin, pin deltas 5
// and 7; docs/kafka-2026-08-20.md §3.3, §3.4.2): writes are staged in an InMemoryTransactionBuffer
// and their position in its pending position; commit(offsets) merges the pending position into the
// committed one and applies the staged writes to the map. Restoration writes the map and the
// committed position directly. position() is then committed + pending (a copy); query() bounds and
// labels READ_UNCOMMITTED with it and READ_COMMITTED with the committed position, and reads
// through read_only(level): the staged view, or the map alone. close() rolls the buffer back.

#include <map>
#include <memory>

#include "state/state_store.h"
#include "state/state_store_context.h"
#include "state/store_query_utils.h"
#include "state/transaction_buffer.h"

namespace iq {

class InMemoryKeyValueStore final : public KeyValueBytesStore {
 public:
  explicit InMemoryKeyValueStore(std::string name) : name_(std::move(name)) {}

  const std::string& name() const override { return name_; }
  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override { return ok_status(); }
  // Clears the data but, as in Kafka, not the position (docs/iqv2-semantics.md §8); a
  // transactional store's staged writes and pending position are rolled back first.
  void close() override {
    if (buffer_) buffer_->rollback();
    map_.clear();
    open_ = false;
  }
  bool persistent() const override { return false; }
  bool is_open() const override { return open_; }
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override;
  Position position() const override;
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.InMemoryKeyValueStore";
  }

  Status put(const Bytes& key, const ValueBytes& value) override;
  StoreResult<ValueBytes> put_if_absent(const Bytes& key, const ValueBytes& value) override;
  Status put_all(const std::vector<KeyValueBytes>& entries) override;
  StoreResult<ValueBytes> delete_key(const Bytes& key) override;
  StoreResult<ValueBytes> get(const Bytes& key) override;
  StoreResult<BytesIterator> range(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                                   bool reverse) override;
  StoreResult<BytesIterator> all(bool reverse) override {
    return range(std::nullopt, std::nullopt, reverse);
  }
  // The committed map only, as Kafka's.
  int64_t approximate_num_entries() override { return static_cast<int64_t>(map_.size()); }
  // The query path's reads, as views of the map's own bytes.
  Status get_into(const Bytes& key, RawValueSink& sink) override;
  StoreResult<IteratorOrigin> range_into(const std::optional<Bytes>& from,
                                         const std::optional<Bytes>& to, bool reverse,
                                         RawEntrySink& sink) override;

  // KIP-892. The store itself reads READ_UNCOMMITTED (staged first); the committed view reads
  // the map alone. A store that is not transactional is its own view for both levels.
  ReadOnlyKeyValueBytes& read_only(IsolationLevel level) override;
  Status commit(const ChangelogOffsets& offsets) override;  // commitStagedWrites
  int64_t approximate_num_uncommitted_bytes() const override {
    return buffer_ ? buffer_->approximate_num_uncommitted_bytes() : 0;
  }
  bool transactional() const { return buffer_ != nullptr; }
  std::optional<Position> committed_position() const override {
    if (!buffer_) return std::nullopt;
    return position_;
  }

 private:
  // ReadOnlyView bound to READ_COMMITTED: the store's reads at that level.
  class CommittedView final : public ReadOnlyKeyValueBytes {
   public:
    explicit CommittedView(InMemoryKeyValueStore& store) : store_(store) {}
    StoreResult<ValueBytes> get(const Bytes& key) override {
      return store_.get_at(key, IsolationLevel::READ_COMMITTED);
    }
    StoreResult<BytesIterator> range(const std::optional<Bytes>& from,
                                     const std::optional<Bytes>& to, bool reverse) override {
      return store_.range_at(from, to, reverse, IsolationLevel::READ_COMMITTED);
    }
    StoreResult<BytesIterator> all(bool reverse) override {
      return range(std::nullopt, std::nullopt, reverse);
    }
    int64_t approximate_num_entries() override { return store_.approximate_num_entries(); }

   private:
    InMemoryKeyValueStore& store_;
  };

  ValueBytes get_at(const Bytes& key, IsolationLevel level) const;
  BytesIterator range_at(const std::optional<Bytes>& from, const std::optional<Bytes>& to,
                         bool reverse, IsolationLevel level) const;
  // putInternal: the map and the committed position (restoration, and every non-transactional put).
  void put_internal(const Bytes& key, const ValueBytes& value);
  Status restore_batch(const std::vector<ConsumerRecord>& records);

  std::string name_;
  std::map<Bytes, Bytes> map_;
  Position position_ = Position::empty_position();
  StateStoreContext* context_ = nullptr;
  bool consistency_enabled_ = false;
  bool open_ = false;
  std::unique_ptr<TransactionBuffer> buffer_;  // transactional only
  CommittedView committed_view_{*this};
};

}  // namespace iq
