#include "processor/state_directory.h"
#include "base/probe.h"

#include <algorithm>
#include <charconv>

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

bool StateDirectory::directory_for_task_is_empty(const TaskId& id) {
  for (const std::string& name : fs_.list_directory(task_dir(id))) {
    if (name != ".checkpoint") return false;
  }
  return true;
}

bool StateDirectory::lock(const TaskId& id, const std::string& owner) {
  IQ_ASSERT(!owner.empty(), "task {} locked without an owner", id.to_string());
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

base::Expected<std::vector<TaskId>, StreamsError> StateDirectory::clean_removed_tasks(
    int64_t now_ms) {
  std::vector<TaskId> removed;
  for (auto it = unowned_since_ms_.begin(); it != unowned_since_ms_.end();) {
    if (now_ms - it->second <= cleanup_delay_ms_ || lock_owners_.count(it->first)) {
      ++it;
      continue;
    }
    const OperationScope marker(Operation::kStateDirectoryCleaner);
    auto s = fs_.delete_recursively(task_dir(it->first));
    if (!s) return base::unexpected(s.error());
    IQ_PROBE("cleaner.deleted_task_dir", "the state-directory cleaner deleted a task directory");
    removed.push_back(it->first);
    it = unowned_since_ms_.erase(it);
  }
  return removed;
}

}  // namespace iq
