#pragma once
// A storage error armed on an instance's disk: the Nth read (or write) of a file's bytes, counted
// from the arming while an impl/ operation of `during` is in progress, fails with EIO
// (SimDisk::set_io_fault), once; then the arm is spent. RocksDB turns it into the IOError of the
// call that made the I/O, and impl/ surfaces that as Kafka does: a KeyQuery's read error is the
// partition's STORE_EXCEPTION (StoreQueryUtils catches the store's exception), which is what the
// random faults draw (during = iq::Operation::kKeyQuery). The disk, the data and the process are
// unharmed: a device that failed one read.
//
// What it leaves out (sim/README.md): a read error under a range or window query (Kafka's
// RocksDbIterator never checks the iterator's status, so the range would end early and answer
// success with fewer rows: a Kafka behaviour no finding records yet, so it is not drawn); a read
// error met by processing or restoration (a ProcessorStateException that kills the stream
// thread; at the pin the default uncaught-exception handler answers SHUTDOWN_CLIENT); a write
// error inside a flush (RocksDB keeps it as its background error and refuses writes until
// reopened: the same thread death). Those need the instance restarted after its client went to
// ERROR, which the simulator's faults do not do yet.
//
// Thread safety: the disk asks from a RocksDB thread while the simulator's thread waits for a
// flush, so the arm takes a mutex; its listener runs there too and must not call the disk.

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "disk/sim_disk.h"

namespace iq::sim {

struct IoFaultSpec {
  IoKind kind = IoKind::kRead;
  uint64_t n = 1;       // >= 1: the Nth matching I/O from the arming
  uint32_t during = 0;  // iq::Operation mask that must be in progress (any bit); 0: any
  bool operator==(const IoFaultSpec&) const = default;
  std::string to_string() const;  // "read 2 during key_query"
};

// Where an armed storage error landed.
struct IoFaultLanding {
  IoKind kind = IoKind::kRead;
  std::string path;               // the file whose read or write failed
  uint32_t operations = 0;        // the iq::Operation mask in progress then
  std::string to_string() const;  // "read /state/app/0_1/rocksdb/counts/000012.sst (key_query)"
};

class IoFaultArm {
 public:
  void arm(IoFaultSpec spec);
  void disarm();
  bool armed() const;
  // Counts one I/O on `path` with `operations` in progress; true when it must fail (the Nth
  // match of the armed spec, which then disarms and tells the listener).
  bool count(IoKind kind, const std::string& path, uint32_t operations);
  void set_on_landed(std::function<void(const IoFaultLanding&)> listener);

 private:
  mutable std::mutex mu_;
  std::optional<IoFaultSpec> spec_;
  uint64_t seen_ = 0;
  std::function<void(const IoFaultLanding&)> on_landed_;
};

}  // namespace iq::sim
