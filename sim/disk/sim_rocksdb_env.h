#pragma once
// SimRocksEnv: a rocksdb::Env whose files live on a SimDisk, so that RocksDB keeps across a
// simulated crash exactly what it synced, as on a real kernel.
//
// Design: a rocksdb::FileSystem (RocksDB 7.8.3's file seam) implemented on the SimDisk, wrapped by
// rocksdb::NewCompositeEnv, which takes everything that is not a file (threads, time, host name,
// unique ids) from rocksdb::Env::Default(). RocksDB's background threads stay RocksDB's own
// business: with the store's options (WAL off, no automatic compaction, explicit
// Flush(wait=true)), what a database holds never depends on their timing.
//
// What goes where:
// - WritableFile Sync/Fsync makes the bytes durable; Flush, Close and RangeSync do not (as on
//   Linux). Directory Fsync makes the directory's entries durable. RocksDB syncs every table file,
//   MANIFEST and CURRENT it relies on and the directory after creating them, so a flushed memtable
//   survives SimDisk::crash() and an unflushed one does not.
// - LockFile/UnlockFile are the disk's process locks: SimDisk::crash() refuses to run while a
//   database is open, since its background threads could still be writing.
// - RocksDB's info log (LOG) is discarded and never becomes a file: its lines carry wall-clock
//   timestamps and its rotation names files after the wall clock.
// - Modification times are the disk's logical operation counter, never the wall clock.
// - Random read-write files and memory-mapped buffers are not supported (the store never asks).

#include <memory>

namespace rocksdb {
class Env;
class FileSystem;
}  // namespace rocksdb

namespace iq::sim {

class SimDisk;

// The FileSystem alone, for callers that compose their own Env. `disk` must outlive it.
std::shared_ptr<rocksdb::FileSystem> new_sim_rocksdb_file_system(SimDisk& disk);

class SimRocksEnv {
 public:
  // `disk` must outlive this object, and this object every database opened on env().
  explicit SimRocksEnv(SimDisk& disk);
  ~SimRocksEnv();
  SimRocksEnv(const SimRocksEnv&) = delete;
  SimRocksEnv& operator=(const SimRocksEnv&) = delete;

  rocksdb::Env* env() const { return env_.get(); }
  SimDisk& disk() const { return disk_; }

 private:
  SimDisk& disk_;
  // Shared with env_, which keeps its own reference to the file system.
  std::shared_ptr<rocksdb::FileSystem> file_system_;
  std::unique_ptr<rocksdb::Env> env_;
};

}  // namespace iq::sim
