#pragma once
// Checks on what a user hands iqsim, done before any seed runs, so that a refusal costs nothing
// and destroys nothing: numeric flags (decimal digits only, within a documented range), output
// paths (absent or a regular file, never an input of the same command), and the one function
// that cuts a long value echoed in a message to a readable prefix.
//
//   auto seed = parse_decimal("--seed", text, 0, UINT64_MAX);   // "-1", "", "2^64" refused
//   if (auto bad = check_outputs({{"--json", out, OutputKind::kFile}}, {scenario_file})) ...
//   error("--shard '" + shown(text) + "': ...");

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/expected.h"

namespace iq::cli {

// A value echoed in a message: whole up to kShownBytesMax bytes, else that many bytes (cut at a
// UTF-8 character boundary) followed by "… (N bytes)". Every message that repeats user input
// goes through this, so a 10 MB flag or file name gives a one-line error.
inline constexpr size_t kShownBytesMax = 200;
std::string shown(std::string_view value, size_t bytes_max = kShownBytesMax);

// A decimal integer of [min, max]: digits only (no sign, no spaces, no 0x, not empty). The error
// names the flag, the value (shown()) and the accepted range.
base::Expected<uint64_t, std::string> parse_decimal(std::string_view flag, std::string_view text,
                                                    uint64_t min, uint64_t max);

enum class OutputKind {
  kFile,       // written as NAME.tmp then renamed over NAME: NAME must be absent or regular
  kDirectory,  // files are written into it: it must be absent or a directory
};

struct OutputPath {
  std::string flag;  // "--json"; a positional's name for merge's OUT
  std::string path;
  OutputKind kind = OutputKind::kFile;
};

// The first output that must be refused, as a message naming its flag, the path and what is
// accepted; nullopt when every output may be written. Refused: a file output that exists and is
// not a regular file (a device such as /dev/null, a symlink, a directory, a FIFO); a directory
// output that exists and is not a directory (a symlink to a directory is accepted: writing into
// it replaces nothing); an output that is one of `inputs` (the same device and inode); two
// outputs with the same path. Empty paths (flag not given) are skipped.
std::optional<std::string> check_outputs(const std::vector<OutputPath>& outputs,
                                         const std::vector<std::string>& inputs);

// The first output that cannot be written where it stands, tried before any seed runs rather than
// found after a long sweep: a file output by creating (O_EXCL) and removing `PATH.tmpPID`, the
// name the write itself uses; a directory output by creating it (with its parents) if absent, then
// a file in it. The message names the flag, the path and the system's reason (`--junit /proc/x:
// cannot be written: No such file or directory`). A directory created here stays: the command
// writes into it. Call after check_outputs.
std::optional<std::string> check_writable(const std::vector<OutputPath>& outputs);

}  // namespace iq::cli
