#pragma once
// A crash that lands inside an operation instead of between two events.
//
// An instance is armed with "die at the Nth <event>" (CrashInsideSpec), counted from the arming:
// - kDiskOp: an operation that changes its disk (sim/disk's DiskOp: create, append, truncate,
//   sync, directory sync, rename, link, unlink, mkdir, rmdir), from impl/'s FileSystem or RocksDB;
// - kSend: a record send through its RecordCollector (changelog writes);
// - kCommit: an offset commit of its group membership;
// - kRestorePoll: a poll of a restore consumer that hands out records (a restore or standby batch).
// Optionally only events while an impl/ operation is in progress count (`during`, a mask of
// iq::Operation bits from impl/io/operation_marker.h; 0: any), and optionally only disk events on
// one path (`path`: the event's CrashSubject path, exactly; empty: any), so that a scripted crash
// can name the one operation it cuts ("the rmdir of /state/app/0_0 inside the cleaner") whatever
// number of files came before it.
//
// At the Nth event the process is dead to the world (CrashArm::dead()): for the disk, the durable
// state is frozen before that operation (SimDisk::set_op_observer), so nothing written or synced
// from then on survives; its clients drop that send or commit and every later one, and send
// nothing more over the network; the ProcessingLedger hears of nothing it processes. It runs on
// to the end of the current event without knowing, and then Instance completes the crash exactly
// as Instance::crash() (KafkaStreams destroyed, SimDisk::crash()). The on-disk and broker-side
// effect is that of a kill -9 at that point.
//
// CrashArm is the per-instance counter; it outlives processes (an arm set while an instance is
// down counts in the next process). Thread safety: the disk counts from a RocksDB thread while
// the simulator's thread waits for a flush, so the arm takes a mutex.

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace iq::sim {

enum class CrashInsideAt { kDiskOp, kSend, kCommit, kRestorePoll };
const char* to_string(CrashInsideAt at);  // "disk", "send", "commit", "restore_poll"
std::optional<CrashInsideAt> crash_inside_at_from_string(std::string_view s);

// Names of the iq::Operation bits a `during` mask may hold, as scenario files spell them:
// "checkpoint", "checkpoint_flush", "write_position", "write_checkpoint", "restore", "cleaner",
// "close", "commit", "key_query";
// "any" is 0.
std::optional<uint32_t> operation_mask_from_string(std::string_view s);
std::string operation_mask_to_string(uint32_t mask);  // "any", or names joined by '+'

struct CrashInsideSpec {
  CrashInsideAt at = CrashInsideAt::kDiskOp;
  uint64_t n = 1;       // >= 1: the Nth matching event from the arming
  uint32_t during = 0;  // iq::Operation mask that must be in progress (any bit); 0: any
  std::string path;     // kDiskOp only: the event's path must be exactly this; empty: any
  bool operator==(const CrashInsideSpec&) const = default;
  // "event 3 of kind disk during close", "event 1 of kind disk during cleaner on /state/a/0_0"
  std::string to_string() const;
};

// What an event a crash may land at touched, as data (the trace's CrashPointRecord copies it):
// a disk event's path, a send's topic and partition. Empty for commits and restore polls.
struct CrashSubject {
  std::string path;   // "/state/app/0_1/.checkpoint.tmp"
  std::string topic;  // "app-counts-changelog"
  int32_t partition = -1;
  static CrashSubject file(std::string path) { return {std::move(path), "", -1}; }
  static CrashSubject send_to(std::string topic, int32_t partition) {
    return {"", std::move(topic), partition};
  }
  bool operator==(const CrashSubject&) const = default;
};

// What a landed crash interrupted.
struct CrashLanding {
  CrashInsideAt at = CrashInsideAt::kDiskOp;
  std::string what;         // "sync /state/0_1/.checkpoint.tmp", "send words-changelog-1", ...
  CrashSubject subject;     // the same event's path, or topic and partition, as fields
  uint32_t operations = 0;  // the iq::Operation mask in progress at that event
  // The crash points it hit (each is also a probe "crash.point.<name>"), in a fixed order:
  // "commit_flush" (a disk event of a commit outside its checkpoint: the flush before the offset
  // commit), "store_flush", "flush_checkpoint", "position_checkpoint", "send_commit",
  // "restore_batch", "cleaner", "close"; none: "other".
  std::string points() const;
  // The same points one by one, in that order (empty: "other").
  std::vector<std::string> point_names() const;
  std::string to_string() const;  // "sync /state/0_1/.checkpoint.tmp (flush_checkpoint, ...)"
};

// The names of the iq::Operation bits in `mask`, in operation_mask_to_string's order.
std::vector<std::string> operation_names(uint32_t mask);

class CrashArm {
 public:
  void arm(CrashInsideSpec spec);
  void disarm();
  bool armed() const;
  // Counts one event; returns true when the process dies at it (the Nth match of an armed spec).
  // Nothing counts while the arm is suspended (Instance::crash tearing a process down) or once
  // the process is dead.
  bool count(CrashInsideAt at, std::string_view what, CrashSubject subject = {});
  // The process died and the crash has not been completed yet.
  bool dead() const;
  std::optional<CrashLanding> landing() const;
  // After the crash is complete: the arm is spent, the next process lives.
  void clear_landing();
  void set_suspended(bool suspended);
  // Instance::crash is tearing the process down: nothing it writes may become durable.
  bool suspended() const;

 private:
  mutable std::mutex mu_;
  std::optional<CrashInsideSpec> spec_;
  uint64_t matched_ = 0;
  bool suspended_ = false;
  std::optional<CrashLanding> landing_;
};

// Says, as coverage probes "crash.point.<name>", which crash points a landing hit. Call it on the
// simulator's thread (probes record into the run's ProbeScope).
void probe_crash_points(const CrashLanding& landing);

}  // namespace iq::sim
