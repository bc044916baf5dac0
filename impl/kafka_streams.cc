#include "kafka_streams.h"

#include "base/probe.h"
#include "io/operation_marker.h"
#include "iq/default_partitioner.h"
#include "processor/standby_task.h"
#include "topology/topologies.h"

namespace iq {

TopologyConfig rewrite_topology(TopologyConfig topology, const StreamsConfig& config) {
  if (config.statestore_cache_max_bytes == 0) topology.caching = false;
  return topology;
}

KafkaStreams::KafkaStreams(StreamsConfig config, TopologyConfig topology, ClientIo io,
                           std::string process_id)
    : config_(std::move(config)), io_(std::move(io)) {
  IQ_ASSERT(config_.num_stream_threads >= 1 &&
                io_.threads.size() == static_cast<size_t>(config_.num_stream_threads),
            "{} threads configured, {} given", config_.num_stream_threads, io_.threads.size());
  IQ_ASSERT(io_.admin != nullptr && io_.fs != nullptr);
  client_.application_id = config_.application_id;
  client_.process_id = std::move(process_id);
  client_.endpoint = config_.application_server;
  client_.topology = rewrite_topology(std::move(topology), config_);
  state_directory_ = std::make_unique<StateDirectory>(
      *io_.fs, config_.state_dir, config_.application_id, config_.state_cleanup_delay_ms,
      has_persistent_stores(client_.topology));
  client_.assignment_configs = config_.assignment;
  client_.thread_config.commit_interval_ms = config_.commit_interval_ms;
  client_.thread_config.kafka_pin = config_.kafka_pin;
  IQ_ASSERT(config_.max_poll_records >= 1, "max.poll.records={}", config_.max_poll_records);
  IQ_ASSERT(config_.rocksdb_write_buffer_size >= 1, "write_buffer_size={}",
            config_.rocksdb_write_buffer_size);
  client_.thread_config.max_poll_records = static_cast<size_t>(config_.max_poll_records);
  // Pin delta 21 (6110d3e1ba): KafkaStreams.maxUncommittedBytesPerThread, the budget split over the
  // stream threads (iqsim has no global thread); 0 or less disables it. The old pin has none.
  if (at_least(config_.kafka_pin, KafkaPin::k2026_08_20) &&
      config_.statestore_uncommitted_max_bytes > 0) {
    client_.thread_config.max_uncommitted_bytes =
        config_.statestore_uncommitted_max_bytes / config_.num_stream_threads;
  }
  client_.state_directory = state_directory_.get();
  client_.admin = io_.admin;
  // KafkaStreams.cacheSizePerThread: the cache budget split evenly over the threads.
  const int64_t per_thread = config_.statestore_cache_max_bytes / config_.num_stream_threads;
  for (int32_t i = 0; i < config_.num_stream_threads; ++i) {
    caches_.push_back(std::make_unique<ThreadCache>(per_thread));
    standby_caches_.push_back(std::make_unique<ThreadCache>(0));  // standbys cache nothing
    const ThreadIo& t = io_.threads[static_cast<size_t>(i)];
    IQ_ASSERT(t.main_consumer && t.restore_consumer && t.membership);
    RecordCollector* collector = t.collector;
    StreamsProducer* producer = nullptr;
    if (eos_enabled()) {
      // ActiveTaskCreator: one StreamsProducer per thread, the tasks' collectors share it.
      IQ_ASSERT(t.producer_factory != nullptr, "exactly_once_v2 needs a producer factory");
      producers_.push_back(std::make_unique<StreamsProducer>(
          StreamsProducer::transactional_id(config_.application_id, client_.process_id, i + 1),
          t.producer_factory));
      producer = producers_.back().get();
      collector = producer;
    }
    IQ_ASSERT(collector != nullptr);
    ThreadCache* cache = caches_.back().get();
    ThreadCache* standby_cache = standby_caches_.back().get();
    auto environment = [this, cache, standby_cache, collector](const TaskId& id) {
      return task_environment(id, cache, standby_cache, collector);
    };
    threads_.push_back(std::make_unique<StreamThread>(
        config_.application_id + "-StreamThread-" + std::to_string(i + 1), client_,
        *t.main_consumer, *t.restore_consumer, *t.membership, environment, producer));
    threads_.back()->task_manager().set_random(base::Prng(t.random_seed));
  }
}

TaskEnvironment KafkaStreams::task_environment(const TaskId& id, ThreadCache* cache,
                                               ThreadCache* standby_cache,
                                               RecordCollector* collector) {
  TaskEnvironment env;
  env.application_id = config_.application_id;
  env.task_dir = state_directory_->task_dir(id);
  env.consistency_enabled = config_.consistency_offset_vector_enabled;
  env.kafka_pin = config_.kafka_pin;
  env.quirks = config_.quirks;
  env.eos_enabled = eos_enabled();
  env.transactional_state_stores = transactional_state_stores();
  env.offset_delta_threshold_for_checkpoint = config_.offset_delta_threshold_for_checkpoint;
  env.fs = io_.fs;
  env.rocksdb_env = io_.rocksdb_env;
  env.rocksdb_write_buffer_size = static_cast<size_t>(config_.rocksdb_write_buffer_size);
  env.cache = cache;
  env.standby_cache = standby_cache;
  env.collector = collector;
  env.processed = io_.processed;
  env.store_lives = io_.store_lives;
  env.state_directory = state_directory_.get();
  return env;
}

KafkaStreams::~KafkaStreams() {
  threads_.clear();
}

void KafkaStreams::transition_to(KafkaStreamsState next) {
  IQ_ASSERT(is_valid_transition(state_, next), "client {}: {} -> {}", client_.process_id,
            to_string(state_), to_string(next));
  state_ = next;
}

Status KafkaStreams::start() {
  transition_to(KafkaStreamsState::REBALANCING);
  if (at_least(config_.kafka_pin, KafkaPin::k2026_08_20)) {
    // pin delta 14 (8fa7e095a0): the local state is opened before any thread starts. An error
    // other than a corrupted task escapes start() (Kafka throws it to the caller, the client
    // stays REBALANCING and no thread starts).
    auto s = initialize_startup_stores();
    if (!s) return s;
  }
  for (auto& t : threads_) t->start();
  return ok_status();
}

// StateDirectory.initializeStartupStores (8fa7e095a0, 95291432fa): every non-empty task directory
// of a topology with changelogged state has its stores opened by a temporary state manager,
// which initializes their offsets (seeding the offset-sum cache with what they hold on disk),
// commits them, and closes them cleanly (a RocksDB store writes its closed marker and flushes).
// A corrupted task (an open marker under exactly_once_v2, or no offsets in a non-empty directory)
// is only logged and closed: the first assignment finds it corrupted again and wipes it. Here the
// temporary manager is a standby's (no cache, no collector, no store-life observer: it serves no
// query and writes no data), closed through close_clean, whose commit is Kafka's commit().
Status KafkaStreams::initialize_startup_stores() {
  if (!client_.topology.logging) return ok_status();  // subTopology.hasStateWithChangelogs
  ThreadCache no_cache(0);
  const std::string owner = "startup";  // the lock registerStateStores takes, closing releases
  for (const TaskId& id : state_directory_->task_dirs_on_disk()) {
    if (state_directory_->directory_for_task_is_empty(id)) continue;  // listNonEmptyTaskDirs
    const bool locked = state_directory_->lock(id, owner);
    IQ_ASSERT(locked, "task {} locked before start", id.to_string());
    state_directory_->note_opened(id);
    TaskEnvironment env = task_environment(id, &no_cache, &no_cache, nullptr);
    env.processed = nullptr;
    env.store_lives = nullptr;
    StandbyTask task(id, client_.topology, env);
    auto s = task.initialize();
    if (!s && s.error().kind != StreamsError::Kind::TaskCorrupted) {
      (void)task.close_clean();  // Kafka's finally closes it cleanly before the error escapes
      state_directory_->unlock(id, owner);
      return s;
    }
    if (!s) {
      IQ_PROBE("startup.task_corrupted",
               "a local task directory was corrupted when its stores opened at start: logged, its "
               "stores closed, the wipe left to the first assignment (new pin, delta 14)");
    } else {
      IQ_PROBE("startup.local_state_opened",
               "a local task directory's stores were opened, committed and closed at start, "
               "seeding the offset-sum cache (new pin, delta 14)");
    }
    auto closed = task.close_clean();
    state_directory_->unlock(id, owner);
    if (!closed) return closed;
  }
  return ok_status();
}

// REBALANCING as soon as any thread is between assignment and RUNNING; RUNNING once all are.
void KafkaStreams::update_client_state() {
  if (state_ != KafkaStreamsState::RUNNING && state_ != KafkaStreamsState::REBALANCING) return;
  bool all_running = true;
  for (const auto& t : threads_) {
    const ThreadState s = t->state();
    if (s != ThreadState::RUNNING && s != ThreadState::DEAD) all_running = false;
  }
  if (all_running && state_ == KafkaStreamsState::REBALANCING)
    transition_to(KafkaStreamsState::RUNNING);
  if (!all_running && state_ == KafkaStreamsState::RUNNING)
    transition_to(KafkaStreamsState::REBALANCING);
}

Status KafkaStreams::run_once(int64_t now_ms) {
  if (state_ != KafkaStreamsState::RUNNING && state_ != KafkaStreamsState::REBALANCING)
    return ok_status();
  for (auto& t : threads_) {
    auto s = t->run_once(now_ms);
    if (!s) {
      transition_to(KafkaStreamsState::PENDING_ERROR);
      transition_to(KafkaStreamsState::ERROR);
      return s;
    }
  }
  update_client_state();
  return ok_status();
}

Status KafkaStreams::close() {
  if (state_ == KafkaStreamsState::NOT_RUNNING) return ok_status();
  if (state_ == KafkaStreamsState::CREATED) {
    transition_to(KafkaStreamsState::PENDING_SHUTDOWN);
    transition_to(KafkaStreamsState::NOT_RUNNING);
    return ok_status();
  }
  transition_to(KafkaStreamsState::PENDING_SHUTDOWN);
  const OperationScope marker(Operation::kClose);
  Status status = ok_status();
  for (auto& t : threads_) {
    auto s = t->shutdown();
    if (!s && status) status = s;
  }
  transition_to(KafkaStreamsState::NOT_RUNNING);
  return status;
}

std::vector<TaskId> KafkaStreams::run_state_dir_cleaner(int64_t now_ms) {
  // Kafka reads the state without a lock here: the cleaner acts on what it sees.
  if (state_ != KafkaStreamsState::RUNNING) return {};
  return state_directory_->clean_removed_tasks(now_ms);
}

base::Expected<StateQueryResult, StreamsError> KafkaStreams::query(
    const StateQueryRequest& request) const {
  QueryContext context;
  context.store_names = {client_.topology.store_name};
  context.client_state = state_;
  context.kafka_pin = config_.kafka_pin;
  context.default_isolation_level = config_.default_iq_isolation_level;
  for (const auto& t : threads_)
    context.threads.push_back(ThreadView{t->state(), t->task_manager().all_tasks()});
  return run_interactive_query(context, request);
}

base::Expected<Unit, StreamsError> KafkaStreams::validate_is_running_or_rebalancing() const {
  if (state_ == KafkaStreamsState::CREATED) {
    return base::unexpected(
        StreamsError{StreamsError::Kind::StreamsNotStarted,
                     "KafkaStreams has not been started, you can retry after calling start()."});
  }
  if (state_ != KafkaStreamsState::RUNNING && state_ != KafkaStreamsState::REBALANCING) {
    return base::unexpected(StreamsError{
        StreamsError::Kind::IllegalState,
        std::string("KafkaStreams is not running. State is ") + to_string(state_) + "."});
  }
  return Unit{};
}

base::Expected<KeyQueryMetadata, StreamsError> KafkaStreams::query_metadata_for_key(
    const std::string& store, int32_t key) const {
  auto valid = validate_is_running_or_rebalancing();
  if (!valid) return base::unexpected(valid.error());
  if (store != client_.topology.store_name) {
    return base::unexpected(
        StreamsError{StreamsError::Kind::UnknownStateStore,
                     "Cannot get state store " + store +
                         " because no such store is registered in the topology."});
  }
  if (!client_.metadata_initialized) return KeyQueryMetadata::not_available();
  const int32_t partition =
      partition_for_key(Serde<int32_t>::serialize(key).view(), client_.topology.source_partitions);
  const TopicPartitionName tp{client_.topology.source_topic, partition};
  KeyQueryMetadata out{HostInfo::unavailable(), {}, partition};
  for (const auto& [host, tps] : client_.partitions_by_host) {
    if (tps.count(tp)) out.active_host = host;
  }
  for (const auto& [host, tps] : client_.standby_partitions_by_host) {
    if (tps.count(tp)) out.standby_hosts.insert(host);
  }
  return out;
}

base::Expected<std::vector<StreamsMetadata>, StreamsError> KafkaStreams::streams_metadata_for_store(
    const std::string& store) const {
  auto valid = validate_is_running_or_rebalancing();
  if (!valid) return base::unexpected(valid.error());
  std::map<HostInfo, StreamsMetadata> by_host;
  if (store != client_.topology.store_name) return std::vector<StreamsMetadata>{};
  for (const auto& [host, tps] : client_.partitions_by_host) {
    auto& m = by_host[host];
    m.host_info = host;
    m.state_store_names.insert(store);
    m.topic_partitions = tps;
  }
  for (const auto& [host, tps] : client_.standby_partitions_by_host) {
    auto& m = by_host[host];
    m.host_info = host;
    m.standby_state_store_names.insert(store);
    m.standby_topic_partitions = tps;
  }
  std::vector<StreamsMetadata> out;
  for (auto& [host, m] : by_host) out.push_back(std::move(m));
  return out;
}

base::Expected<std::map<std::string, std::map<int32_t, LagInfo>>, StreamsError>
KafkaStreams::all_local_store_partition_lags() const {
  auto valid = validate_is_running_or_rebalancing();
  if (!valid) return base::unexpected(valid.error());
  std::map<std::string, std::map<int32_t, LagInfo>> out;
  std::vector<TopicPartition> changelogs;
  std::vector<std::pair<Task*, TopicPartition>> local;
  for (const auto& t : threads_) {
    for (Task* task : t->task_manager().all_tasks()) {
      for (const auto& tp : task->changelog_partitions()) {
        changelogs.push_back(tp);
        local.emplace_back(task, tp);
      }
    }
  }
  if (changelogs.empty()) return out;
  auto ends = io_.admin->end_offsets(changelogs);
  if (!ends) return base::unexpected(ends.error());
  for (const auto& [task, tp] : local) {
    // Admin.listOffsets speaks longs; the end is an offset of the changelog partition `tp`.
    const ChangelogOffset end(ends->at(tp));
    // A running active is at the end; other tasks are at their last restored offset + 1.
    ChangelogOffset current(0);
    if (task->is_active() && task->state() == TaskState::RUNNING) {
      current = end;
    } else if (auto o = task->state_manager().changelog_offset(client_.topology.store_name)) {
      current = *o + 1;
    }
    out[client_.topology.store_name][tp.second] = LagInfo::of(current, end);
  }
  return out;
}

}  // namespace iq
