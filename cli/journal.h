#pragma once
// The journal of a sweep (`iqsim fuzz`): one JSON line naming the sweep, then one JSON line per
// finished seed (SeedResult, as in a summary's `results`), each written with one write(2) and
// fsynced before the seed counts as done. A sweep killed part way (even by SIGKILL) leaves every
// finished seed on disk; `iqsim fuzz ... --resume` reads them back and runs only the rest, so its
// summary is the one an uninterrupted sweep writes.
//
//   auto journal = Journal::create(path, header);            // a new sweep
//   auto resumed = Journal::resume(path, header);            // results so far, then append
//   journal->append(result);
//
// A torn last line (no newline: the process died inside the write) is dropped and cut off the
// file; any other line that is not a result is refused, as is a header that differs from the
// sweep being resumed (another scenario file or contents, seed range, shard or options).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"
#include "summary.h"

namespace iq::cli {

// What identifies a sweep: a journal resumes only the sweep it was written for.
struct JournalHeader {
  std::string tool_version = kToolVersion;
  std::string scenario;         // the file as given
  std::string scenario_digest;  // fnv1a64 of the file's bytes, hex: edits are caught
  uint64_t first_seed = 0;
  uint64_t seed_count = 0;
  std::string shard;  // "I/N"
  bool stop_on_failure = false;
  std::string failures_dir;
  // "fuzz", or "explore" (whose lines also name their configuration, and whose header names the
  // grid): a journal resumes only a sweep of its own kind.
  std::string kind = "fuzz";
  std::string grid;  // explore: the grid as text, so a resume with another grid is refused
  bool operator==(const JournalHeader&) const = default;
};

// Journal files are at most this large when resumed (about 100 000 seeds of big results).
inline constexpr uint64_t kJournalBytesMax = 1ull << 30;

class Journal {
 public:
  // Starts a journal at `path`: refused if a non-empty file is there already (a sweep to
  // resume or remove; never overwritten silently).
  static base::Expected<std::unique_ptr<Journal>, std::string> create(const std::string& path,
                                                                      const JournalHeader& header);
  struct Resumed {
    std::unique_ptr<Journal> journal;
    std::vector<SeedResult> results;    // in the order they were written
    std::vector<nlohmann::json> lines;  // the same lines as JSON (explore reads its own fields)
    bool torn_line_dropped = false;
  };
  static base::Expected<Resumed, std::string> resume(const std::string& path,
                                                     const JournalHeader& header);

  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Writes the result's line and fsyncs it; the error says why not.
  std::optional<std::string> append(const SeedResult& result);
  // A result line with fields of its own (explore adds "configuration" and "cpu_ms").
  std::optional<std::string> append_json(const nlohmann::json& line);
  const std::string& path() const { return path_; }

 private:
  Journal(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::optional<std::string> write_line(const std::string& line);

  std::string path_;
  int fd_ = -1;
};

}  // namespace iq::cli
