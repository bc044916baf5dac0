#pragma once
// The versioned key-value store interfaces (S/state/VersionedKeyValueStore.java,
// S/state/VersionedBytesStore.java) and the two thin layers of the versioned stack:
//
//   MeteredVersionedKeyValueStore<K, V>           (metered_versioned_key_value_store.h)
//   -> [ChangeLoggingVersionedKeyValueBytesStore]  logs each put/delete with its version timestamp
//   -> VersionedKeyValueToBytesStoreAdapter        VersionedBytesStore over the store below
//   -> RocksDBVersionedStore                       the position owner (rocksdb_versioned_store.h)
//
// There is no caching layer: Kafka's VersionedKeyValueStoreBuilder has none and refuses
// withCachingEnabled. versioned_stores.h builds the stack.

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>

#include "iq/isolation_level.h"
#include "iq/serdes.h"
#include "iq/versioned_record.h"
#include "state/state_store.h"
#include "state/store_query_utils.h"

namespace iq {

// VersionedKeyValueStore's put() return codes.
inline constexpr int64_t kPutReturnCodeValidToUndefined = -1;
inline constexpr int64_t kPutReturnCodeNotPut = std::numeric_limits<int64_t>::min();

using VersionedBytesRecord = VersionedRecord<Bytes>;

// The reads of VersionedKeyValueStore<Bytes, byte[]>: what a versioned store is, and what its
// read_only(level) hands out (KAFKA-20500's readOnly(IsolationLevel), whose view refuses writes:
// this interface has none).
class ReadOnlyVersionedBytes {
 public:
  virtual ~ReadOnlyVersionedBytes() = default;
  // The latest version (no validTo), or nullopt.
  [[nodiscard]] virtual StoreResult<std::optional<VersionedBytesRecord>> get(const Bytes& key) = 0;
  // The version valid at `as_of_ms`, with its validTo unless it is the latest, or nullopt.
  [[nodiscard]] virtual StoreResult<std::optional<VersionedBytesRecord>> get(const Bytes& key,
                                                                             int64_t as_of_ms) = 0;
};

// VersionedKeyValueStore<Bytes, byte[]>: what RocksDBVersionedStore implements.
class VersionedKeyValueBytesStore : public StateStore, public ReadOnlyVersionedBytes {
 public:
  // Adds a version valid from `timestamp_ms` (a null value is a tombstone). Returns the new
  // version's validTo, kPutReturnCodeValidToUndefined when it is the latest, or
  // kPutReturnCodeNotPut when it was older than the grace period and dropped.
  [[nodiscard]] virtual StoreResult<int64_t> put(const Bytes& key, const ValueBytes& value,
                                                 int64_t timestamp_ms) = 0;
  // Puts a tombstone at `timestamp_ms`; returns what get(key, timestamp_ms) gave just before, or
  // nullopt (also when the delete was older than the grace period and dropped).
  [[nodiscard]] virtual StoreResult<std::optional<VersionedBytesRecord>> delete_key(
      const Bytes& key, int64_t timestamp_ms) = 0;
  using ReadOnlyVersionedBytes::get;
  // VersionedKeyValueStore.readOnly(level)'s default (KAFKA-20500): the store itself, whatever the
  // level; a store with a transactional form answers READ_COMMITTED with a committed view.
  virtual ReadOnlyVersionedBytes& read_only(IsolationLevel /*level*/) { return *this; }
  bool is_timestamped() const override { return true; }
  bool is_versioned() const override { return true; }
};

// VersionedBytesStore: the KeyValueStore<Bytes, byte[]> face of a versioned store that the
// change-logging and metered layers talk to. Reads return ValueAndTimestamp bytes
// ([timestamp][value]) of the version, so a validTo never crosses this interface: the typed get()
// of the metered layer loses it (queries do not, they pass through query()). Kafka's plain
// key-value methods on it all throw UnsupportedOperationException; they are left out here.
class VersionedBytesStore : public StateStore {
 public:
  [[nodiscard]] virtual StoreResult<int64_t> put(const Bytes& key, const ValueBytes& value,
                                                 int64_t timestamp_ms) = 0;
  [[nodiscard]] virtual StoreResult<ValueBytes> get(const Bytes& key) = 0;
  [[nodiscard]] virtual StoreResult<ValueBytes> get(const Bytes& key, int64_t as_of_ms) = 0;
  [[nodiscard]] virtual StoreResult<ValueBytes> delete_key(const Bytes& key,
                                                           int64_t timestamp_ms) = 0;
  bool is_timestamped() const override { return true; }
  bool is_versioned() const override { return true; }
};

// VersionedKeyValueToBytesStoreAdapter (SI/VersionedKeyValueToBytesStoreAdapter.java): not a
// WrappedStateStore, so queries pass through it without an execution-info line.
class VersionedKeyValueToBytesStoreAdapter final : public VersionedBytesStore {
 public:
  explicit VersionedKeyValueToBytesStoreAdapter(std::unique_ptr<VersionedKeyValueBytesStore> inner)
      : inner_(std::move(inner)) {
    IQ_ASSERT(inner_ != nullptr);
  }

  const std::string& name() const override { return inner_->name(); }
  Status init(StateStoreContext& context, StateStore& root) override {
    return inner_->init(context, root);
  }
  Status flush() override { return inner_->flush(); }
  void close() override { inner_->close(); }
  bool persistent() const override { return inner_->persistent(); }
  bool is_open() const override { return inner_->is_open(); }
  Position position() const override { return inner_->position(); }
  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.VersionedKeyValueToBytesStoreAdapter";
  }
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    return inner_->query(q, bound, config);
  }

  StoreResult<int64_t> put(const Bytes& key, const ValueBytes& value,
                           int64_t timestamp_ms) override {
    return inner_->put(key, value, timestamp_ms);
  }
  StoreResult<ValueBytes> get(const Bytes& key) override { return as_bytes(inner_->get(key)); }
  StoreResult<ValueBytes> get(const Bytes& key, int64_t as_of_ms) override {
    return as_bytes(inner_->get(key, as_of_ms));
  }
  StoreResult<ValueBytes> delete_key(const Bytes& key, int64_t timestamp_ms) override {
    return as_bytes(inner_->delete_key(key, timestamp_ms));
  }

  VersionedKeyValueBytesStore& inner() { return *inner_; }
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) override {
    return inner_->kept_entries(out);
  }
  // Kafka's adapter delegates approximateNumUncommittedBytes (6110d3e1ba); the committed position
  // is the simulator's observation, passed down as every layer does.
  int64_t approximate_num_uncommitted_bytes() const override {
    return inner_->approximate_num_uncommitted_bytes();
  }
  std::optional<Position> committed_position() const override {
    return inner_->committed_position();
  }
  bool manages_offsets() const override { return inner_->manages_offsets(); }
  Status commit(const ChangelogOffsets& offsets) override { return inner_->commit(offsets); }
  StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& changelog) override {
    return inner_->committed_offset(changelog);
  }

 private:
  // serializeAsBytes: ValueAndTimestamp(value, timestamp), validTo dropped.
  static StoreResult<ValueBytes> as_bytes(StoreResult<std::optional<VersionedBytesRecord>> r) {
    if (!r) return base::unexpected(r.error());
    if (!r->has_value()) return ValueBytes{};
    return ValueBytes(timestamped_bytes::make((*r)->timestamp, (*r)->value));
  }

  std::unique_ptr<VersionedKeyValueBytesStore> inner_;
};

// ChangeLoggingVersionedKeyValueBytesStore (SI/ChangeLoggingVersionedKeyValueBytesStore.java):
// applies each put/delete below, then logs it with the VERSION's timestamp as the changelog
// record's timestamp (restore reads it back from there) and the position of the store below.
//
// Kafka quirk (docs/iqv2-semantics.md quirk 13): the record is logged whether or not the store
// below took it, so a put or delete older than the grace period, which the store drops, still
// reaches the changelog (and restore drops it again by its timestamp).
class ChangeLoggingVersionedKeyValueBytesStore final : public VersionedBytesStore {
 public:
  explicit ChangeLoggingVersionedKeyValueBytesStore(std::unique_ptr<VersionedBytesStore> wrapped)
      : wrapped_(std::move(wrapped)) {
    IQ_ASSERT(wrapped_ != nullptr);
  }

  const std::string& name() const override { return wrapped_->name(); }
  Status init(StateStoreContext& context, StateStore& root) override;
  Status flush() override { return wrapped_->flush(); }
  void close() override { wrapped_->close(); }
  bool persistent() const override { return wrapped_->persistent(); }
  bool is_open() const override { return wrapped_->is_open(); }
  Position position() const override { return wrapped_->position(); }
  std::string_view java_class() const override {
    return "class "
           "org.apache.kafka.streams.state.internals.ChangeLoggingVersionedKeyValueBytesStore";
  }
  // WrappedStateStore.query.
  QueryOutcome query(const Query& q, const PositionBound& bound,
                     const QueryConfig& config) override {
    auto result = wrapped_->query(q, bound, config);
    if (result && config.is_collect_execution_info()) {
      result->add_execution_info(store_query_utils::execution_info(java_class()) +
                                 " via WrappedStateStore");
    }
    return result;
  }

  StoreResult<int64_t> put(const Bytes& key, const ValueBytes& value,
                           int64_t timestamp_ms) override;
  StoreResult<ValueBytes> get(const Bytes& key) override { return wrapped_->get(key); }
  StoreResult<ValueBytes> get(const Bytes& key, int64_t as_of_ms) override {
    return wrapped_->get(key, as_of_ms);
  }
  StoreResult<ValueBytes> delete_key(const Bytes& key, int64_t timestamp_ms) override;

  VersionedBytesStore& wrapped() { return *wrapped_; }
  bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* out) override {
    return wrapped_->kept_entries(out);
  }
  // WrappedStateStore delegates both (Kafka's for the bytes, the simulator's observation).
  int64_t approximate_num_uncommitted_bytes() const override {
    return wrapped_->approximate_num_uncommitted_bytes();
  }
  std::optional<Position> committed_position() const override {
    return wrapped_->committed_position();
  }
  bool manages_offsets() const override { return wrapped_->manages_offsets(); }
  Status commit(const ChangelogOffsets& offsets) override { return wrapped_->commit(offsets); }
  StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& changelog) override {
    return wrapped_->committed_offset(changelog);
  }

 private:
  Status log(const Bytes& key, const ValueBytes& value, int64_t timestamp_ms);

  std::unique_ptr<VersionedBytesStore> wrapped_;
  StateStoreContext* context_ = nullptr;
};

}  // namespace iq
