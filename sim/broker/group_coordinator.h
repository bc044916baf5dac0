#pragma once
// GroupCoordinator: the broker side of Kafka's classic consumer group protocol (JoinGroup,
// SyncGroup, Heartbeat, LeaveGroup, OffsetCommit), as the classic part of Kafka's
// group-coordinator module (GroupMetadataManager + ClassicGroup, trunk between 3.9 and 4.0)
// implements it, reduced to dynamic members with one protocol. A state machine only: time comes
// in as `now_ms` on every call, nothing is scheduled, and the driver (event loop, network) decides
// when requests arrive and when responses are delivered.
//
// Requests that Kafka parks in a purgatory (a JoinGroup waiting for the other members, a follower's
// SyncGroup waiting for the leader) are parked here too. Each request gets exactly one answer:
// either the call returns it (the optional is set), or the call returns nullopt and the answer
// comes out of take_responses() later, from whichever call or tick completed it. The one exception
// is Kafka's: a member that sends a second JoinGroup (or SyncGroup) while its first is parked
// replaces the first, which is then never answered (the client's request timeout covers it); a
// kReplaced event records it.
//
// Deadlines (session timeouts, the join phase's rebalance timeout, the initial rebalance delay, the
// pending-sync timeout) fire in deadline order, each at its own time, before any request at or
// after that time is handled. Every call and tick(now_ms) first runs them up to now_ms, so the
// outcome does not depend on how often tick() is called; a request that arrives exactly at a
// deadline comes after it (a heartbeat at exactly 45 000 ms after the last one is too late).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "base/expected.h"
#include "broker/errors.h"
#include "iq/bytes.h"
#include "iq/topic_partition.h"

namespace iq::sim {

inline constexpr int32_t kNoGeneration = -1;  // Kafka's JoinGroupRequest/OffsetCommit NO_GENERATION
inline constexpr const char* kUnknownMemberId = "";  // JoinGroupRequest.UNKNOWN_MEMBER_ID

enum class ClassicGroupState { Empty, PreparingRebalance, CompletingRebalance, Stable, Dead };
const char* state_name(ClassicGroupState state);

struct GroupCoordinatorConfig {
  // group.initial.rebalance.delay.ms: an Empty group's first join phase waits this long for more
  // members, and again after each new member, up to the rebalance timeout.
  int64_t group_initial_rebalance_delay_ms = 3'000;
  int32_t group_min_session_timeout_ms = 6'000;      // group.min.session.timeout.ms
  int32_t group_max_session_timeout_ms = 1'800'000;  // group.max.session.timeout.ms
  int32_t group_max_size = 1'000;  // group.max.size (Kafka: unbounded; a bound here)
  // A member that joined for the first time and is waiting in the join phase is expired after
  // this long (Kafka's GroupCoordinatorConfig.CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS).
  int64_t new_member_join_timeout_ms = 300'000;
  int32_t max_groups = 1'000;             // bound: assert
  int64_t max_pending_outputs = 100'000;  // bound on undrained outputs: bound_reached()
  bool operator==(const GroupCoordinatorConfig&) const = default;
};

// Kafka's OffsetAndMetadata. Streams puts the partition time, encoded, into `metadata`.
struct OffsetAndMetadata {
  OffsetAndMetadata(int64_t offset_in, std::string metadata_in = {})  // NOLINT: implicit on purpose
      : offset(offset_in), metadata(std::move(metadata_in)) {}
  int64_t offset;
  std::string metadata;
  friend bool operator==(const OffsetAndMetadata&, const OffsetAndMetadata&) = default;
};
using OffsetCommitMap = std::map<TopicPartition, OffsetAndMetadata>;

// JoinGroupResponseMember: one member's subscription, as the leader receives it.
struct JoinGroupMember {
  std::string member_id;
  std::string client_id;
  Bytes metadata;
  friend bool operator==(const JoinGroupMember&, const JoinGroupMember&) = default;
};

struct JoinGroupResponse {
  Errors error = Errors::NONE;
  int32_t generation_id = kNoGeneration;
  std::string member_id;  // the id the member must use from now on
  std::string leader_id;
  std::vector<JoinGroupMember> members;  // the leader only: every member, in join order
  bool is_leader() const { return error == Errors::NONE && member_id == leader_id; }
};

struct SyncGroupResponse {
  Errors error = Errors::NONE;
  Bytes assignment;  // empty for a member the leader gave nothing
};

// A parked request's answer, produced by a later call or tick.
struct GroupResponse {
  int64_t at_ms = 0;  // when the coordinator completed it
  std::string group_id;
  std::string member_id;
  std::variant<JoinGroupResponse, SyncGroupResponse> response;
};

// What happened, for the trace and the history recorder.
struct GroupEvent {
  enum class Kind {
    kMemberAdded,        // detail: client_id
    kMemberRemoved,      // detail: why (left, session expired, did not rejoin, did not sync)
    kRebalanceStarted,   // detail: why
    kJoinPhaseExtended,  // initial rebalance delay extended by a new member
    kJoinCompleted,      // generation_id: the new one; detail: leader and members in join order
    kGroupEmpty,         // generation_id: the new one
    kGroupStable,        // the leader's assignment was accepted
    kReplaced,           // a parked request was replaced by a newer one from the same member
    kGroupDeleted,
  };
  int64_t at_ms = 0;
  std::string group_id;
  Kind kind = Kind::kMemberAdded;
  std::string member_id;
  int32_t generation_id = kNoGeneration;
  std::string detail;
  std::string to_string() const;
};
const char* event_kind_name(GroupEvent::Kind kind);

// One member as describe_group shows it.
struct MemberDescription {
  std::string member_id;
  std::string client_id;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  Bytes metadata;
  Bytes assignment;
};

struct GroupDescription {
  ClassicGroupState state = ClassicGroupState::Dead;
  int32_t generation_id = 0;
  std::string leader_id;                   // empty when the group has no leader
  std::vector<MemberDescription> members;  // sorted by member_id
};

// Internal to the coordinator; in the header only because GroupCoordinator holds them by value.
struct ClassicGroupMember {
  std::string member_id;
  std::string client_id;
  Bytes metadata;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  Bytes assignment;
  int64_t heartbeat_deadline_ms = 0;
  bool is_new = true;          // joined for the first time and has not completed a join phase
  bool awaiting_join = false;  // a JoinGroup is parked
  bool awaiting_sync = false;  // a SyncGroup is parked
};

struct ClassicGroup {
  std::string group_id;
  ClassicGroupState state = ClassicGroupState::Empty;
  int32_t generation_id = 0;
  std::optional<std::string> leader_id;
  std::map<std::string, ClassicGroupMember> members;
  std::vector<std::string> join_order;         // members awaiting join, in the order they joined
  std::vector<std::string> generation_order;   // the members of this generation, in join order
  std::set<std::string> pending_sync_members;  // got a JoinGroup answer, have not synced
  std::optional<int64_t> join_deadline_ms;     // PreparingRebalance only
  std::optional<int64_t> sync_deadline_ms;     // set while pending_sync_members is not empty
  bool initial_rebalance = false;              // this join phase started from Empty
  bool new_member_added = false;               // during the initial delay
  int64_t initial_delay_ms = 0;
  int64_t initial_remaining_ms = 0;
  int64_t next_member_number = 1;
  OffsetCommitMap offsets;
  // TxnOffsetCommit offsets per producer id, visible only once its transaction commits.
  std::map<int64_t, OffsetCommitMap> pending_txn_offsets;
};

class GroupCoordinator {
 public:
  explicit GroupCoordinator(GroupCoordinatorConfig config = {});

  // JoinGroup. An empty member_id asks for a new member: the coordinator assigns
  // "<client_id>-<n>" (n counts up per group from 1) and adds it. Returns the answer now, or
  // nullopt when the request is parked until the join phase completes (take_responses()).
  [[nodiscard]] std::optional<JoinGroupResponse> join_group(
      const std::string& group_id, const std::string& member_id, const std::string& client_id,
      const Bytes& metadata, int32_t session_timeout_ms, int32_t rebalance_timeout_ms,
      int64_t now_ms);

  // SyncGroup. The leader passes the assignment of every member (missing members get an empty
  // one); followers pass nullopt. Returns the answer now, or nullopt when a follower waits for the
  // leader (take_responses()).
  [[nodiscard]] std::optional<SyncGroupResponse> sync_group(
      const std::string& group_id, const std::string& member_id, int32_t generation_id,
      const std::optional<std::map<std::string, Bytes>>& assignments, int64_t now_ms);

  // Heartbeat: NONE, REBALANCE_IN_PROGRESS (PreparingRebalance: rejoin), ILLEGAL_GENERATION,
  // UNKNOWN_MEMBER_ID. Refreshes the session in PreparingRebalance, CompletingRebalance, Stable.
  [[nodiscard]] Errors heartbeat(const std::string& group_id, const std::string& member_id,
                                 int32_t generation_id, int64_t now_ms);

  // LeaveGroup (plain consumers; Streams does not send it on close).
  [[nodiscard]] Errors leave_group(const std::string& group_id, const std::string& member_id,
                                   int64_t now_ms);

  // OffsetCommit, validated as Kafka's ClassicGroup.validateOffsetCommit does. generation_id
  // kNoGeneration with an empty member_id is a commit from outside group management (accepted
  // only while the group is Empty or does not exist). All-or-nothing here.
  [[nodiscard]] Errors commit_offsets(const std::string& group_id, int32_t generation_id,
                                      const std::string& member_id, const OffsetCommitMap& offsets,
                                      int64_t now_ms);
  std::optional<OffsetAndMetadata> committed(const std::string& group_id,
                                             const TopicPartition& tp) const;
  // OffsetFetch with requireStable (a read_committed consumer): UNSTABLE_OFFSET_COMMIT while an
  // open transaction holds a TxnOffsetCommit for the partition, else committed().
  [[nodiscard]] base::Expected<std::optional<OffsetAndMetadata>, Errors> committed_stable(
      const std::string& group_id, const TopicPartition& tp) const;

  // TxnOffsetCommit from the transaction of `producer_id`, validated as Kafka's
  // ClassicGroup.validateOffsetCommit does with isTransactional (EOS v2 fences a zombie by its
  // member id and generation; unlike a plain commit, CompletingRebalance is not refused). The
  // offsets stay pending until complete_txn_offsets.
  [[nodiscard]] Errors txn_commit_offsets(const std::string& group_id, int64_t producer_id,
                                          int32_t generation_id, const std::string& member_id,
                                          const OffsetCommitMap& offsets, int64_t now_ms);
  // The transaction marker reached the group (its __consumer_offsets partition): COMMIT makes
  // the producer's pending offsets the committed ones, ABORT drops them.
  void complete_txn_offsets(const std::string& group_id, int64_t producer_id, bool commit);

  // DeleteGroups for one group: only an Empty group; its committed offsets go with it.
  [[nodiscard]] Errors delete_group(const std::string& group_id, int64_t now_ms);

  // Runs every deadline up to now_ms and returns the events that caused (they also stay in the
  // log that take_events() drains).
  std::vector<GroupEvent> tick(int64_t now_ms);

  // Answers to parked requests, in the order they were completed. Drains.
  std::vector<GroupResponse> take_responses();
  // Every event since the last call, in order. Drains.
  std::vector<GroupEvent> take_events();
  // Responses or events outgrew max_pending_outputs (the run is to end: see respond()).
  bool bound_reached() const { return bound_reached_; }
  int64_t pending_outputs_max() const { return config_.max_pending_outputs; }

  // Accessors. An unknown group reads as Dead with generation 0, as DescribeGroups shows it.
  ClassicGroupState state(const std::string& group_id) const;
  int32_t generation(const std::string& group_id) const;
  std::string leader(const std::string& group_id) const;                // empty when none
  std::vector<std::string> members(const std::string& group_id) const;  // sorted
  GroupDescription describe_group(const std::string& group_id) const;
  std::vector<std::string> groups() const;  // sorted
  // The earliest pending deadline of any group, if any: when the driver should tick next.
  std::optional<int64_t> next_deadline_ms() const;

 private:
  enum class DeadlineKind { kJoin, kPendingSync, kHeartbeat };
  struct Deadline {
    int64_t at_ms;
    std::string group_id;
    DeadlineKind kind;
    std::string member_id;
  };

  void advance_to(int64_t now_ms);
  std::optional<Deadline> earliest_deadline() const;
  void fire(const Deadline& d);
  void expire_heartbeat(ClassicGroup& group, const std::string& member_id, int64_t at_ms);
  void expire_pending_sync(ClassicGroup& group, int64_t at_ms);
  void expire_join(ClassicGroup& group, int64_t at_ms);

  // Adds the member, parks its JoinGroup and returns the id it was given.
  std::string join_new_member(ClassicGroup& group, const std::string& client_id,
                              const Bytes& metadata, int32_t session_timeout_ms,
                              int32_t rebalance_timeout_ms, int64_t now_ms);
  // The answer now, or nullopt when the JoinGroup is parked.
  std::optional<JoinGroupResponse> join_existing_member(
      ClassicGroup& group, ClassicGroupMember& member, const Bytes& metadata,
      int32_t session_timeout_ms, int32_t rebalance_timeout_ms, int64_t now_ms);
  void update_member_and_rebalance(ClassicGroup& group, ClassicGroupMember& member,
                                   const Bytes& metadata, int32_t session_timeout_ms,
                                   int32_t rebalance_timeout_ms, int64_t now_ms);
  void sync_completing(ClassicGroup& group, ClassicGroupMember& member,
                       const std::optional<std::map<std::string, Bytes>>& assignments,
                       int64_t now_ms);

  void park_join(ClassicGroup& group, ClassicGroupMember& member, int64_t now_ms);
  void maybe_prepare_rebalance_or_complete_join(ClassicGroup& group, const std::string& reason,
                                                int64_t now_ms);
  void prepare_rebalance(ClassicGroup& group, const std::string& reason, int64_t now_ms);
  void maybe_complete_join_phase(ClassicGroup& group, int64_t now_ms);
  void complete_join(ClassicGroup& group, int64_t now_ms);
  void propagate_assignment(ClassicGroup& group, Errors error, int64_t now_ms);
  void remove_member_and_update_group(ClassicGroup& group, const std::string& member_id,
                                      const std::string& reason, int64_t now_ms);
  void remove_member(ClassicGroup& group, const std::string& member_id, const std::string& reason,
                     int64_t now_ms);

  JoinGroupResponse current_join_response(const ClassicGroup& group,
                                          const std::string& member_id) const;
  static bool all_members_joined(const ClassicGroup& group);
  static bool has_satisfied_heartbeat(const ClassicGroupMember& member);
  static int32_t group_rebalance_timeout_ms(const ClassicGroup& group);
  static void reschedule_heartbeat(ClassicGroupMember& member, int64_t now_ms);

  void respond(const ClassicGroup& group, const std::string& member_id,
               std::variant<JoinGroupResponse, SyncGroupResponse> response, int64_t at_ms);
  template <typename Response>
  std::optional<Response> take_own_response(size_t first, const std::string& group_id,
                                            const std::string& member_id);
  void record(const ClassicGroup& group, GroupEvent::Kind kind, const std::string& member_id,
              std::string detail, int64_t at_ms);
  void check_invariants(const ClassicGroup& group) const;
  ClassicGroup* find(const std::string& group_id);
  const ClassicGroup* find(const std::string& group_id) const;

  GroupCoordinatorConfig config_;
  bool bound_reached_ = false;
  std::map<std::string, ClassicGroup> groups_;
  std::vector<GroupResponse> responses_;
  std::vector<GroupEvent> events_;
  int64_t now_ms_ = 0;  // the latest time seen; time never runs backwards
};

}  // namespace iq::sim
