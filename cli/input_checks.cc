#include "input_checks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace iq::cli {

namespace {

const char* type_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISREG(mode)) return "a regular file";
  return "not a regular file";
}

std::optional<std::string> check_one(const OutputPath& o) {
  struct stat st {};
  if (lstat(o.path.c_str(), &st) != 0) return std::nullopt;  // absent: it will be created
  if (o.kind == OutputKind::kFile) {
    if (S_ISREG(st.st_mode)) return std::nullopt;
    return fmt::format("{} {}: is {}; accepted: a new file or an existing regular file", o.flag,
                       shown(o.path), type_of(st.st_mode));
  }
  struct stat target {};
  if (S_ISDIR(st.st_mode) ||
      (S_ISLNK(st.st_mode) && stat(o.path.c_str(), &target) == 0 && S_ISDIR(target.st_mode))) {
    return std::nullopt;
  }
  return fmt::format("{} {}: is {}; accepted: a new or an existing directory", o.flag,
                     shown(o.path), type_of(st.st_mode));
}

}  // namespace

std::string shown(std::string_view value, size_t bytes_max) {
  if (value.size() <= bytes_max) return std::string(value);
  size_t cut = bytes_max;
  // Back up over UTF-8 continuation bytes so the prefix ends on a whole character.
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}\u2026 ({} bytes)", value.substr(0, cut), value.size());
}

base::Expected<uint64_t, std::string> parse_decimal(std::string_view flag, std::string_view text,
                                                    uint64_t min, uint64_t max) {
  auto bad = [&](const char* why) {
    return base::unexpected(fmt::format("{} '{}': {}; accepted: a decimal integer from {} to {}",
                                        flag, shown(text), why, min, max));
  };
  if (text.empty()) return bad("empty");
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return bad("not a decimal integer");
    auto digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return bad("out of range");
    value = value * 10 + digit;
  }
  if (value < min || value > max) return bad("out of range");
  return value;
}

std::optional<std::string> check_outputs(const std::vector<OutputPath>& outputs,
                                         const std::vector<std::string>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputPath& o = outputs[i];
    if (o.path.empty()) continue;
    if (auto refused = check_one(o)) return refused;
    struct stat out {};
    bool exists = stat(o.path.c_str(), &out) == 0;
    for (const std::string& input : inputs) {
      struct stat in {};
      if (exists && stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev &&
          in.st_ino == out.st_ino) {
        return fmt::format(
            "{} {}: is the input {} of the same command; accepted: a path that is "
            "not one of the command's inputs",
            o.flag, shown(o.path), shown(input));
      }
    }
    for (size_t k = 0; k < i; ++k) {
      if (!outputs[k].path.empty() && outputs[k].path == o.path) {
        return fmt::format("{} {}: is also given to {}; accepted: a different path for each output",
                           o.flag, shown(o.path), outputs[k].flag);
      }
    }
  }
  return std::nullopt;
}

namespace {

// Creates and removes `probe` (O_EXCL, O_NOFOLLOW: nothing existing is touched); the error says why
// it could not be created.
std::optional<std::string> try_create(const std::string& probe) {
  int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return std::string(std::strerror(errno));
  close(fd);
  unlink(probe.c_str());
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_writable(const std::vector<OutputPath>& outputs) {
  const std::string suffix = ".tmp" + std::to_string(getpid());
  for (const OutputPath& o : outputs) {
    if (o.path.empty()) continue;
    std::string probe = o.path + suffix;
    if (o.kind == OutputKind::kDirectory) {
      std::error_code ec;
      std::filesystem::create_directories(o.path, ec);
      if (ec) {
        return fmt::format("{} {}: cannot be created: {}; accepted: a directory iqsim can write",
                           o.flag, shown(o.path), ec.message());
      }
      probe = (std::filesystem::path(o.path) / (".iqsim-write-check" + suffix)).string();
    }
    if (auto why = try_create(probe)) {
      return fmt::format("{} {}: cannot be written: {}; accepted: a path iqsim can write", o.flag,
                         shown(o.path), *why);
    }
  }
  return std::nullopt;
}

}  // namespace iq::cli
