#pragma once
// StateStore (org.apache.kafka.streams.processor.StateStore) and the bytes key-value store
// (KeyValueStore<Bytes, byte[]>) that every layer below the typed one implements.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"
#include "iq/key_value_iterator.h"
#include "iq/position_bound.h"
#include "iq/query.h"
#include "iq/query_config.h"
#include "iq/query_result.h"
#include "iq/raw_sinks.h"
#include "iq/status.h"
#include "iq/streams_error.h"
#include "iq/topic_partition.h"

namespace iq {

class StateStoreContext;
class KeyValueBytesStore;

// What store.query() gives back: a QueryResult, or one of Kafka's exceptions as a value.
using QueryOutcome = base::Expected<QueryResult, StreamsError>;
template <typename T>
using StoreResult = base::Expected<T, StreamsError>;

class StateStore {
 public:
  virtual ~StateStore() = default;
  virtual const std::string& name() const = 0;
  // `root` is the outermost layer, the one the state manager registers (Kafka's init(context,
  // root)).
  [[nodiscard]] virtual Status init(StateStoreContext& context, StateStore& root) = 0;
  [[nodiscard]] virtual Status flush() = 0;
  // CachedStateStore.flushCache: a caching layer writes its dirty entries to the store below
  // without flushing that store (a commit's StreamTask.flush); the wrapping layers pass it down
  // (WrappedStateStore.flushCache); a store with no cache has nothing to do.
  [[nodiscard]] virtual Status flush_cache() { return ok_status(); }
  virtual void close() = 0;
  virtual bool persistent() const = 0;
  virtual bool is_open() const = 0;
  virtual QueryOutcome query(const Query& query, const PositionBound& bound,
                             const QueryConfig& config) = 0;
  // A copy of the position this layer answers with: the owner's for most layers, the merged
  // cache + inner position for the caching layer.
  virtual Position position() const = 0;
  // Java's getClass() rendering, which Kafka's failure and execution-info messages contain.
  virtual std::string_view java_class() const = 0;
  // WrappedStateStore.isTimestamped: does this stack hold ValueAndTimestamp bytes natively.
  virtual bool is_timestamped() const { return false; }
  // StoreQueryUtils.isAdapter: is this the plain-to-timestamped adapter.
  virtual bool is_adapter() const { return false; }
  // StateManagerUtil.isVersioned: is this a versioned store stack (whose changelog values restore
  // as they are, the timestamp travelling as the record's own).
  virtual bool is_versioned() const { return false; }
  // This store as a bytes key-value store, or nullptr: what dynamic_cast<KeyValueBytesStore*>
  // answers, without the type-name comparisons it makes on every query (store_query_utils).
  virtual KeyValueBytesStore* as_key_value_bytes_store() { return nullptr; }
  // Not Kafka: an observation for StoreLifeObserver (iq/store_life_observer.h), asked once the
  // store is open and before anything is written to it. Whether its own files held entries an
  // earlier store object left on disk; `out` (if not null) gets those entries as the bottom store
  // keeps them (a versioned store answers the flag alone). Layers pass it down; a store that keeps
  // nothing across store objects holds none. It reads under Operation::kObserve
  // (io/operation_marker.h) and leaves RocksDB's block cache alone, so asking changes no run.
  virtual bool kept_entries(std::vector<KeyValue<Bytes, Bytes>>* /*out*/) { return false; }

  // KIP-1035 (pin delta 1; docs/kafka-2026-08-20.md §4): StateStore.managesOffsets,
  // commit(Map<TopicPartition, Long>) and committedOffset. A store that manages offsets keeps its
  // changelog offsets and position inside itself, written by commit and read back at open; the
  // state manager then writes no .checkpoint or .position for it. Only RocksDB-backed stores at the
  // new pin manage offsets; every other store keeps these defaults (commit is a no-op, no offset).
  // Layers pass them down.
  virtual bool manages_offsets() const { return false; }
  // `offsets` empty: the store has no changelog (or is corrupted); Kafka then wipes every stored
  // offset but keeps the status marker, and still writes the position.
  [[nodiscard]] virtual Status commit(const ChangelogOffsets& /*offsets*/) { return ok_status(); }
  virtual StoreResult<std::optional<ChangelogOffset>> committed_offset(
      const TopicPartition& /*changelog*/) {
    return std::optional<ChangelogOffset>{};
  }
  // KIP-892 (pin delta 21; docs/kafka-2026-08-20.md §3.1):
  // StateStore.approximateNumUncommittedBytes, what a transactional store's buffer holds since its
  // last commit (transaction_buffer.h); 0 for every other store. Layers pass it down; TaskManager
  // sums it for the early commit.
  virtual int64_t approximate_num_uncommitted_bytes() const { return 0; }
  // Not Kafka (only its segmented stores have a package-private getCommittedPosition): an
  // observation for the simulator's trace. A transactional position owner's committed position,
  // the one READ_COMMITTED queries of it are bounded by and labelled with (pin delta 7); nullopt
  // for every other store (its one position bounds both levels). Layers pass it down, so a caching
  // stack answers the owner's, which its KeyQuery does not use (pin delta 8).
  virtual std::optional<Position> committed_position() const { return std::nullopt; }
  // Not Kafka: an observation for the simulator's trace. A window or session store's
  // observedStreamTime (the largest window start, or session end, it was ever put, removed or
  // restored; -1 before any), which sets its retention floor; nullopt for every other store. Layers
  // pass it down. Under KIP-892 a staged put raises it too (docs/kafka-2026-08-20.md §10, H7).
  virtual std::optional<int64_t> observed_stream_time() const { return std::nullopt; }
};

using KeyValueBytes = KeyValue<Bytes, ValueBytes>;
using BytesIterator = KeyValueIterator<Bytes, Bytes>;

// ReadOnlyKeyValueStore<Bytes, byte[]>: the reads of a key-value store, which is one, and what
// KeyValueBytesStore::read_only(level) hands out.
class ReadOnlyKeyValueBytes {
 public:
  virtual ~ReadOnlyKeyValueBytes() = default;
  [[nodiscard]] virtual StoreResult<ValueBytes> get(const Bytes& key) = 0;
  // Inclusive bounds, nullopt = open. A lower bound above the upper bound gives an empty iterator.
  [[nodiscard]] virtual StoreResult<BytesIterator> range(const std::optional<Bytes>& from,
                                                         const std::optional<Bytes>& to,
                                                         bool reverse) = 0;
  [[nodiscard]] virtual StoreResult<BytesIterator> all(bool reverse) = 0;
  virtual int64_t approximate_num_entries() = 0;

  // The query path's reads (store_query_utils, for a raw query that carries a sink; raw_sinks.h):
  // the same answer as get(), or as all() (both bounds open) or range(), handed to the sink instead
  // of returned. The range's result is the iterator's origin. These defaults read through get(),
  // all() and range(); a store that can hand out views of its own bytes overrides them.
  [[nodiscard]] virtual Status get_into(const Bytes& key, RawValueSink& sink) {
    auto value = get(key);
    if (!value) return base::unexpected(value.error());
    sink.value(*value ? std::optional<std::string_view>((*value)->view()) : std::nullopt);
    return ok_status();
  }
  [[nodiscard]] virtual StoreResult<IteratorOrigin> range_into(const std::optional<Bytes>& from,
                                                               const std::optional<Bytes>& to,
                                                               bool reverse, RawEntrySink& sink) {
    auto it = !from && !to ? all(reverse) : range(from, to, reverse);
    if (!it) return base::unexpected(it.error());
    for (const auto& kv : it->entries) sink.entry(kv.key.view(), kv.value.view());
    return it->origin;
  }
};

class KeyValueBytesStore : public StateStore, public ReadOnlyKeyValueBytes {
 public:
  KeyValueBytesStore* as_key_value_bytes_store() final { return this; }
  // KIP-892 (pin delta 5; docs/kafka-2026-08-20.md §3.2, §3.4): ReadOnlyKeyValueStore.readOnly,
  // the reads at an isolation level. StoreQueryUtils reads every KeyQuery and RangeQuery through
  // it. The interface's default is the store itself (both levels alike), which is what every
  // non-transactional store and the adapters keep; a transactional position owner returns its
  // committed view for READ_COMMITTED; the change-logging layer passes it down; the caching layer
  // passes READ_COMMITTED down, past its cache.
  virtual ReadOnlyKeyValueBytes& read_only(IsolationLevel /*level*/) { return *this; }
  [[nodiscard]] virtual Status put(const Bytes& key, const ValueBytes& value) = 0;
  [[nodiscard]] virtual StoreResult<ValueBytes> put_if_absent(const Bytes& key,
                                                              const ValueBytes& value) = 0;
  [[nodiscard]] virtual Status put_all(const std::vector<KeyValueBytes>& entries) = 0;
  [[nodiscard]] virtual StoreResult<ValueBytes> delete_key(const Bytes& key) = 0;
};

}  // namespace iq
