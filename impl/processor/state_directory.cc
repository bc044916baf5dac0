#include "processor/state_directory.h"
#include "base/probe.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "base/assert.h"
#include "io/operation_marker.h"

namespace iq {
namespace {

std::optional<TaskId> parse_task_id(const std::string& name) {
  const auto underscore = name.find('_');
  if (underscore == std::string::npos) return std::nullopt;
  TaskId id;
  const char* b = name.data();
  auto r1 = std::from_chars(b, b + underscore, id.subtopology);
  auto r2 = std::from_chars(b + underscore + 1, b + name.size(), id.partition);
  if (r1.ec != std::errc() || r1.ptr != b + underscore || r2.ec != std::errc() ||
      r2.ptr != b + name.size()) {
    return std::nullopt;
  }
  return id;
}

}  // namespace

std::vector<TaskId> StateDirectory::task_dirs_on_disk() {
  std::vector<TaskId> out;
  if (!fs_.exists(root_)) return out;
  for (const auto& name : fs_.list_directory(root_)) {
    if (auto id = parse_task_id(name)) out.push_back(*id);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status StateDirectory::get_or_create_directory_for_task(const TaskId& id) {
  if (!has_persistent_stores_) return ok_status();
  return fs_.create_directories(task_dir(id));
}

bool StateDirectory::directory_for_task_is_empty(const TaskId& id) {
  for (const std::string& name : fs_.list_directory(task_dir(id))) {
    if (name != ".checkpoint") return false;
  }
  return true;
}

bool StateDirectory::lock(const TaskId& id, const std::string& owner) {
  IQ_ASSERT(!owner.empty(), "task {} locked without an owner", id.to_string());
  if (!has_persistent_stores_) return true;  // nothing on disk to guard
  auto [it, inserted] = lock_owners_.emplace(id, owner);
  return inserted || it->second == owner;  // re-entrant for the owner, as Kafka's
}

void StateDirectory::unlock(const TaskId& id, const std::string& owner) {
  auto it = lock_owners_.find(id);
  if (it != lock_owners_.end() && it->second == owner) lock_owners_.erase(it);
}

std::optional<std::string> StateDirectory::lock_owner(const TaskId& id) const {
  auto it = lock_owners_.find(id);
  if (it == lock_owners_.end()) return std::nullopt;
  return it->second;
}

base::Expected<ChangelogOffsets, StreamsError> StateDirectory::checkpointed_offsets(
    const TaskId& id) {
  OffsetCheckpoint checkpoint(fs_, task_dir(id) + "/.checkpoint");
  return checkpoint.read_changelog_offsets();
}

void StateDirectory::update_task_offsets(const TaskId& id,
                                         const std::map<TopicPartition, int64_t>& next_offsets) {
  if (next_offsets.empty()) return;
  task_offset_sums_.insert_or_assign(id, sum_of_changelog_offsets(id, next_offsets));
}

std::map<TaskId, int64_t> StateDirectory::task_offset_sums(const std::set<TaskId>& tasks) const {
  std::map<TaskId, int64_t> out;
  for (const auto& [id, sum] : task_offset_sums_) {
    if (tasks.count(id) != 0) out.emplace(id, sum);
  }
  return out;
}

int64_t StateDirectory::sum_of_changelog_offsets(const TaskId& id,
                                                 const std::map<TopicPartition, int64_t>& offsets) {
  int64_t sum = 0;
  for (const auto& [tp, offset] : offsets) {
    if (offset == OffsetCheckpoint::kOffsetUnknown) continue;
    IQ_ASSERT(offset >= 0, "task {}: sentinel offset {} for {}-{}", id.to_string(), offset,
              tp.first, tp.second);
    if (offset > std::numeric_limits<int64_t>::max() - sum) {
      return std::numeric_limits<int64_t>::max();  // Kafka pins an overflowed sum
    }
    sum += offset;
  }
  return sum;
}

std::vector<TaskId> StateDirectory::clean_removed_tasks(int64_t now_ms) {
  // Kafka's cleaner is a thread of its own; it holds each lock only while it looks at and deletes
  // that one directory.
  const std::string cleaner = kCleanupThread;
  std::vector<TaskId> removed;
  for (const TaskId& id : task_dirs_on_disk()) {  // bounded by the directories on disk
    if (lock_owners_.count(id) != 0 || !lock(id, cleaner)) continue;
    // File.lastModified answers 0 when it cannot read the time: such a directory is old.
    const int64_t last_modified = fs_.last_modified_ms(task_dir(id)).value_or(0);
    if (now_ms - cleanup_delay_ms_ > last_modified) {
      const OperationScope marker(Operation::kStateDirectoryCleaner);
      remove_task_offsets(id);  // cleanRemovedTasks, before the delete (pin delta 14)
      if (fs_.delete_recursively(task_dir(id))) {
        IQ_PROBE("cleaner.deleted_task_dir",
                 "the state-directory cleaner deleted a task directory");
        if (opened_in_this_life_.count(id) == 0) {
          IQ_PROBE("cleaner.deleted_leftover_task_dir",
                   "the cleaner deleted a task directory that no task of this process life had "
                   "opened: a previous life's, kept on disk across a restart (old pin; at the new "
                   "pin the startup stores open every non-empty one)");
        }
        removed.push_back(id);
      }
    }
    unlock(id, cleaner);
  }
  return removed;
}

void StateDirectory::refresh_last_modified(const TaskId& id, int64_t now_ms) {
  if (!fs_.exists(task_dir(id))) return;
  (void)fs_.set_last_modified_ms(task_dir(id), now_ms);  // Kafka only logs a failure
}

}  // namespace iq
