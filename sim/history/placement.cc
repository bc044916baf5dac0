#include "history/placement.h"

#include "base/assert.h"
#include "iq/changelog_topic.h"
#include "iq/serdes.h"
#include "state/session_store.h"
#include "state/thread_cache.h"
#include "state/window_store.h"

namespace iq::sim {
namespace {

// A task holds `store` if the store is registered or one of its changelogs is the store's.
bool task_holds_store(Task& task, const std::string& store) {
  if (task.store(store) != nullptr) return true;
  for (const auto& [topic, partition] : task.changelog_partitions()) {
    if (is_store_changelog_topic(topic, store)) return true;
  }
  return false;
}

// An active's writes not yet in the changelog: the dirty entries of its cache namespace, decoded
// as the changelog will hold them (a timestamped store caches value-and-timestamp bytes and logs
// the raw value under the timestamp).
std::vector<UnloggedWrite> unlogged_writes(const Task& task, const std::string& store) {
  std::vector<UnloggedWrite> out;
  const ThreadCache* cache = task.active_cache();
  if (cache == nullptr) return out;
  const NamedCache* named = cache->named_cache(ThreadCache::name_space(task.id(), store));
  if (named == nullptr || named->dirty_count() == 0) return out;
  const TopologyConfig& topology = task.topology_config();
  const bool timestamped = topology.timestamped();
  // The window and session caches key their entries [8-byte segment id][store key].
  const size_t prefix = topology.windowed() || topology.session() ? 8 : 0;
  named->for_each_in_range(
      std::nullopt, std::nullopt, [&](const Bytes& key, const LRUCacheEntry& entry) {
        if (!entry.dirty) return;
        IQ_ASSERT(key.size() >= prefix, "cache key of {} bytes", key.size());
        const DecodedStoreKey decoded =
            decode_store_key(topology, Bytes(std::string(key.view().substr(prefix))));
        UnloggedWrite w;
        w.key = decoded.key;
        w.window_start_ms = decoded.window_start_ms;
        w.window_end_ms = decoded.window_end_ms;
        w.timestamp_ms = entry.context.timestamp;
        // The record context's offset is the input record's offset in its source topic.
        w.source_offset = SourceOffset(entry.context.offset);
        if (entry.value) {
          const Bytes raw = timestamped ? timestamped_bytes::raw_value(*entry.value) : *entry.value;
          if (timestamped) {
            w.timestamp_ms = timestamped_bytes::timestamp(*entry.value);
          }
          w.value = Serde<int64_t>::deserialize(raw);
        }
        out.push_back(std::move(w));
      });
  return out;
}

// The store's runs of own writes over its life: each from the first own write after the store
// last applied something (a given record, or the .checkpoint offset it loaded) to the latest own
// write before it applies again (trace/query_record.h's OwnWriteRun).
std::vector<OwnWriteRun> own_write_runs(const StoreLife& life) {
  std::vector<OwnWriteRun> out;
  ChangelogOffset before = life.loaded_checkpoint.value_or(ChangelogOffset(-1));
  bool writing = false;
  for (const StoreLifeEvent& e : life.events) {
    if (e.kind == StoreLifeEvent::Kind::kGiven) {
      before = e.last;
      writing = false;
    } else if (e.kind == StoreLifeEvent::Kind::kWrote) {
      if (!writing) out.push_back({before, e.last, e.first});
      out.back().last_offset = e.last;
      // Paired with ProcessorStateManager's assertion that offsets grow.
      IQ_ASSERT(out.back().after_offset < out.back().first_offset, "life {}: run ({}, {}]", life.id,
                out.back().after_offset, out.back().last_offset);
      writing = true;
    }
  }
  return out;
}

}  // namespace

DecodedStoreKey decode_store_key(const TopologyConfig& topology, const Bytes& store_key) {
  DecodedStoreKey out;
  if (topology.windowed()) {
    out.key = Serde<int32_t>::deserialize(window_key_schema::extract_store_key_bytes(store_key));
    out.window_start_ms = window_key_schema::extract_store_timestamp(store_key);
    out.window_end_ms =
        window_key_schema::window_end(*out.window_start_ms, topology.window_size_ms);
    out.window_seqnum = window_key_schema::extract_store_sequence_number(store_key);
  } else if (topology.session()) {
    const Windowed<Bytes> session = session_key_schema::from(store_key);
    out.key = Serde<int32_t>::deserialize(session.key);
    out.window_start_ms = session.start_ms;
    out.window_end_ms = session.end_ms;
  } else {
    out.key = Serde<int32_t>::deserialize(store_key);
  }
  return out;
}

namespace {

void fill_task(Cluster& cluster, const std::string& store, Task& task, ThreadState thread_state,
               ReplicaSnapshot& r) {
  r.role = task.is_active() ? ReplicaRole::kActive : ReplicaRole::kStandby;
  r.task_state = recorded(task.state());
  r.thread_state = recorded(thread_state);
  r.committed_position.reset();
  r.committed_changelog_offset.reset();
  r.observed_stream_time_ms.reset();
  if (StateStore* s = task.store(store)) {
    r.store_position = s->position();
    r.committed_position = s->committed_position();
    r.observed_stream_time_ms = s->observed_stream_time();
  }
  if (r.committed_position) {
    r.committed_changelog_offset = task.state_manager().committed_changelog_offset(store);
  }
  if (auto o = task.state_manager().changelog_offset(store)) r.changelog_offset = *o;
  // What the store's recorded life says (sim/cluster/store_life_recorder.h): the .checkpoint it
  // loaded, whether it opened over kept data, its own writes.
  r.store_life = task.state_manager().store_life(store);
  r.restored_from.reset();
  r.own_write_runs.clear();
  r.versioned_store_reopened = false;
  if (r.store_life != 0) {
    const StoreLife& life = cluster.store_lives().lives().at(r.store_life - 1);
    r.restored_from = life.loaded_checkpoint;
    r.own_write_runs = own_write_runs(life);
    r.versioned_store_reopened = task.topology_config().versioned() && life.over_kept_data;
  }
  r.unlogged_writes = unlogged_writes(task, store);
  for (const auto& tp : task.changelog_partitions()) {
    auto end = cluster.broker().broker().end_offset(tp);
    if (!end) continue;
    // The broker answers a long; tp is one of the task's changelog partitions.
    r.changelog_end_offset = ChangelogOffset(*end);
    r.lag = r.changelog_offset ? *r.changelog_end_offset - (*r.changelog_offset + 1) : *end;
  }
}

ReplicaSnapshot replica_of(Cluster& cluster, Instance& instance, const std::string& store,
                           int32_t partition) {
  ReplicaSnapshot r;
  r.partition = partition;
  r.instance = instance.name();
  r.running = instance.running();
  if (!r.running) {
    // A closed client (NOT_RUNNING) in a live application still answers query(); its state is
    // what FailureReasonCorrect judges that answer by. It holds no task.
    if (const KafkaStreams* closed = instance.closed_streams()) {
      r.client_state = recorded(closed->state());
    }
    return r;
  }
  const KafkaStreams& streams = instance.streams();
  r.client_state = recorded(streams.state());
  // Two threads of one instance may hold the same task for a moment (a standby not yet closed on
  // one thread while the active is created on another: the assignment reaches threads one by
  // one). The snapshot shows the task a query reaches first, as KafkaStreams::query walks threads
  // and tasks in order and answers from the first task with the store registered.
  bool registered = false;
  for (const auto& thread : streams.threads()) {
    for (Task* task : thread->task_manager().all_tasks()) {
      if (task->id().partition != partition || !task_holds_store(*task, store)) continue;
      const bool has_store = task->store(store) != nullptr;
      if (r.role != ReplicaRole::kNone && (registered || !has_store)) continue;
      fill_task(cluster, store, *task, thread->state(), r);
      registered = has_store;
    }
  }
  return r;
}

// The warmups of the newest assignment any running instance's thread computed as the leader. A
// leader that crashed since took its decision with it; the next newest one then stands in, which
// can only be older and is replaced at the next rebalance.
const StreamThread::LeaderWarmups* newest_leader_warmups(Cluster& cluster) {
  const StreamThread::LeaderWarmups* newest = nullptr;
  for (int32_t n = 1; n <= cluster.instance_count(); ++n) {
    Instance& instance = cluster.instance(n);
    if (!instance.running()) continue;
    for (const auto& thread : instance.streams().threads()) {
      const auto& w = thread->last_leader_warmups();
      if (w && (newest == nullptr || w->at_ms > newest->at_ms)) newest = &*w;
    }
  }
  return newest;
}

bool is_warmup(const StreamThread::LeaderWarmups& leader, Instance& instance, int32_t partition) {
  auto pid = ProcessId::from_string(instance.streams().process_id());
  if (!pid) return false;
  auto it = leader.warmups.find(*pid);
  // One subtopology: task 0_p holds partition p's store.
  return it != leader.warmups.end() && it->second.count(TaskId{0, partition}) > 0;
}

}  // namespace

ReplicaSnapshot::StreamsState recorded(KafkaStreamsState s) {
  using R = ReplicaSnapshot::StreamsState;
  switch (s) {
    case KafkaStreamsState::CREATED:
      return R::CREATED;
    case KafkaStreamsState::REBALANCING:
      return R::REBALANCING;
    case KafkaStreamsState::RUNNING:
      return R::RUNNING;
    case KafkaStreamsState::PENDING_SHUTDOWN:
      return R::PENDING_SHUTDOWN;
    case KafkaStreamsState::NOT_RUNNING:
      return R::NOT_RUNNING;
    case KafkaStreamsState::PENDING_ERROR:
      return R::PENDING_ERROR;
    case KafkaStreamsState::ERROR:
      return R::ERROR;
  }
  IQ_ASSERT(false, "unknown client state {}", static_cast<int>(s));
  return R::ERROR;
}

ReplicaSnapshot::ThreadState recorded(ThreadState s) {
  using R = ReplicaSnapshot::ThreadState;
  switch (s) {
    case ThreadState::CREATED:
      return R::CREATED;
    case ThreadState::STARTING:
      return R::STARTING;
    case ThreadState::PARTITIONS_REVOKED:
      return R::PARTITIONS_REVOKED;
    case ThreadState::PARTITIONS_ASSIGNED:
      return R::PARTITIONS_ASSIGNED;
    case ThreadState::RUNNING:
      return R::RUNNING;
    case ThreadState::PENDING_SHUTDOWN:
      return R::PENDING_SHUTDOWN;
    case ThreadState::DEAD:
      return R::DEAD;
  }
  IQ_ASSERT(false, "unknown thread state {}", static_cast<int>(s));
  return R::DEAD;
}

ReplicaSnapshot::TaskState recorded(TaskState s) {
  using R = ReplicaSnapshot::TaskState;
  switch (s) {
    case TaskState::CREATED:
      return R::CREATED;
    case TaskState::RESTORING:
      return R::RESTORING;
    case TaskState::RUNNING:
      return R::RUNNING;
    case TaskState::SUSPENDED:
      return R::SUSPENDED;
    case TaskState::CLOSED:
      return R::CLOSED;
  }
  IQ_ASSERT(false, "unknown task state {}", static_cast<int>(s));
  return R::CLOSED;
}

PlacementSnapshot take_placement(Cluster& cluster, const std::string& store,
                                 const std::set<int32_t>& partitions) {
  PlacementSnapshot snapshot;
  snapshot.at_ms = cluster.loop().now();
  const StreamThread::LeaderWarmups* leader = newest_leader_warmups(cluster);
  for (int32_t partition : partitions) {
    for (int32_t n = 1; n <= cluster.instance_count(); ++n) {
      ReplicaSnapshot r = replica_of(cluster, cluster.instance(n), store, partition);
      r.warmup = r.role == ReplicaRole::kStandby && leader != nullptr &&
                 is_warmup(*leader, cluster.instance(n), partition);
      snapshot.replicas.push_back(std::move(r));
    }
  }
  return snapshot;
}

}  // namespace iq::sim
