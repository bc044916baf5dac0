#pragma once
// StateStoreContext: what a store sees of its task (Kafka's StateStoreContext together with the
// parts of InternalProcessorContext that stores use). impl/processor/ProcessorContextImpl is the
// real one.

#include <functional>
#include <optional>
#include <string>

#include "io/file_system.h"
#include "io/record.h"
#include "iq/changelog_topic.h"
#include "iq/kafka_pin.h"
#include "iq/kafka_quirks.h"
#include "iq/position.h"
#include "iq/task_id.h"
#include "state/state_store.h"

namespace rocksdb {
class Env;
}

namespace iq {

class ThreadCache;

// ProcessorRecordContext: where the record being processed came from. A punctuation's context
// has no topic and partition/offset -1, so writes it makes never advance a position.
struct RecordContext {
  std::optional<std::string> topic;
  int32_t partition = -1;
  int64_t offset = -1;
  int64_t timestamp = 0;
  Headers headers;
  friend bool operator==(const RecordContext&, const RecordContext&) = default;
};

// The batching restore callback a store registers: applies changelog records in offset order.
using RestoreCallback = std::function<Status(const std::vector<ConsumerRecord>&)>;
// Runs at checkpoint time, before the task's .checkpoint is written (writes <store>.position).
using CommitCallback = std::function<Status()>;

class StateStoreContext {
 public:
  virtual ~StateStoreContext() = default;
  virtual const std::string& application_id() const = 0;
  virtual TaskId task_id() const = 0;
  // The current record context, or nullptr before the first record (Kafka's recordMetadata()
  // being empty). Never cleared after processing, as in Kafka.
  virtual const RecordContext* record_context() const = 0;
  virtual void set_record_context(std::optional<RecordContext> context) = 0;
  // __iq.consistency.offset.vector.enabled__: governs both writing and reading the "c" header.
  virtual bool consistency_enabled() const = 0;
  // The Kafka impl/ follows (iq/kafka_pin.h): a store asks it where the pins differ. Test
  // contexts that do not say are the old pin.
  virtual KafkaPin kafka_pin() const { return KafkaPin::k2024_10_25; }
  // Kafka's quirks that change only answers (iq/kafka_quirks.h); test contexts have Kafka's.
  virtual const KafkaQuirks& quirks() const {
    static const KafkaQuirks kafkas;
    return kafkas;
  }
  // processing.guarantee=exactly_once_v2: at the new pin a RocksDB store reads it at open
  // (RocksDBStore.openDB's status-marker check, pin delta 4).
  virtual bool eos_enabled() const { return false; }
  // enable.transactional.statestores (KIP-892, the 2026-08-20 pin only, pin delta 5): each store
  // reads it at init, as Kafka's read it from appConfigs(), and stages its writes in a
  // transaction buffer (transaction_buffer.h) when it is on. Never true at the old pin.
  virtual bool transactional_state_stores() const { return false; }
  // ProcessorContextImpl.logChange: send a changelog record, with the position headers when the
  // switch is on. A standby's context fails with UnsupportedOperationException.
  [[nodiscard]] virtual Status log_change(const std::string& store_name, const Bytes& key,
                                          const ValueBytes& value, int64_t timestamp,
                                          const Position& position) = 0;
  virtual void register_store(StateStore& store, RestoreCallback restore,
                              CommitCallback commit) = 0;
  // The thread's record cache, or nullptr when caching is not configured.
  virtual ThreadCache* cache() = 0;
  // The task directory: <state.dir>/<application.id>/<task id>.
  virtual const std::string& state_dir() const = 0;
  virtual FileSystem& file_system() = 0;
  // The Env RocksDB stores open their databases on (the simulator supplies its own).
  virtual rocksdb::Env* rocksdb_env() = 0;
  // The write_buffer_size of the RocksDB stores (Kafka's RocksDBStore sets 16 MiB; a user's
  // rocksdb.config.setter may change it): a memtable this full is flushed by itself
  // (rocksdb_store.h, flush_if_memtable_full).
  virtual size_t rocksdb_write_buffer_size() const { return kRocksDbWriteBufferSizeDefault; }
  static constexpr size_t kRocksDbWriteBufferSizeDefault = 16 * 1024 * 1024;
  // changelogFor(storeName): "<application.id>-<store>-changelog".
  std::string changelog_topic(const std::string& store_name) const {
    return store_changelog_topic(application_id(), store_name);
  }
};

}  // namespace iq
