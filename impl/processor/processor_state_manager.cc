#include "processor/processor_state_manager.h"

#include <fmt/format.h>

#include "base/probe.h"
#include "io/operation_marker.h"
#include "iq/changelog_topic.h"
#include "iq/serdes.h"
#include "processor/state_directory.h"

namespace iq {

ProcessorStateManager::ProcessorStateManager(std::string application_id, TaskId task,
                                             std::string task_dir, FileSystem& fs,
                                             std::set<std::string> logged_stores, bool eos_enabled)
    : application_id_(std::move(application_id)),
      task_(task),
      task_dir_(std::move(task_dir)),
      logged_stores_(std::move(logged_stores)),
      checkpoint_file_(fs, task_dir_ + "/.checkpoint"),
      eos_enabled_(eos_enabled) {}

void ProcessorStateManager::register_store(StateStore& store, RestoreCallback restore,
                                           CommitCallback commit) {
  IQ_ASSERT(this->store(store.name()) == nullptr, "store {} registered twice", store.name());
  std::optional<TopicPartition> changelog;
  if (logged_stores_.count(store.name()) != 0) {
    changelog =
        TopicPartition{store_changelog_topic(application_id_, store.name()), task_.partition};
  }
  std::optional<ChangelogOffset> offset;
  if (changelog) {
    auto it = loaded_offsets_.find(*changelog);
    if (it != loaded_offsets_.end() &&
        it->second != ChangelogOffset(OffsetCheckpoint::kOffsetUnknown))
      offset = it->second;
  }
  stores_.push_back({&store, std::move(restore), std::move(commit), changelog, offset, offset, 0});
}

ProcessorStateManager::StoreMetadata* ProcessorStateManager::metadata(const std::string& name) {
  for (auto& m : stores_) {
    if (m.store->name() == name) return &m;
  }
  return nullptr;
}

StateStore* ProcessorStateManager::store(const std::string& name) const {
  for (const auto& m : stores_) {
    if (m.store->name() == name) return m.store;
  }
  return nullptr;
}

std::vector<StateStore*> ProcessorStateManager::stores() const {
  std::vector<StateStore*> out;
  for (const auto& m : stores_) out.push_back(m.store);
  return out;
}

std::optional<TopicPartition> ProcessorStateManager::changelog_partition(
    const std::string& store_name) const {
  for (const auto& m : stores_) {
    if (m.store->name() == store_name) return m.changelog;
  }
  return std::nullopt;
}

Status ProcessorStateManager::initialize_store_offsets_from_checkpoint(bool store_dir_was_empty) {
  auto offsets = checkpoint_file_.read_changelog_offsets();
  if (!offsets) return base::unexpected(offsets.error());
  loaded_offsets_ = *offsets;
  // Paired with checkpoint(): it writes each store's applied offset or the unknown sentinel.
  for (const auto& [tp, offset] : loaded_offsets_) {
    IQ_ASSERT(
        offset >= ChangelogOffset(0) || offset == ChangelogOffset(OffsetCheckpoint::kOffsetUnknown),
        "{}: {}-{} at {}", checkpoint_file_.path(), tp.first, tp.second, offset);
  }
  for (auto& m : stores_) {
    if (!m.changelog) continue;
    auto it = loaded_offsets_.find(*m.changelog);
    m.entry_loaded = it != loaded_offsets_.end();
    if (m.entry_loaded && it->second != ChangelogOffset(OffsetCheckpoint::kOffsetUnknown)) {
      m.offset = it->second;
      m.committed = it->second;
    }
  }
  report_opened();
  for (auto& m : stores_) {
    if (!m.changelog) continue;
    auto it = loaded_offsets_.find(*m.changelog);
    // Kafka's EOS rule: no checkpointed offset for a persistent store whose directory is not
    // empty means the previous process did not close cleanly. (Kafka tests only whether the
    // file has the partition; a checkpointed unknown offset, -1 here, counts as present.)
    if (eos_enabled_ && m.store->persistent() && it == loaded_offsets_.end() &&
        !store_dir_was_empty) {
      IQ_PROBE("eos.task_corrupted_no_checkpoint",
               "a task's stores were not empty but had no .checkpoint: TaskCorrupted");
      return base::unexpected(StreamsError{
          StreamsError::Kind::TaskCorrupted,
          fmt::format("task {}: store {} found no checkpoint offset while the task directory {} "
                      "is not empty; under EOS its state may hold uncommitted data",
                      task_.to_string(), m.store->name(), task_dir_)});
    }
  }
  update_offsets_cache();  // a store on the old path at the new pin (pin delta 14)
  // Under EOS there is never a .checkpoint while the task processes: delete it once loaded.
  return delete_checkpoint_if_eos();
}

void ProcessorStateManager::update_offsets_cache() {
  if (offsets_cache_ == nullptr) return;
  // persistentChangelogOffsets (588e6dbfad): in-memory stores stay out of the cache, since they
  // keep nothing across a restart; TaskManager.taskOffsetSums fills them in from live tasks.
  std::map<TopicPartition, int64_t> next;
  for (const auto& m : stores_) {
    if (m.changelog && m.store->persistent())
      next.emplace(*m.changelog, m.offset ? m.offset->value() + 1 : 0);
  }
  offsets_cache_->update_task_offsets(task_, next);
}

bool ProcessorStateManager::stores_manage_offsets() const {
  for (const auto& m : stores_) {
    if (m.store->persistent() && !m.store->manages_offsets()) return false;
  }
  return true;
}

Status ProcessorStateManager::initialize_store_offsets(bool store_dir_was_empty) {
  std::optional<std::string> corrupted;  // the first store that found no offset under EOS
  for (auto& m : stores_) {
    if (!m.changelog || !m.store->persistent() || m.offset) continue;
    auto committed = m.store->committed_offset(*m.changelog);
    if (!committed) return base::unexpected(committed.error());
    if (*committed) {
      m.entry_loaded = true;
      // changelogOffsetFromCommittedOffset: OFFSET_UNKNOWN reads back as no offset.
      if (**committed != ChangelogOffset(OffsetCheckpoint::kOffsetUnknown)) {
        m.offset = **committed;
        m.committed = m.offset;
      }
    } else if (eos_enabled_ && !store_dir_was_empty && !transactional_ && !corrupted) {
      // Pin delta 5: with transactional stores a missing offset is no sign of uncommitted data.
      corrupted = m.store->name();
    }
  }
  report_opened();
  if (!corrupted) {
    update_offsets_cache();
    return ok_status();
  }
  IQ_PROBE("kip1035.eos_no_committed_offset_task_corrupted",
           "under exactly_once_v2 a store of a non-empty task directory held no committed offset: "
           "TaskCorrupted (new pin)");
  return base::unexpected(StreamsError{
      StreamsError::Kind::TaskCorrupted,
      fmt::format("task {}: store {} did not find checkpoint offsets while stores are not empty; "
                  "under EOS its state may hold uncommitted data",
                  task_.to_string(), *corrupted)});
}

Status ProcessorStateManager::migrate_legacy_checkpoint() {
  if (!checkpoint_file_.exists()) return ok_status();
  const auto failed = [&](const StreamsError& cause) {
    return base::unexpected(
        StreamsError{StreamsError::Kind::ProcessorState,
                     fmt::format("Error migrating checkpoint file for task '{}' ({})",
                                 task_.to_string(), cause.to_string())});
  };
  auto offsets = checkpoint_file_.read_changelog_offsets();
  if (!offsets) return failed(offsets.error());
  for (const auto& [tp, offset] : *offsets) {
    if (offset == ChangelogOffset(OffsetCheckpoint::kOffsetUnknown)) continue;
    StoreMetadata* m = nullptr;
    for (auto& candidate : stores_) {
      if (candidate.changelog == tp) m = &candidate;
    }
    if (m == nullptr) continue;  // a partition of no registered store: dropped with the file
    // Kafka commits even into a store that does not manage offsets (it logs a warning); such a
    // store (in-memory) ignores the commit.
    if (auto s = m->store->commit({{tp, offset}}); !s) return failed(s.error());
  }
  IQ_PROBE("kip1035.checkpoint_migrated",
           "a task's old .checkpoint was migrated into its stores and deleted (new pin, delta 13; "
           "not in the default campaign: only a run that upgrades from the old pin over its disk "
           "reaches it)");
  if (auto s = checkpoint_file_.remove(); !s) return failed(s.error());
  return ok_status();
}

Status ProcessorStateManager::commit() {
  std::optional<StreamsError> first;
  for (auto& m : stores_) {
    ChangelogOffsets offsets;
    if (m.changelog && m.store->persistent()) {
      offsets.emplace(*m.changelog,
                      m.offset.value_or(ChangelogOffset(OffsetCheckpoint::kOffsetUnknown)));
    }
    const OperationScope marker(Operation::kWritePosition);
    Status s = m.store->commit(offsets);
    if (s && m.commit) s = m.commit();
    if (!s) {
      if (!first) first = s.error();  // Kafka keeps the first exception, tries every store
      continue;
    }
    m.committed = m.offset;
    if (m.changelog && m.store->persistent()) observer_->checkpoint(m.life, m.offset);
  }
  if (first) return base::unexpected(*first);
  return ok_status();
}

void ProcessorStateManager::report_opened() {
  const bool watched = observer_ != &no_store_life_observer();
  for (auto& m : stores_) {
    // A store opens once; a recycled task keeps its stores and their lives.
    if (m.life != 0) continue;
    StoreLifeOpening opening;
    opening.task = task_;
    opening.store = m.store->name();
    opening.active = active_;
    opening.persistent = m.store->persistent();
    // Only a watched store reads what it kept (the read changes nothing, but costs).
    if (watched && opening.persistent)
      opening.over_kept_data = m.store->kept_entries(&opening.kept);
    opening.loaded_checkpoint = m.changelog ? m.offset : std::nullopt;
    opening.checkpoint_entry_loaded = m.changelog && (m.entry_loaded || m.offset);
    opening.loaded_position = m.store->position();
    opening.eos_enabled = eos_enabled_;
    m.life = observer_->opened(opening);
  }
}

Status ProcessorStateManager::delete_checkpoint_if_eos() {
  if (!eos_enabled_) return ok_status();
  return checkpoint_file_.remove();
}

std::optional<ChangelogOffset> ProcessorStateManager::changelog_offset(
    const std::string& store_name) const {
  for (const auto& m : stores_) {
    if (m.store->name() == store_name) return m.offset;
  }
  return std::nullopt;
}

std::optional<ChangelogOffset> ProcessorStateManager::committed_changelog_offset(
    const std::string& store_name) const {
  for (const auto& m : stores_) {
    if (m.store->name() == store_name) return m.committed;
  }
  return std::nullopt;
}

void ProcessorStateManager::update_changelog_offset(const std::string& store_name,
                                                    ChangelogOffset offset) {
  StoreMetadata* m = metadata(store_name);
  IQ_ASSERT(m != nullptr && m->changelog.has_value(), "no changelog for store {}", store_name);
  IQ_ASSERT(!m->offset || offset > *m->offset, "changelog offset went from {} to {}", *m->offset,
            offset);
  IQ_ASSERT(offset >= ChangelogOffset(0), "store {}: changelog offset {}", store_name, offset);
  m->offset = offset;
  observer_->wrote(m->life, offset);
}

StoreLifeId ProcessorStateManager::store_life(const std::string& store_name) const {
  for (const auto& m : stores_) {
    if (m.store->name() == store_name) return m.life;
  }
  return 0;
}

Status ProcessorStateManager::restore(const std::string& store_name,
                                      const std::vector<ConsumerRecord>& records) {
  StoreMetadata* m = metadata(store_name);
  IQ_ASSERT(m != nullptr && m->restore != nullptr, "store {} cannot restore", store_name);
  if (records.empty()) return ok_status();
  std::vector<ConsumerRecord> converted;
  const std::vector<ConsumerRecord>* batch = &records;
  // StateManagerUtil.converterForStore: timestamped stores get the timestamp prepended, except
  // versioned ones, whose put takes it from the record.
  if (m->store->is_timestamped() && !m->store->is_versioned()) {
    converted = records;
    for (auto& r : converted) r.value = timestamped_bytes::make(r.timestamp, r.value);
    batch = &converted;
  }
  int64_t previous = m->offset ? m->offset->value() : -1;
  for (const auto& r : records) {
    // The changelog reader hands a store only records of its own changelog partition.
    IQ_ASSERT(m->changelog && r.topic == m->changelog->first && r.partition == m->changelog->second,
              "store {} restored from {}-{}", store_name, r.topic, r.partition);
    IQ_ASSERT(r.offset > previous, "restore of {} out of order: {} after {}", store_name, r.offset,
              previous);
    previous = r.offset;
  }
  auto s = m->restore(*batch);
  if (!s) return s;
  m->offset = ChangelogOffset(records.back().offset);
  m->committed = m->offset;  // restored data bypasses a transaction buffer (KIP-892)
  for (const auto& r : records) observer_->given(m->life, ChangelogOffset(r.offset));
  IQ_ASSERT(*m->offset >= ChangelogOffset(0), "store {}: restored to {}", store_name, *m->offset);
  update_offsets_cache();  // ProcessorStateManager.restore, after each batch (pin delta 14)
  return ok_status();
}

Status ProcessorStateManager::flush() {
  std::optional<StreamsError> first;
  for (auto& m : stores_) {
    auto s = m.store->flush();
    if (!s && !first) first = s.error();  // Kafka keeps the first exception, tries every store
  }
  if (first) return base::unexpected(*first);
  return ok_status();
}

Status ProcessorStateManager::flush_cache() {
  std::optional<StreamsError> first;
  for (auto& m : stores_) {
    observer_->cache_flush(m.life, /*begin=*/true);
    auto s = m.store->flush_cache();
    observer_->cache_flush(m.life, /*begin=*/false);
    if (!s && !first) first = s.error();  // as flush(): the first error, after every store
  }
  if (first) return base::unexpected(*first);
  return ok_status();
}

Status ProcessorStateManager::checkpoint() {
  ChangelogOffsets offsets;
  for (auto& m : stores_) {
    if (m.commit) {
      const OperationScope marker(Operation::kWritePosition);
      auto s = m.commit();  // <store>.position first: it is written before .checkpoint (quirk 12)
      if (!s) return s;
    }
    if (m.changelog && m.store->persistent()) {
      offsets.insert_or_assign(
          *m.changelog, m.offset.value_or(ChangelogOffset(OffsetCheckpoint::kOffsetUnknown)));
    }
  }
  // What goes into .checkpoint is exactly what each store applied (never ahead of it): its last
  // restored or written changelog offset, or the unknown sentinel when it has none yet.
  for (const auto& m : stores_) {
    if (!m.changelog || !m.store->persistent()) continue;
    const ChangelogOffset written = offsets.at(*m.changelog);
    IQ_ASSERT(m.offset ? written == *m.offset
                       : written == ChangelogOffset(OffsetCheckpoint::kOffsetUnknown),
              "store {}: checkpoint {}", m.store->name(), written);
  }
  const OperationScope marker(Operation::kWriteCheckpoint);
  auto s = checkpoint_file_.write_changelog_offsets(offsets);
  if (!s && s.error().kind == StreamsError::Kind::ProcessorState) {
    // Kafka logs an IOException writing (or deleting) .checkpoint and goes on (the task keeps
    // running and counts the checkpoint as taken); the file keeps its old content. A
    // <store>.position write error above is a ProcessorStateException
    // (StoreQueryUtils.checkpointPosition), and an invalid offset (IllegalStateException) is thrown
    // too.
    IQ_PROBE(
        "checkpoint.write_failed_swallowed",
        "writing .checkpoint failed with an I/O error, logged and swallowed (not in the "
        "default campaign: its storage errors are reads during a KeyQuery; "
        "ProcessorStateManagerTest.ACheckpointWriteErrorIsSwallowedAndAPositionWriteErrorIsNot "
        "reaches it)");
    return ok_status();
  }
  if (!s) return s;
  for (const auto& m : stores_) {
    if (m.changelog && m.store->persistent()) observer_->checkpoint(m.life, m.offset);
  }
  return ok_status();
}

void ProcessorStateManager::close(StoreCloseKind kind) {
  for (auto& m : stores_) {
    m.store->close();
    observer_->closed(m.life, kind);
  }
}

}  // namespace iq
