#include "journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "input_checks.h"

namespace iq::cli {

namespace {

using nlohmann::json;

constexpr const char* kJournalFormat = "iqsim-fuzz-journal";

std::string journal_format(const JournalHeader& h) {
  return h.kind == "fuzz" ? std::string(kJournalFormat) : "iqsim-" + h.kind + "-journal";
}

json header_json(const JournalHeader& h) {
  json out = {{"journal", journal_format(h)},
              {"tool_version", h.tool_version},
              {"scenario", h.scenario},
              {"scenario_digest", h.scenario_digest},
              {"first_seed", h.first_seed},
              {"seed_count", h.seed_count},
              {"shard", h.shard},
              {"stop_on_failure", h.stop_on_failure},
              {"failures_dir", h.failures_dir}};
  if (h.kind != "fuzz") out["grid"] = h.grid;
  return out;
}

std::string errno_text() {
  return std::strerror(errno);
}

// The header field of `found` that differs from `want`, said for a person; empty if none.
std::string header_difference(const json& found, const json& want) {
  for (const auto& [key, value] : want.items()) {
    auto it = found.find(key);
    if (it == found.end()) return fmt::format("it has no {}", key);
    if (*it != value) {
      return fmt::format("its {} is {}, this sweep's is {}", key, shown(it->dump()),
                         shown(value.dump()));
    }
  }
  return "";
}

// fsync of the directory, so that a newly created journal's name survives a crash too.
void sync_directory_of(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  int fd = open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the line itself is synced; the name is the best effort
  (void)fsync(fd);
  close(fd);
}

}  // namespace

Journal::~Journal() {
  if (fd_ >= 0) close(fd_);
}

std::optional<std::string> Journal::write_line(const std::string& line) {
  std::string text = line + "\n";
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = write(fd_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "cannot write the journal " + shown(path_) + ": " + errno_text();
    written += static_cast<size_t>(n);
  }
  if (fsync(fd_) != 0) return "cannot sync the journal " + shown(path_) + ": " + errno_text();
  return std::nullopt;
}

std::optional<std::string> Journal::append(const SeedResult& result) {
  return write_line(seed_result_to_json(result).dump());
}

std::optional<std::string> Journal::append_json(const nlohmann::json& line) {
  return write_line(line.dump());
}

base::Expected<std::unique_ptr<Journal>, std::string> Journal::create(const std::string& path,
                                                                      const JournalHeader& header) {
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0 && st.st_size > 0) {
    return base::unexpected(fmt::format(
        "--journal {}: holds a sweep already; accepted: --resume to go on from it (same file, "
        "seeds, shard and options), or remove it to start again",
        shown(path)));
  }
  int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return base::unexpected("--journal " + shown(path) + ": cannot create: " + errno_text());
  std::unique_ptr<Journal> journal(new Journal(path, fd));
  if (auto failed = journal->write_line(header_json(header).dump())) {
    return base::unexpected(*failed);
  }
  sync_directory_of(path);
  return journal;
}

base::Expected<Journal::Resumed, std::string> Journal::resume(const std::string& path,
                                                              const JournalHeader& header) {
  std::string where = "--journal " + shown(path);
  int fd = open(path.c_str(), O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return base::unexpected(where + ": cannot open for --resume: " + errno_text() +
                            " (accepted: the journal a sweep of the same command wrote)");
  }
  std::unique_ptr<Journal> journal(new Journal(path, fd));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_size) > kJournalBytesMax) {
    return base::unexpected(where + ": not a regular file of at most 1 GiB");
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  if (pread(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    return base::unexpected(where + ": cannot read: " + errno_text());
  }
  Resumed resumed;
  // A last line with no newline was cut by a death inside write(2): it never counted as done.
  size_t complete = text.rfind('\n');
  complete = complete == std::string::npos ? 0 : complete + 1;
  // Cut only once the journal is known to be this sweep's: a refused resume changes nothing.
  bool torn = complete < text.size();
  text.resize(complete);
  json want = header_json(header);
  std::set<std::pair<int64_t, uint64_t>> seeds;  // (configuration or -1, seed)
  size_t line_no = 0;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    std::string_view line(text.data() + at, nl - at);
    at = nl + 1;
    ++line_no;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      return base::unexpected(
          fmt::format("{} line {}: not JSON; accepted: a journal iqsim fuzz "
                      "wrote (its lines are never edited)",
                      where, line_no));
    }
    if (line_no == 1) {
      if (!j.is_object() || j.value("journal", "") != journal_format(header)) {
        return base::unexpected(where + " line 1: not an iqsim " + header.kind + " journal header");
      }
      if (std::string diff = header_difference(j, want); !diff.empty()) {
        return base::unexpected(fmt::format(
            "{}: belongs to another sweep ({}); accepted: --resume with the same scenario file "
            "(unchanged), --seeds, --first-seed, --shard, --stop-on-failure and --failures-dir",
            where, diff));
      }
      continue;
    }
    auto result = seed_result_from_json(j, fmt::format("line {}", line_no));
    if (!result) return base::unexpected(where + ": " + result.error());
    const int64_t configuration =
        j.contains("configuration") && j["configuration"].is_number_integer()
            ? j["configuration"].get<int64_t>()
            : -1;
    if (!seeds.insert({configuration, result->seed}).second) {
      return base::unexpected(
          fmt::format("{} line {}: seed {} is there twice", where, line_no, result->seed));
    }
    resumed.results.push_back(std::move(*result));
    resumed.lines.push_back(std::move(j));
  }
  if (torn) {
    resumed.torn_line_dropped = true;
    if (ftruncate(fd, static_cast<off_t>(complete)) != 0 || fsync(fd) != 0) {
      return base::unexpected(where + ": cannot cut its torn last line: " + errno_text());
    }
  }
  if (line_no == 0) {
    // The sweep died while writing its header: nothing finished, start the journal again.
    if (auto failed = journal->write_line(want.dump())) return base::unexpected(*failed);
  }
  resumed.journal = std::move(journal);
  return resumed;
}

}  // namespace iq::cli
