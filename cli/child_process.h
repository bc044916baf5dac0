#pragma once
// run_child: runs a program with arguments in a child process (posix_spawn, no shell) and
// collects what it printed and how it ended. `iqsim fuzz` runs each seed this way (as the hidden
// `iqsim run-seed`), so a seed that aborts, on an IQ_ASSERT in impl/ or sim/ or a sanitizer
// report, fails that one seed with its message instead of ending the campaign.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/expected.h"

namespace iq::cli {

struct ChildOutcome {
  bool exited = false;     // ended by exit(); else by a signal
  int exit_code = -1;      // when exited
  int signal = 0;          // when !exited
  std::string out;         // everything written to stdout (at most out_bytes_max)
  std::string err_tail;    // the last err_tail_bytes_max bytes written to stderr
  bool cancelled = false;  // killed by run_child because cancel_fd became readable
  // The child's peak resident set in KiB (wait4's ru_maxrss: the largest it ever was, counted by
  // the kernel, so a short spike is not missed as sampling would miss it).
  int64_t peak_rss_kib = 0;
  // The CPU time the child used, user plus system, in ms (wait4's ru_utime + ru_stime): its cost,
  // whatever else the machine ran meanwhile (wall clock would count the waiting too).
  double cpu_ms = 0;
  std::string describe() const;  // "exit 1" / "signal 6 (Aborted)"
};

struct ChildLimits {
  size_t out_bytes_max = 64u << 20;
  size_t err_tail_bytes_max = 4096;
  // When this descriptor becomes readable (a signal handler wrote to its pipe), the child is
  // killed (SIGKILL) and reaped, and the outcome says `cancelled`. -1: none.
  int cancel_fd = -1;
};

// An error only when the child could not be started (or its output not read).
base::Expected<ChildOutcome, std::string> run_child(const std::vector<std::string>& argv,
                                                    ChildLimits limits = {});

// This process's own executable (/proc/self/exe), for spawning iqsim subcommands.
base::Expected<std::string, std::string> self_executable();

}  // namespace iq::cli
