#include "processor/stream_thread.h"

#include <algorithm>
#include <utility>

#include "base/probe.h"
#include "io/operation_marker.h"

namespace iq {

StreamThread::StreamThread(std::string name, ClientContext& client, Consumer& main_consumer,
                           Consumer& restore_consumer, GroupMembership& membership,
                           TaskManager::EnvironmentFactory environment, StreamsProducer* producer)
    : name_(std::move(name)),
      client_(client),
      main_consumer_(main_consumer),
      membership_(membership) {
  IQ_ASSERT(client_.state_directory != nullptr && client_.admin != nullptr);
  reader_ = std::make_unique<StoreChangelogReader>(restore_consumer, *client_.admin,
                                                   client_.thread_config.max_poll_records);
  reader_->set_task_timeout_ms(client_.thread_config.task_timeout_ms);
  task_manager_ = std::make_unique<TaskManager>(
      client_.topology, *client_.state_directory, *reader_, main_consumer, membership,
      std::move(environment), name_, producer, client_.application_id);
  task_manager_->set_task_timeout_ms(client_.thread_config.task_timeout_ms);
  task_manager_->set_kafka_pin(client_.thread_config.kafka_pin);
}

StreamThread::~StreamThread() {
  task_manager_.reset();  // before the reader it references
}

void StreamThread::transition_to(ThreadState next) {
  IQ_ASSERT(is_valid_transition(state_, next), "thread {}: {} -> {}", name_, to_string(state_),
            to_string(next));
  state_ = next;
}

Status StreamThread::run_once(int64_t now_ms) {
  IQ_ASSERT(now_ms >= now_ms_, "time went back from {} to {}", now_ms_, now_ms);
  now_ms_ = now_ms;
  if (!last_updater_checkpoint_ms_) last_updater_checkpoint_ms_ = now_ms;
  if (state_ == ThreadState::PENDING_SHUTDOWN || state_ == ThreadState::DEAD ||
      state_ == ThreadState::CREATED) {
    return ok_status();
  }
  // A scheduled probing or follow-up rebalance waits for the current one to finish
  // (StreamThread.runLoop checks taskManager.rebalanceInProgress()).
  if (next_rebalance_ms_ && now_ms >= *next_rebalance_ms_) {
    if (task_manager_->rebalance_in_progress()) {
      IQ_PROBE("thread.scheduled_rebalance_waited",
               "a scheduled probing or follow-up rebalance fell due during another rebalance (not "
               "in the default campaign: its faults stop at 30 s, a probing rebalance falls due "
               "60 s after the assignment at the earliest, and a follow-up one on the loop after "
               "its rebalance completes; issue 29 asks for a draw that makes them coincide)");
    } else {
      if (*next_rebalance_ms_ > 0) {
        IQ_PROBE("thread.probing_rebalance_enforced",
                 "a probing rebalance the assignor scheduled fell due and was enforced");
      }
      next_rebalance_ms_.reset();
      membership_.enforce_rebalance();
    }
  }
  membership_.poll(*this);  // may revoke and assign, inside
  if (std::exchange(task_migrated_in_callback_, false)) membership_.enforce_rebalance();
  if (state_ == ThreadState::STARTING) return ok_status();  // no assignment yet
  auto s = restore_and_poll();
  if (s) s = process_and_commit(now_ms);
  if (task_manager_->take_enforce_rebalance()) {
    // StreamThread.runLoop: an active found corrupted under EOS triggers a rebalance.
    membership_.enforce_rebalance();
  }
  if (!s) return handle_task_exception(s.error());
  return ok_status();
}

// StreamThread.runLoop's handlers: TaskMigratedException drops the actives and rejoins;
// TaskCorruptedException (exactly_once_v2) wipes and revives the tasks of the open transaction,
// and rejoins when an active was among them. Anything else is a thread failure.
Status StreamThread::handle_task_exception(const StreamsError& e) {
  if (e.kind == StreamsError::Kind::TaskMigrated) {
    auto s = on_partitions_lost();
    membership_.enforce_rebalance();
    return s;
  }
  if (e.kind == StreamsError::Kind::TaskCorrupted && task_manager_->eos_enabled()) {
    auto active_corrupted = task_manager_->handle_corruption(now_ms_);
    if (!active_corrupted) return base::unexpected(active_corrupted.error());
    if (*active_corrupted) membership_.enforce_rebalance();
    return ok_status();
  }
  return base::unexpected(e);
}

Status StreamThread::restore_and_poll() {
  {
    const OperationScope marker(Operation::kRestore);
    auto restored = reader_->restore(now_ms_);
    if (!restored) return base::unexpected(restored.error());
    auto completed = task_manager_->try_complete_restoration(now_ms_);
    if (!completed) return base::unexpected(completed.error());
    // DefaultStateUpdater.maybeCheckpointTasks, on the updater's own commit.interval.ms clock
    // (started with the thread, strictly more than the interval, and not skipped during a
    // rebalance: the updater does not know about rebalances).
    if (interval_elapsed(now_ms_, *last_updater_checkpoint_ms_,
                         client_.thread_config.commit_interval_ms)) {
      auto s = task_manager_->checkpoint_updating_tasks();
      if (!s) return s;
      last_updater_checkpoint_ms_ = now_ms_;
    }
  }
  // allRunning: a task still waiting for another thread's lock keeps the thread (and so the
  // client) from RUNNING.
  if (state_ == ThreadState::PARTITIONS_ASSIGNED && task_manager_->all_tasks_running()) {
    transition_to(ThreadState::RUNNING);
  }
  // The state updater lets RUNNING tasks process while others restore.
  task_manager_->add_records(main_consumer_.poll(client_.thread_config.max_poll_records));
  return ok_status();
}

// StreamThread.runOnceWithoutProcessingThreads after the poll: rounds of {process numIterations
// records per task; punctuate (iqsim's topologies have no punctuators); maybeCommit} until a round
// processes nothing. A commit in a round halves numIterations, a round without one adds one.
// Kafka also ends the rounds once half of max.poll.interval.ms has passed since the poll; a pass
// takes no virtual time here, so that never happens. The rounds end: each processes at least one
// of the records the poll buffered, and nothing adds records until the next pass.
Status StreamThread::process_and_commit(int64_t now_ms) {
  while (true) {
    auto processed = task_manager_->process(num_iterations_);
    if (!processed) return base::unexpected(processed.error());
    auto committed = maybe_commit(now_ms);
    if (!committed) return base::unexpected(committed.error());
    if (*processed == 0) return ok_status();
    if (*committed) {
      num_iterations_ = num_iterations_ > 1 ? num_iterations_ / 2 : num_iterations_;
    } else {
      ++num_iterations_;
    }
  }
}

// StreamThread.maybeCommit: whether it committed. During a rebalance TaskManager.commit returns
// -1 without committing (or flushing) anything, and lastCommitMs stays, so the commit runs as soon
// as it completes. Its test is strict (now - lastCommitMs > commit.interval.ms).
// Pin delta 21: shouldCommitDueToUncommittedBytes, asked only when the interval has not elapsed.
base::Expected<bool, StreamsError> StreamThread::maybe_commit(int64_t now_ms) {
  const bool elapsed =
      interval_elapsed(now_ms, last_commit_ms_, client_.thread_config.commit_interval_ms);
  const int64_t limit = client_.thread_config.max_uncommitted_bytes;
  const bool early = !elapsed && limit > 0 && task_manager_->total_uncommitted_bytes() > limit;
  if (!(elapsed || early) || task_manager_->rebalance_in_progress()) return false;
  if (early) {
    IQ_PROBE("kip892.early_commit_uncommitted_bytes",
             "a thread committed before commit.interval.ms because its transaction buffers held "
             "more than statestore.uncommitted.max.bytes per thread (new pin)");
  }
  auto s = task_manager_->commit_all(now_ms);
  if (!s) return base::unexpected(s.error());
  last_commit_ms_ = now_ms;
  return true;
}

Status StreamThread::shutdown() {
  if (state_ == ThreadState::DEAD) return ok_status();
  transition_to(ThreadState::PENDING_SHUTDOWN);
  auto s = task_manager_->commit_all(now_ms_);
  if (!s) return s;
  s = task_manager_->handle_revocation(task_manager_->active_task_ids(), now_ms_);
  if (!s) return s;
  s = task_manager_->handle_assignment({}, {}, now_ms_);
  // TaskManager.shutdown: the directories still locked from a rebalance start go too.
  task_manager_->release_locked_unassigned_task_directories();
  transition_to(ThreadState::DEAD);
  return s;
}

Status StreamThread::on_partitions_lost() {
  if (task_manager_->active_task_ids().empty()) return ok_status();
  if (state_ != ThreadState::PARTITIONS_REVOKED) transition_to(ThreadState::PARTITIONS_REVOKED);
  task_manager_->handle_lost_all(now_ms_);
  return ok_status();
}

Bytes StreamThread::subscription_user_data() {
  task_manager_->handle_rebalance_start();
  SubscriptionInfo info{client_.process_id, client_.endpoint, task_manager_->task_offset_sums(),
                        ++unique_field_};
  return info.encode();
}

std::vector<TopicPartition> StreamThread::owned_partitions() {
  return task_manager_->owned_input_partitions();
}

base::Expected<std::map<std::string, Bytes>, StreamsError> StreamThread::assign(
    const std::vector<JoinedMember>& members) {
  // A new assignor per assignment, as the leader's warmups are kept by the thread (below); the
  // last ones go in for the probe on a warmup that became active.
  StreamsPartitionAssignor assignor(
      client_.application_id, client_.topology, client_.assignment_configs, *client_.admin,
      last_leader_warmups_ ? last_leader_warmups_->warmups : Warmups{});
  auto result = assignor.assign(members, now_ms_);
  if (!result) return base::unexpected(result.error());
  last_leader_warmups_ = LeaderWarmups{now_ms_, std::move(result->warmups)};
  std::map<std::string, Bytes> out;
  for (const auto& [member, info] : result->assignments) out[member] = info.encode();
  return out;
}

// ConsumerCoordinator.onJoinComplete under COOPERATIVE: revoke what was lost (PARTITIONS_REVOKED),
// then the assignor's onAssignment (metadata, handleAssignment), then onPartitionsAssigned
// (PARTITIONS_ASSIGNED, always).
Status StreamThread::on_assignment(int32_t generation, const Bytes& bytes) {
  (void)generation;
  auto info = AssignmentInfo::decode(bytes);
  if (!info) return base::unexpected(info.error());
  const std::set<TaskId> new_actives(info->active_tasks.begin(), info->active_tasks.end());
  std::set<TaskId> revoked;
  for (const TaskId& t : task_manager_->active_task_ids()) {
    if (!new_actives.count(t)) revoked.insert(t);
  }
  if (!revoked.empty()) {
    transition_to(ThreadState::PARTITIONS_REVOKED);
    auto s = task_manager_->handle_revocation(revoked, now_ms_);
    if (!s && s.error().kind == StreamsError::Kind::TaskMigrated && task_manager_->eos_enabled()) {
      // The revocation's transaction commit found the producer fenced (a zombie that outlived
      // its transaction or its generation): Kafka's exception leaves the callback and reaches
      // runLoop's TaskMigrated handling; here the actives are dropped now, the assignment goes
      // on, and the thread rejoins after the poll.
      IQ_PROBE("eos.revocation_task_migrated",
               "a revocation's commit found the producer fenced (not in the default campaign: "
               "rare, a fenced zombie whose first commit is a revocation's; "
               "templates/exactly_once.toml reaches it)");
      task_manager_->handle_lost_all(now_ms_);
      task_migrated_in_callback_ = true;
      s = ok_status();
    }
    if (!s) return s;
  }
  client_.partitions_by_host = info->partitions_by_host;
  client_.standby_partitions_by_host = info->standby_partitions_by_host;
  client_.metadata_initialized = true;
  auto s = task_manager_->handle_assignment(new_actives, info->standby_tasks, now_ms_);
  if (!s) return s;
  if (info->next_rebalance_ms) next_rebalance_ms_ = *info->next_rebalance_ms;
  transition_to(ThreadState::PARTITIONS_ASSIGNED);
  task_manager_->handle_rebalance_complete();  // onPartitionsAssigned
  return ok_status();
}

}  // namespace iq
