#include "broker/group_coordinator.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "base/assert.h"

namespace iq::sim {

namespace {

// Bound on deadlines fired by one advance: each one removes a member or ends a phase, so a run
// that needs more than this is a bug, not a big group.
constexpr int kMaxDeadlinesPerAdvance = 1'000'000;

JoinGroupResponse join_error(Errors error, const std::string& member_id) {
  JoinGroupResponse r;
  r.error = error;
  r.member_id = member_id;
  return r;
}

SyncGroupResponse sync_error(Errors error) {
  SyncGroupResponse r;
  r.error = error;
  return r;
}

std::string join_ids(const std::vector<std::string>& ids) {
  return fmt::format("[{}]", fmt::join(ids, ", "));
}

void erase_id(std::vector<std::string>& ids, const std::string& id) {
  ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
}

}  // namespace

// ---- public API ---------------------------------------------------------------------------------

GroupCoordinator::GroupCoordinator(GroupCoordinatorConfig config) : config_(config) {
  IQ_ASSERT(config_.group_initial_rebalance_delay_ms >= 0, "{}",
            config_.group_initial_rebalance_delay_ms);
  IQ_ASSERT(config_.group_min_session_timeout_ms <= config_.group_max_session_timeout_ms, "{} > {}",
            config_.group_min_session_timeout_ms, config_.group_max_session_timeout_ms);
  IQ_ASSERT(config_.group_max_size > 0 && config_.max_groups > 0);
}

std::optional<JoinGroupResponse> GroupCoordinator::join_group(
    const std::string& group_id, const std::string& member_id, const std::string& client_id,
    const Bytes& metadata, int32_t session_timeout_ms, int32_t rebalance_timeout_ms,
    int64_t now_ms) {
  advance_to(now_ms);
  const size_t first = responses_.size();
  if (session_timeout_ms < config_.group_min_session_timeout_ms ||
      session_timeout_ms > config_.group_max_session_timeout_ms) {
    return join_error(Errors::INVALID_SESSION_TIMEOUT, member_id);
  }
  IQ_ASSERT(rebalance_timeout_ms > 0, "rebalance timeout {}", rebalance_timeout_ms);
  const bool unknown_member = member_id == kUnknownMemberId;
  ClassicGroup* group = find(group_id);
  if (group == nullptr) {
    // Only a new member creates a group; a known member id for a missing group is stale.
    if (!unknown_member) return join_error(Errors::UNKNOWN_MEMBER_ID, member_id);
    IQ_ASSERT(groups_.size() < static_cast<size_t>(config_.max_groups),
              "more than {} groups: raise GroupCoordinatorConfig::max_groups", config_.max_groups);
    group = &groups_[group_id];
    group->group_id = group_id;
  }
  if (unknown_member) {
    if (group->members.size() >= static_cast<size_t>(config_.group_max_size)) {
      return join_error(Errors::GROUP_MAX_SIZE_REACHED, kUnknownMemberId);
    }
    const std::string id = join_new_member(*group, client_id, metadata, session_timeout_ms,
                                           rebalance_timeout_ms, now_ms);
    check_invariants(*group);
    return take_own_response<JoinGroupResponse>(first, group_id, id);
  }
  auto it = group->members.find(member_id);
  if (it == group->members.end()) return join_error(Errors::UNKNOWN_MEMBER_ID, member_id);
  std::optional<JoinGroupResponse> now = join_existing_member(
      *group, it->second, metadata, session_timeout_ms, rebalance_timeout_ms, now_ms);
  check_invariants(*group);
  if (now) return now;
  return take_own_response<JoinGroupResponse>(first, group_id, member_id);
}

std::optional<SyncGroupResponse> GroupCoordinator::sync_group(
    const std::string& group_id, const std::string& member_id, int32_t generation_id,
    const std::optional<std::map<std::string, Bytes>>& assignments, int64_t now_ms) {
  advance_to(now_ms);
  const size_t first = responses_.size();
  ClassicGroup* group = find(group_id);
  if (group == nullptr) return sync_error(Errors::UNKNOWN_MEMBER_ID);
  auto it = group->members.find(member_id);
  if (it == group->members.end()) return sync_error(Errors::UNKNOWN_MEMBER_ID);
  if (generation_id != group->generation_id) return sync_error(Errors::ILLEGAL_GENERATION);
  ClassicGroupMember& member = it->second;
  switch (group->state) {
    case ClassicGroupState::Empty:
    case ClassicGroupState::Dead:
      return sync_error(Errors::UNKNOWN_MEMBER_ID);
    case ClassicGroupState::PreparingRebalance:
      return sync_error(Errors::REBALANCE_IN_PROGRESS);
    case ClassicGroupState::CompletingRebalance:
      sync_completing(*group, member, assignments, now_ms);
      check_invariants(*group);
      return take_own_response<SyncGroupResponse>(first, group_id, member_id);
    case ClassicGroupState::Stable: {
      group->pending_sync_members.erase(member_id);
      if (group->pending_sync_members.empty()) group->sync_deadline_ms.reset();
      reschedule_heartbeat(member, now_ms);
      check_invariants(*group);
      SyncGroupResponse r;
      r.assignment = member.assignment;
      return r;
    }
  }
  IQ_ASSERT(false, "unreachable");
  return std::nullopt;
}

Errors GroupCoordinator::heartbeat(const std::string& group_id, const std::string& member_id,
                                   int32_t generation_id, int64_t now_ms) {
  advance_to(now_ms);
  ClassicGroup* group = find(group_id);
  if (group == nullptr) return Errors::UNKNOWN_MEMBER_ID;
  auto it = group->members.find(member_id);
  if (it == group->members.end()) return Errors::UNKNOWN_MEMBER_ID;
  if (generation_id != group->generation_id) return Errors::ILLEGAL_GENERATION;
  switch (group->state) {
    case ClassicGroupState::Empty:
    case ClassicGroupState::Dead:
      return Errors::UNKNOWN_MEMBER_ID;
    case ClassicGroupState::PreparingRebalance:
      reschedule_heartbeat(it->second, now_ms);
      return Errors::REBALANCE_IN_PROGRESS;
    case ClassicGroupState::CompletingRebalance:
    case ClassicGroupState::Stable:
      // Consumers heartbeat between their JoinGroup answer and their SyncGroup: a normal
      // heartbeat (Kafka since KAFKA-13310; older brokers answered REBALANCE_IN_PROGRESS).
      reschedule_heartbeat(it->second, now_ms);
      return Errors::NONE;
  }
  IQ_ASSERT(false, "unreachable");
  return Errors::NONE;
}

Errors GroupCoordinator::leave_group(const std::string& group_id, const std::string& member_id,
                                     int64_t now_ms) {
  advance_to(now_ms);
  ClassicGroup* group = find(group_id);
  if (group == nullptr || !group->members.contains(member_id)) return Errors::UNKNOWN_MEMBER_ID;
  remove_member_and_update_group(*group, member_id, "left the group (LeaveGroup)", now_ms);
  check_invariants(*group);
  return Errors::NONE;
}

Errors GroupCoordinator::commit_offsets(const std::string& group_id, int32_t generation_id,
                                        const std::string& member_id,
                                        const OffsetCommitMap& offsets, int64_t now_ms) {
  advance_to(now_ms);
  for (const auto& [tp, om] : offsets) {
    // Kafka's OffsetAndMetadata refuses a negative offset on the client: a caller bug here.
    IQ_ASSERT(om.offset >= 0, "commit of {}-{} at offset {}", tp.first, tp.second, om.offset);
  }
  ClassicGroup* group = find(group_id);
  if (group == nullptr) {
    // Without group management (generation < 0) the commit creates the group; otherwise the
    // request comes from a generation the coordinator no longer knows.
    if (generation_id >= 0) return Errors::ILLEGAL_GENERATION;
    IQ_ASSERT(groups_.size() < static_cast<size_t>(config_.max_groups),
              "more than {} groups: raise GroupCoordinatorConfig::max_groups", config_.max_groups);
    group = &groups_[group_id];
    group->group_id = group_id;
  } else if (generation_id >= 0 || !member_id.empty()) {
    if (!group->members.contains(member_id)) return Errors::UNKNOWN_MEMBER_ID;
    if (generation_id != group->generation_id) return Errors::ILLEGAL_GENERATION;
    // The member has its JoinGroup answer but not its assignment: it must not commit yet.
    if (group->state == ClassicGroupState::CompletingRebalance) {
      return Errors::REBALANCE_IN_PROGRESS;
    }
  } else if (group->state != ClassicGroupState::Empty) {
    return Errors::UNKNOWN_MEMBER_ID;
  }
  for (const auto& [tp, om] : offsets) group->offsets.insert_or_assign(tp, om);
  return Errors::NONE;
}

std::optional<OffsetAndMetadata> GroupCoordinator::committed(const std::string& group_id,
                                                             const TopicPartition& tp) const {
  const ClassicGroup* group = find(group_id);
  if (group == nullptr) return std::nullopt;
  auto it = group->offsets.find(tp);
  if (it == group->offsets.end()) return std::nullopt;
  return it->second;
}

base::Expected<std::optional<OffsetAndMetadata>, Errors> GroupCoordinator::committed_stable(
    const std::string& group_id, const TopicPartition& tp) const {
  const ClassicGroup* group = find(group_id);
  if (group != nullptr) {
    for (const auto& [producer_id, pending] : group->pending_txn_offsets) {
      if (pending.contains(tp)) return base::unexpected(Errors::UNSTABLE_OFFSET_COMMIT);
    }
  }
  return committed(group_id, tp);
}

// ClassicGroup.validateOffsetCommit(isTransactional = true): an unknown member or another
// generation is refused, a request without member and generation is accepted whatever the
// state, and CompletingRebalance is not refused ("the group state is not enforced" for them).
Errors GroupCoordinator::txn_commit_offsets(const std::string& group_id, int64_t producer_id,
                                            int32_t generation_id, const std::string& member_id,
                                            const OffsetCommitMap& offsets, int64_t now_ms) {
  advance_to(now_ms);
  IQ_ASSERT(producer_id >= 0, "TxnOffsetCommit from producer {}", producer_id);
  for (const auto& [tp, om] : offsets) {
    IQ_ASSERT(om.offset >= 0, "txn commit of {}-{} at offset {}", tp.first, tp.second, om.offset);
  }
  ClassicGroup* group = find(group_id);
  if (group == nullptr) {
    if (generation_id >= 0) return Errors::ILLEGAL_GENERATION;
    IQ_ASSERT(groups_.size() < static_cast<size_t>(config_.max_groups),
              "more than {} groups: raise GroupCoordinatorConfig::max_groups", config_.max_groups);
    group = &groups_[group_id];
    group->group_id = group_id;
  } else if (!(generation_id < 0 && group->state == ClassicGroupState::Empty) &&
             (generation_id >= 0 || !member_id.empty())) {
    if (!group->members.contains(member_id)) return Errors::UNKNOWN_MEMBER_ID;
    if (generation_id != group->generation_id) return Errors::ILLEGAL_GENERATION;
  }
  OffsetCommitMap& pending = group->pending_txn_offsets[producer_id];
  for (const auto& [tp, om] : offsets) pending.insert_or_assign(tp, om);
  return Errors::NONE;
}

void GroupCoordinator::complete_txn_offsets(const std::string& group_id, int64_t producer_id,
                                            bool commit) {
  ClassicGroup* group = find(group_id);
  if (group == nullptr) return;
  auto it = group->pending_txn_offsets.find(producer_id);
  if (it == group->pending_txn_offsets.end()) return;
  if (commit) {
    for (const auto& [tp, om] : it->second) group->offsets.insert_or_assign(tp, om);
  }
  group->pending_txn_offsets.erase(it);
}

Errors GroupCoordinator::delete_group(const std::string& group_id, int64_t now_ms) {
  advance_to(now_ms);
  ClassicGroup* group = find(group_id);
  if (group == nullptr) return Errors::GROUP_ID_NOT_FOUND;
  if (group->state != ClassicGroupState::Empty) return Errors::NON_EMPTY_GROUP;
  IQ_ASSERT(group->members.empty());
  record(*group, GroupEvent::Kind::kGroupDeleted, "",
         fmt::format("{} committed offsets removed", group->offsets.size()), now_ms);
  groups_.erase(group_id);
  return Errors::NONE;
}

std::vector<GroupEvent> GroupCoordinator::tick(int64_t now_ms) {
  const size_t first = events_.size();
  advance_to(now_ms);
  return std::vector<GroupEvent>(events_.begin() + static_cast<std::ptrdiff_t>(first),
                                 events_.end());
}

std::vector<GroupResponse> GroupCoordinator::take_responses() {
  std::vector<GroupResponse> out;
  out.swap(responses_);
  return out;
}

std::vector<GroupEvent> GroupCoordinator::take_events() {
  std::vector<GroupEvent> out;
  out.swap(events_);
  return out;
}

ClassicGroupState GroupCoordinator::state(const std::string& group_id) const {
  const ClassicGroup* group = find(group_id);
  return group == nullptr ? ClassicGroupState::Dead : group->state;
}

int32_t GroupCoordinator::generation(const std::string& group_id) const {
  const ClassicGroup* group = find(group_id);
  return group == nullptr ? 0 : group->generation_id;
}

std::string GroupCoordinator::leader(const std::string& group_id) const {
  const ClassicGroup* group = find(group_id);
  return group == nullptr ? std::string() : group->leader_id.value_or("");
}

std::vector<std::string> GroupCoordinator::members(const std::string& group_id) const {
  std::vector<std::string> out;
  const ClassicGroup* group = find(group_id);
  if (group == nullptr) return out;
  for (const auto& [id, member] : group->members) out.push_back(id);  // std::map: sorted
  return out;
}

GroupDescription GroupCoordinator::describe_group(const std::string& group_id) const {
  GroupDescription d;
  const ClassicGroup* group = find(group_id);
  if (group == nullptr) return d;
  d.state = group->state;
  d.generation_id = group->generation_id;
  d.leader_id = group->leader_id.value_or("");
  for (const auto& [id, m] : group->members) {
    d.members.push_back(MemberDescription{id, m.client_id, m.session_timeout_ms,
                                          m.rebalance_timeout_ms, m.metadata, m.assignment});
  }
  return d;
}

std::vector<std::string> GroupCoordinator::groups() const {
  std::vector<std::string> out;
  for (const auto& [id, group] : groups_) out.push_back(id);
  return out;
}

// earliest_deadline()'s time without building its Deadline: the tie-breaks there only choose
// among deadlines at one instant, so the earliest instant is the minimum of the same times. Asked
// after every broker request (BrokerService::after_call), where copying each member's ids into a
// Deadline cost as much as the fetch it followed (docs/performance.md).
std::optional<int64_t> GroupCoordinator::next_deadline_ms() const {
  std::optional<int64_t> best;
  auto consider = [&best](int64_t at_ms) {
    if (!best || at_ms < *best) best = at_ms;
  };
  for (const auto& [group_id, group] : groups_) {
    for (const auto& [member_id, member] : group.members) {
      if (!has_satisfied_heartbeat(member)) consider(member.heartbeat_deadline_ms);
    }
    if (group.sync_deadline_ms) consider(*group.sync_deadline_ms);
    if (group.join_deadline_ms) consider(*group.join_deadline_ms);
  }
  return best;
}

// ---- deadlines ----------------------------------------------------------------------------------

void GroupCoordinator::advance_to(int64_t now_ms) {
  IQ_ASSERT(now_ms >= now_ms_, "time ran backwards: {} after {}", now_ms, now_ms_);
  now_ms_ = now_ms;
  for (int fired = 0;; ++fired) {
    IQ_ASSERT(fired < kMaxDeadlinesPerAdvance, "deadlines keep firing at {}", now_ms);
    std::optional<Deadline> d = earliest_deadline();
    if (!d || d->at_ms > now_ms) return;
    fire(*d);
  }
}

// The deadline that fires first; ties go by group id, then join phase before pending sync before
// heartbeat, then member id, so that the order is defined. The kind order matters at one tie that
// Kafka's defaults make common: a member that joins a Stable group starts the join phase
// (rebalance timeout 300 s) and its own new-member join timeout (300 s) at the same instant. The
// phase ends first, so the new member is answered rather than expired.
std::optional<GroupCoordinator::Deadline> GroupCoordinator::earliest_deadline() const {
  std::optional<Deadline> best;
  auto consider = [&best](Deadline d) {
    auto key = [](const Deadline& x) { return std::tie(x.at_ms, x.group_id, x.kind, x.member_id); };
    if (!best || key(d) < key(*best)) best = std::move(d);
  };
  for (const auto& [group_id, group] : groups_) {
    for (const auto& [member_id, member] : group.members) {
      // A member waiting in a phase is not expected to heartbeat; only the others can expire.
      if (!has_satisfied_heartbeat(member)) {
        consider({member.heartbeat_deadline_ms, group_id, DeadlineKind::kHeartbeat, member_id});
      }
    }
    if (group.sync_deadline_ms) {
      consider({*group.sync_deadline_ms, group_id, DeadlineKind::kPendingSync, ""});
    }
    if (group.join_deadline_ms) {
      consider({*group.join_deadline_ms, group_id, DeadlineKind::kJoin, ""});
    }
  }
  return best;
}

void GroupCoordinator::fire(const Deadline& d) {
  ClassicGroup* group = find(d.group_id);
  IQ_ASSERT(group != nullptr, "deadline for missing group {}", d.group_id);
  switch (d.kind) {
    case DeadlineKind::kHeartbeat:
      expire_heartbeat(*group, d.member_id, d.at_ms);
      break;
    case DeadlineKind::kPendingSync:
      expire_pending_sync(*group, d.at_ms);
      break;
    case DeadlineKind::kJoin:
      expire_join(*group, d.at_ms);
      break;
  }
  check_invariants(*group);
}

void GroupCoordinator::expire_heartbeat(ClassicGroup& group, const std::string& member_id,
                                        int64_t at_ms) {
  const ClassicGroupMember& member = group.members.at(member_id);
  const std::string reason =
      member.is_new ? fmt::format("new member join timeout ({} ms) expired",
                                  config_.new_member_join_timeout_ms)
                    : fmt::format("session timeout ({} ms) expired: no heartbeat since {}",
                                  member.session_timeout_ms, at_ms - member.session_timeout_ms);
  remove_member_and_update_group(group, member_id, reason, at_ms);
}

// Members that got their JoinGroup answer but did not send SyncGroup within the rebalance timeout
// are removed, and the group rebalances without them.
void GroupCoordinator::expire_pending_sync(ClassicGroup& group, int64_t at_ms) {
  IQ_ASSERT(!group.pending_sync_members.empty(), "group {}", group.group_id);
  IQ_ASSERT(group.state == ClassicGroupState::CompletingRebalance ||
                group.state == ClassicGroupState::Stable,
            "group {} in {}", group.group_id, state_name(group.state));
  const std::vector<std::string> late(group.pending_sync_members.begin(),
                                      group.pending_sync_members.end());
  for (const std::string& id : late) {
    remove_member(group, id, "did not send SyncGroup within the rebalance timeout", at_ms);
  }
  prepare_rebalance(group, fmt::format("removing {} on pending sync expiration", join_ids(late)),
                    at_ms);
}

void GroupCoordinator::expire_join(ClassicGroup& group, int64_t at_ms) {
  IQ_ASSERT(group.state == ClassicGroupState::PreparingRebalance, "group {} in {}", group.group_id,
            state_name(group.state));
  if (group.initial_rebalance && group.new_member_added && group.initial_remaining_ms != 0) {
    // Kafka's tryCompleteInitialRebalanceElseSchedule: a member arrived during the delay, so wait
    // another delay (never past the rebalance timeout).
    const int64_t delay_ms =
        std::min(config_.group_initial_rebalance_delay_ms, group.initial_remaining_ms);
    group.initial_remaining_ms =
        std::max<int64_t>(group.initial_remaining_ms - group.initial_delay_ms, 0);
    group.initial_delay_ms = delay_ms;
    group.new_member_added = false;
    group.join_deadline_ms = at_ms + delay_ms;
    record(group, GroupEvent::Kind::kJoinPhaseExtended, "",
           fmt::format("initial delay extended to {}", at_ms + delay_ms), at_ms);
    return;
  }
  complete_join(group, at_ms);
}

// ---- join ---------------------------------------------------------------------------------------

std::string GroupCoordinator::join_new_member(ClassicGroup& group, const std::string& client_id,
                                              const Bytes& metadata, int32_t session_timeout_ms,
                                              int32_t rebalance_timeout_ms, int64_t now_ms) {
  // The suffix after the last '-' is the per-group counter, so two members never get one id.
  const std::string id = fmt::format("{}-{}", client_id, group.next_member_number++);
  IQ_ASSERT(!group.members.contains(id), "member id {} reused", id);
  if (group.state == ClassicGroupState::PreparingRebalance && group.initial_rebalance) {
    group.new_member_added = true;
  }
  ClassicGroupMember member;
  member.member_id = id;
  member.client_id = client_id;
  member.metadata = metadata;
  member.session_timeout_ms = session_timeout_ms;
  member.rebalance_timeout_ms = rebalance_timeout_ms;
  member.is_new = true;
  member.heartbeat_deadline_ms = now_ms + config_.new_member_join_timeout_ms;
  ClassicGroupMember& added = group.members.emplace(id, std::move(member)).first->second;
  if (!group.leader_id) group.leader_id = id;
  record(group, GroupEvent::Kind::kMemberAdded, id, "client_id=" + client_id, now_ms);
  park_join(group, added, now_ms);
  maybe_prepare_rebalance_or_complete_join(group, "adding new member " + id, now_ms);
  return id;
}

std::optional<JoinGroupResponse> GroupCoordinator::join_existing_member(
    ClassicGroup& group, ClassicGroupMember& member, const Bytes& metadata,
    int32_t session_timeout_ms, int32_t rebalance_timeout_ms, int64_t now_ms) {
  const bool is_leader = group.leader_id == member.member_id;
  switch (group.state) {
    case ClassicGroupState::PreparingRebalance:
      update_member_and_rebalance(group, member, metadata, session_timeout_ms, rebalance_timeout_ms,
                                  now_ms);
      return std::nullopt;
    case ClassicGroupState::CompletingRebalance:
      // Same metadata: the member lost its JoinGroup answer; give it again.
      if (member.metadata == metadata) return current_join_response(group, member.member_id);
      update_member_and_rebalance(group, member, metadata, session_timeout_ms, rebalance_timeout_ms,
                                  now_ms);
      return std::nullopt;
    case ClassicGroupState::Stable:
      // A follower with unchanged metadata just gets the current generation back. The leader's
      // JoinGroup, or changed metadata, starts a rebalance. (Streams changes its subscription's
      // unique field on every rejoin, so its rejoins always do.)
      if (!is_leader && member.metadata == metadata) {
        return current_join_response(group, member.member_id);
      }
      update_member_and_rebalance(group, member, metadata, session_timeout_ms, rebalance_timeout_ms,
                                  now_ms);
      return std::nullopt;
    case ClassicGroupState::Empty:
    case ClassicGroupState::Dead:
      return join_error(Errors::UNKNOWN_MEMBER_ID, member.member_id);
  }
  IQ_ASSERT(false, "unreachable");
  return std::nullopt;
}

void GroupCoordinator::update_member_and_rebalance(ClassicGroup& group, ClassicGroupMember& member,
                                                   const Bytes& metadata,
                                                   int32_t session_timeout_ms,
                                                   int32_t rebalance_timeout_ms, int64_t now_ms) {
  const bool changed = !(member.metadata == metadata);
  const std::string reason = group.leader_id == member.member_id && !changed
                                 ? fmt::format("leader {} re-joining group during {}",
                                               member.member_id, state_name(group.state))
                                 : fmt::format("updating metadata for member {} during {}",
                                               member.member_id, state_name(group.state));
  member.metadata = metadata;
  member.session_timeout_ms = session_timeout_ms;
  member.rebalance_timeout_ms = rebalance_timeout_ms;
  park_join(group, member, now_ms);
  maybe_prepare_rebalance_or_complete_join(group, reason, now_ms);
}

void GroupCoordinator::park_join(ClassicGroup& group, ClassicGroupMember& member, int64_t now_ms) {
  if (member.awaiting_join) {
    // Kafka replaces the parked future; the first request is never answered.
    record(group, GroupEvent::Kind::kReplaced, member.member_id, "JoinGroup", now_ms);
    return;
  }
  member.awaiting_join = true;
  group.join_order.push_back(member.member_id);
}

void GroupCoordinator::maybe_prepare_rebalance_or_complete_join(ClassicGroup& group,
                                                                const std::string& reason,
                                                                int64_t now_ms) {
  if (group.state == ClassicGroupState::PreparingRebalance) {
    maybe_complete_join_phase(group, now_ms);
  } else {
    prepare_rebalance(group, reason, now_ms);
  }
}

void GroupCoordinator::prepare_rebalance(ClassicGroup& group, const std::string& reason,
                                         int64_t now_ms) {
  IQ_ASSERT(group.state != ClassicGroupState::PreparingRebalance, "group {}", group.group_id);
  if (group.state == ClassicGroupState::CompletingRebalance) {
    // Followers waiting for the leader's assignment learn that it will not come.
    for (auto& [id, member] : group.members) member.assignment = Bytes();
    propagate_assignment(group, Errors::REBALANCE_IN_PROGRESS, now_ms);
  }
  group.pending_sync_members.clear();
  group.sync_deadline_ms.reset();
  const bool initial = group.state == ClassicGroupState::Empty;
  group.state = ClassicGroupState::PreparingRebalance;
  group.initial_rebalance = initial;
  record(group, GroupEvent::Kind::kRebalanceStarted, "", reason, now_ms);
  if (initial) {
    group.initial_delay_ms = config_.group_initial_rebalance_delay_ms;
    group.initial_remaining_ms =
        std::max<int64_t>(group_rebalance_timeout_ms(group) - group.initial_delay_ms, 0);
    group.new_member_added = false;
    group.join_deadline_ms = now_ms + group.initial_delay_ms;
    return;
  }
  group.join_deadline_ms = now_ms + group_rebalance_timeout_ms(group);
  if (all_members_joined(group)) complete_join(group, now_ms);
}

// The initial rebalance ends only by its delay (or by members leaving); any other join phase ends
// as soon as every member has rejoined.
void GroupCoordinator::maybe_complete_join_phase(ClassicGroup& group, int64_t now_ms) {
  if (group.state == ClassicGroupState::PreparingRebalance && !group.initial_rebalance &&
      all_members_joined(group)) {
    complete_join(group, now_ms);
  }
}

void GroupCoordinator::complete_join(ClassicGroup& group, int64_t now_ms) {
  IQ_ASSERT(group.state == ClassicGroupState::PreparingRebalance, "group {} in {}", group.group_id,
            state_name(group.state));
  group.join_deadline_ms.reset();
  std::vector<std::string> not_rejoined;
  for (const auto& [id, member] : group.members) {
    if (!member.awaiting_join) not_rejoined.push_back(id);
  }
  for (const std::string& id : not_rejoined) {
    remove_member(group, id, "did not rejoin within the rebalance timeout", now_ms);
  }
  group.generation_id++;
  group.initial_rebalance = false;
  group.new_member_added = false;
  if (group.members.empty()) {
    group.state = ClassicGroupState::Empty;
    group.leader_id.reset();
    group.generation_order.clear();
    record(group, GroupEvent::Kind::kGroupEmpty, "", "", now_ms);
    return;
  }
  IQ_ASSERT(group.join_order.size() == group.members.size(), "group {}", group.group_id);
  if (!group.leader_id || !group.members.contains(*group.leader_id)) {
    group.leader_id = group.join_order.front();
  }
  group.state = ClassicGroupState::CompletingRebalance;
  group.generation_order = std::move(group.join_order);
  group.join_order.clear();
  record(group, GroupEvent::Kind::kJoinCompleted, "",
         fmt::format("leader={} members={}", *group.leader_id, join_ids(group.generation_order)),
         now_ms);
  for (const std::string& id : group.generation_order) {
    ClassicGroupMember& member = group.members.at(id);
    member.awaiting_join = false;
    member.is_new = false;
    reschedule_heartbeat(member, now_ms);
    group.pending_sync_members.insert(id);
    respond(group, id, current_join_response(group, id), now_ms);
  }
  group.sync_deadline_ms = now_ms + group_rebalance_timeout_ms(group);
}

// ---- sync ---------------------------------------------------------------------------------------

void GroupCoordinator::sync_completing(
    ClassicGroup& group, ClassicGroupMember& member,
    const std::optional<std::map<std::string, Bytes>>& assignments, int64_t now_ms) {
  group.pending_sync_members.erase(member.member_id);
  if (group.pending_sync_members.empty()) group.sync_deadline_ms.reset();
  if (member.awaiting_sync) {
    record(group, GroupEvent::Kind::kReplaced, member.member_id, "SyncGroup", now_ms);
  }
  member.awaiting_sync = true;
  if (group.leader_id != member.member_id) return;  // followers wait for the leader
  std::vector<std::string> ignored;
  if (assignments) {
    for (const auto& [id, assignment] : *assignments) {
      if (!group.members.contains(id)) ignored.push_back(id);
    }
  }
  for (auto& [id, m] : group.members) {
    m.assignment = Bytes();  // a member the leader left out gets an empty assignment
    if (!assignments) continue;
    auto it = assignments->find(id);
    if (it != assignments->end()) m.assignment = it->second;
  }
  propagate_assignment(group, Errors::NONE, now_ms);
  group.state = ClassicGroupState::Stable;
  record(group, GroupEvent::Kind::kGroupStable, member.member_id,
         ignored.empty() ? "" : "assignments for unknown members ignored: " + join_ids(ignored),
         now_ms);
}

void GroupCoordinator::propagate_assignment(ClassicGroup& group, Errors error, int64_t now_ms) {
  for (auto& [id, member] : group.members) {
    if (!member.awaiting_sync) continue;
    SyncGroupResponse r;
    r.error = error;
    if (error == Errors::NONE) r.assignment = member.assignment;
    member.awaiting_sync = false;
    // The session restarts once the member has its answer (Kafka reschedules it here too).
    reschedule_heartbeat(member, now_ms);
    respond(group, id, std::move(r), now_ms);
  }
}

// ---- removal ------------------------------------------------------------------------------------

void GroupCoordinator::remove_member_and_update_group(ClassicGroup& group,
                                                      const std::string& member_id,
                                                      const std::string& reason, int64_t now_ms) {
  remove_member(group, member_id, reason, now_ms);
  if (group.state == ClassicGroupState::Stable ||
      group.state == ClassicGroupState::CompletingRebalance) {
    prepare_rebalance(group, fmt::format("removing member {}: {}", member_id, reason), now_ms);
  } else if (group.state == ClassicGroupState::PreparingRebalance && all_members_joined(group)) {
    complete_join(group, now_ms);
  }
}

void GroupCoordinator::remove_member(ClassicGroup& group, const std::string& member_id,
                                     const std::string& reason, int64_t now_ms) {
  ClassicGroupMember& member = group.members.at(member_id);
  // A parked request of a removed member is answered so that a live client rejoins.
  if (member.awaiting_join) {
    respond(group, member_id, join_error(Errors::UNKNOWN_MEMBER_ID, kUnknownMemberId), now_ms);
  }
  if (member.awaiting_sync)
    respond(group, member_id, sync_error(Errors::UNKNOWN_MEMBER_ID), now_ms);
  erase_id(group.join_order, member_id);
  erase_id(group.generation_order, member_id);
  group.pending_sync_members.erase(member_id);
  if (group.pending_sync_members.empty()) group.sync_deadline_ms.reset();
  // Until the next join phase completes the group has no leader; the next one is the old leader
  // if it rejoined, else the first member that joined.
  if (group.leader_id == member_id) group.leader_id.reset();
  group.members.erase(member_id);
  record(group, GroupEvent::Kind::kMemberRemoved, member_id, reason, now_ms);
}

// ---- helpers ------------------------------------------------------------------------------------

JoinGroupResponse GroupCoordinator::current_join_response(const ClassicGroup& group,
                                                          const std::string& member_id) const {
  JoinGroupResponse r;
  r.generation_id = group.generation_id;
  r.member_id = member_id;
  r.leader_id = group.leader_id.value_or("");
  if (r.is_leader()) {
    for (const std::string& id : group.generation_order) {
      const ClassicGroupMember& m = group.members.at(id);
      r.members.push_back(JoinGroupMember{id, m.client_id, m.metadata});
    }
  }
  return r;
}

bool GroupCoordinator::all_members_joined(const ClassicGroup& group) {
  return group.join_order.size() == group.members.size();
}

// Kafka's ClassicGroupMember.hasSatisfiedHeartbeat: a member waiting in a phase is kept alive,
// except a new one, which the new-member join timeout bounds.
bool GroupCoordinator::has_satisfied_heartbeat(const ClassicGroupMember& member) {
  if (member.is_new) return false;
  return member.awaiting_join || member.awaiting_sync;
}

int32_t GroupCoordinator::group_rebalance_timeout_ms(const ClassicGroup& group) {
  int32_t max_ms = 0;
  for (const auto& [id, member] : group.members) {
    max_ms = std::max(max_ms, member.rebalance_timeout_ms);
  }
  return max_ms;
}

void GroupCoordinator::reschedule_heartbeat(ClassicGroupMember& member, int64_t now_ms) {
  member.heartbeat_deadline_ms = now_ms + member.session_timeout_ms;
}

void GroupCoordinator::respond(const ClassicGroup& group, const std::string& member_id,
                               std::variant<JoinGroupResponse, SyncGroupResponse> response,
                               int64_t at_ms) {
  // A scenario knob, not an invariant: past it the output is still kept, bound_reached() says
  // so, and the event loop's stop check ends the run after this event.
  if (responses_.size() >= static_cast<size_t>(config_.max_pending_outputs)) bound_reached_ = true;
  responses_.push_back(GroupResponse{at_ms, group.group_id, member_id, std::move(response)});
}

// The answer to the calling member's own request, if this call completed it: taken out of the
// outbox so that it is delivered exactly once, by the return value.
template <typename Response>
std::optional<Response> GroupCoordinator::take_own_response(size_t first,
                                                            const std::string& group_id,
                                                            const std::string& member_id) {
  for (size_t i = first; i < responses_.size(); ++i) {
    GroupResponse& r = responses_[i];
    if (r.group_id != group_id || r.member_id != member_id) continue;
    if (!std::holds_alternative<Response>(r.response)) continue;
    Response own = std::get<Response>(std::move(r.response));
    responses_.erase(responses_.begin() + static_cast<std::ptrdiff_t>(i));
    return own;
  }
  return std::nullopt;
}

void GroupCoordinator::record(const ClassicGroup& group, GroupEvent::Kind kind,
                              const std::string& member_id, std::string detail, int64_t at_ms) {
  if (events_.size() >= static_cast<size_t>(config_.max_pending_outputs)) bound_reached_ = true;
  events_.push_back(
      GroupEvent{at_ms, group.group_id, kind, member_id, group.generation_id, std::move(detail)});
}

void GroupCoordinator::check_invariants(const ClassicGroup& group) const {
  size_t awaiting_join = 0;
  for (const auto& [id, m] : group.members) {
    IQ_ASSERT(id == m.member_id, "{} != {}", id, m.member_id);
    if (m.awaiting_join) awaiting_join++;
    IQ_ASSERT(!m.awaiting_sync || group.state == ClassicGroupState::CompletingRebalance,
              "{} awaits sync in {}", id, state_name(group.state));
  }
  IQ_ASSERT(awaiting_join == group.join_order.size(), "group {}: {} awaiting, order {}",
            group.group_id, awaiting_join, join_ids(group.join_order));
  for (const std::string& id : group.join_order) {
    IQ_ASSERT(group.members.contains(id) && group.members.at(id).awaiting_join, "{}", id);
  }
  IQ_ASSERT(group.pending_sync_members.empty() != group.sync_deadline_ms.has_value(), "group {}",
            group.group_id);
  IQ_ASSERT(
      group.join_deadline_ms.has_value() == (group.state == ClassicGroupState::PreparingRebalance),
      "group {} in {}", group.group_id, state_name(group.state));
  switch (group.state) {
    case ClassicGroupState::Empty:
      IQ_ASSERT(group.members.empty(), "empty group {} has members", group.group_id);
      break;
    case ClassicGroupState::CompletingRebalance:
    case ClassicGroupState::Stable:
      IQ_ASSERT(awaiting_join == 0, "group {}", group.group_id);
      IQ_ASSERT(group.leader_id && group.members.contains(*group.leader_id), "group {}",
                group.group_id);
      break;
    case ClassicGroupState::PreparingRebalance:
    case ClassicGroupState::Dead:
      break;
  }
}

ClassicGroup* GroupCoordinator::find(const std::string& group_id) {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : &it->second;
}

const ClassicGroup* GroupCoordinator::find(const std::string& group_id) const {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : &it->second;
}

// ---- names --------------------------------------------------------------------------------------

const char* state_name(ClassicGroupState state) {
  switch (state) {
    case ClassicGroupState::Empty:
      return "Empty";
    case ClassicGroupState::PreparingRebalance:
      return "PreparingRebalance";
    case ClassicGroupState::CompletingRebalance:
      return "CompletingRebalance";
    case ClassicGroupState::Stable:
      return "Stable";
    case ClassicGroupState::Dead:
      return "Dead";
  }
  return "?";
}

const char* event_kind_name(GroupEvent::Kind kind) {
  switch (kind) {
    case GroupEvent::Kind::kMemberAdded:
      return "MemberAdded";
    case GroupEvent::Kind::kMemberRemoved:
      return "MemberRemoved";
    case GroupEvent::Kind::kRebalanceStarted:
      return "RebalanceStarted";
    case GroupEvent::Kind::kJoinPhaseExtended:
      return "JoinPhaseExtended";
    case GroupEvent::Kind::kJoinCompleted:
      return "JoinCompleted";
    case GroupEvent::Kind::kGroupEmpty:
      return "GroupEmpty";
    case GroupEvent::Kind::kGroupStable:
      return "GroupStable";
    case GroupEvent::Kind::kReplaced:
      return "Replaced";
    case GroupEvent::Kind::kGroupDeleted:
      return "GroupDeleted";
  }
  return "?";
}

std::string GroupEvent::to_string() const {
  return fmt::format("{} group={} {} member={} generation={} {}", at_ms, group_id,
                     event_kind_name(kind), member_id, generation_id, detail);
}

}  // namespace iq::sim
