#include "processor/store_changelog_reader.h"
#include "base/probe.h"

#include <algorithm>

namespace iq {

Status StoreChangelogReader::register_task(Task& task, int64_t now_ms) {
  IQ_ASSERT(!is_registered(task.id()), "task {} registered twice", task.id().to_string());
  for (const auto& tp : task.changelog_partitions()) {
    std::string store_name;
    for (StateStore* s : task.state_manager().stores()) {
      if (task.state_manager().changelog_partition(s->name()) == tp) store_name = s->name();
    }
    IQ_ASSERT(!store_name.empty());
    ChangelogMetadata m;
    m.task = &task;
    m.store_name = std::move(store_name);
    changelogs_.emplace(tp, std::move(m));
  }
  return initialize_changelogs(now_ms);
}

size_t StoreChangelogReader::registered_count() const {
  return static_cast<size_t>(std::count_if(changelogs_.begin(), changelogs_.end(),
                                           [](const auto& c) { return !c.second.initialized; }));
}

std::vector<TopicPartition> StoreChangelogReader::initialized_partitions() const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, m] : changelogs_) {
    if (m.initialized) out.push_back(tp);
  }
  return out;  // ascending: the map's order
}

Status StoreChangelogReader::initialize_changelogs(int64_t now_ms) {
  if (registered_count() == 0) return ok_status();
  auto s = find_end_offsets(now_ms);
  if (!s) return s;
  std::vector<TopicPartition> starting;
  for (auto& [tp, m] : changelogs_) {
    // A standby needs no end offset; an active waits for its own.
    if (!m.initialized && (!m.task->is_active() || m.restore_end_offset)) starting.push_back(tp);
  }
  if (!starting.empty()) {
    for (const auto& tp : starting) changelogs_.at(tp).initialized = true;
    consumer_.assign(initialized_partitions());
    for (const auto& tp : starting) start_restoring(tp, changelogs_.at(tp));
  }
  // A registered active restores (ACTIVE_RESTORING) even while its end offset is unknown:
  // Kafka's updater enforces that mode when the task is added.
  update_pausing();
  return ok_status();
}

// endOffsetForChangelogs: one READ_UNCOMMITTED ListOffsets for every registered active changelog.
// A timeout starts or checks the task timeouts of the tasks asked for (and fails the thread only
// past task.timeout.ms); a success clears them.
Status StoreChangelogReader::find_end_offsets(int64_t now_ms) {
  std::vector<TopicPartition> partitions;
  std::vector<Task*> tasks;
  for (const auto& [tp, m] : changelogs_) {
    if (m.initialized || !m.task->is_active()) continue;
    partitions.push_back(tp);
    if (std::find(tasks.begin(), tasks.end(), m.task) == tasks.end()) tasks.push_back(m.task);
  }
  if (partitions.empty()) return ok_status();
  auto ends = admin_.end_offsets(partitions);
  if (!ends && ends.error().kind == StreamsError::Kind::Timeout) {
    // No probe: seeds 1..500 of the default template never reach this (a task registers in the
    // instant its assignment, or its revival, reached it); RuntimeTest's timeout tests do.
    for (Task* t : tasks) {
      auto thrown = t->maybe_init_task_timeout_or_throw(now_ms, task_timeout_ms_, ends.error());
      if (!thrown) return thrown;
    }
    return ok_status();
  }
  if (!ends) return base::unexpected(ends.error());
  for (Task* t : tasks) t->clear_task_timeout();
  for (const auto& tp : partitions) {
    auto it = ends->find(tp);
    IQ_ASSERT(it != ends->end(), "no end offset for {}-{}", tp.first, tp.second);
    changelogs_.at(tp).restore_end_offset = ChangelogOffset(it->second);  // Admin speaks longs
  }
  return ok_status();
}

// Start after the checkpointed offset, or from the beginning (ALOS, or a non-persistent store).
void StoreChangelogReader::start_restoring(const TopicPartition& tp, ChangelogMetadata& m) {
  const auto offset = m.task->state_manager().changelog_offset(m.store_name);
  if (offset) {
    if (m.restore_end_offset) {
      IQ_PROBE("restore.from_checkpoint", "an active restore started after a checkpointed offset");
    } else {
      IQ_PROBE("standby.from_checkpoint", "a standby started after a checkpointed offset");
    }
    consumer_.seek(tp, (*offset + 1).value());
  } else {
    consumer_.seek_to_beginning(tp);
  }
  // Paired with the checkpoint: restoration starts right after the checkpointed offset (or at
  // the log start), and an active's fixed end is not before its start.
  const auto position = consumer_.position(tp);
  IQ_ASSERT(position.has_value(), "{}-{}: no position after seek", tp.first, tp.second);
  const ChangelogOffset start(*position);
  IQ_ASSERT(!offset || start == *offset + 1, "{}-{}: restore starts at {}, checkpoint {}", tp.first,
            tp.second, start, *offset);
  m.restore_start_offset = start;
  IQ_ASSERT(!m.restore_end_offset || *m.restore_end_offset >= start,
            "{}-{}: restore end {} before start {}", tp.first, tp.second, *m.restore_end_offset,
            start);
}

void StoreChangelogReader::unregister_task(const TaskId& id) {
  for (auto it = changelogs_.begin(); it != changelogs_.end();) {
    if (it->second.task->id() == id) {
      it = changelogs_.erase(it);
    } else {
      ++it;
    }
  }
  consumer_.assign(initialized_partitions());
  update_pausing();
}

bool StoreChangelogReader::is_registered(const TaskId& id) const {
  for (const auto& [tp, m] : changelogs_) {
    if (m.task->id() == id) return true;
  }
  return false;
}

bool StoreChangelogReader::completed(const TopicPartition& tp, const ChangelogMetadata& m) const {
  if (!m.restore_end_offset) return false;  // standby changelogs never complete
  if (*m.restore_end_offset == ChangelogOffset(0)) return true;
  const auto position = consumer_.position(tp);
  return position && ChangelogOffset(*position) >= *m.restore_end_offset && m.buffered.empty();
}

StoreChangelogReader::Mode StoreChangelogReader::mode() const {
  for (const auto& [tp, m] : changelogs_) {
    if (m.task->is_active() && !completed(tp, m)) return Mode::ACTIVE_RESTORING;
  }
  return Mode::STANDBY_UPDATING;
}

void StoreChangelogReader::update_pausing() {
  std::vector<TopicPartition> standby;
  for (const auto& [tp, m] : changelogs_) {
    if (!m.task->is_active()) standby.push_back(tp);
  }
  if (mode() == Mode::ACTIVE_RESTORING) {
    consumer_.pause(standby);
  } else {
    consumer_.resume(standby);
  }
}

base::Expected<size_t, StreamsError> StoreChangelogReader::restore(int64_t now_ms) {
  if (changelogs_.empty()) return size_t{0};
  auto initialized = initialize_changelogs(now_ms);
  if (!initialized) return base::unexpected(initialized.error());
  for (auto& r : consumer_.poll(max_poll_records_)) {
    auto it = changelogs_.find({r.topic, r.partition});
    if (it == changelogs_.end()) continue;  // unassigned while in flight
    it->second.buffered.push_back(std::move(r));
  }
  size_t applied = 0;
  for (auto& [tp, m] : changelogs_) {
    if (m.buffered.empty()) continue;
    // An active applies only records below its end offset; later ones it processes itself.
    auto end = m.buffered.end();
    if (m.restore_end_offset) {
      end = std::find_if(m.buffered.begin(), m.buffered.end(), [&](const ConsumerRecord& r) {
        return ChangelogOffset(r.offset) >= *m.restore_end_offset;
      });
    }
    std::vector<ConsumerRecord> batch(std::make_move_iterator(m.buffered.begin()),
                                      std::make_move_iterator(end));
    m.buffered.erase(m.buffered.begin(), end);
    if (m.restore_end_offset) m.buffered.clear();  // nothing past the end is ever applied
    if (batch.empty()) continue;
    IQ_ASSERT(
        m.restore_start_offset && ChangelogOffset(batch.front().offset) >= *m.restore_start_offset,
        "{}-{}: record {} before the restore start", tp.first, tp.second, batch.front().offset);
    auto s = m.task->state_manager().restore(m.store_name, batch);
    if (!s) return base::unexpected(s.error());
    applied += batch.size();
    m.restored += static_cast<int64_t>(batch.size());
    // Offsets are distinct and below the end, so an active never restores more than end - start
    // records (fewer where the log has gaps).
    IQ_ASSERT(
        !m.restore_end_offset || m.restored <= *m.restore_end_offset - *m.restore_start_offset,
        "{}-{}: {} records restored in [{}, {})", tp.first, tp.second, m.restored,
        *m.restore_start_offset, *m.restore_end_offset);
  }
  update_pausing();
  return applied;
}

std::vector<TaskId> StoreChangelogReader::restored_active_tasks() const {
  std::map<TaskId, bool> done;
  for (const auto& [tp, m] : changelogs_) {
    if (!m.task->is_active()) continue;
    auto [it, inserted] = done.emplace(m.task->id(), true);
    it->second = it->second && completed(tp, m);
  }
  std::vector<TaskId> out;
  for (const auto& [id, ok] : done) {
    if (ok) out.push_back(id);
  }
  return out;
}

}  // namespace iq
