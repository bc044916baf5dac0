#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace iq::cli {
namespace {

std::string errno_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

struct Pipe {
  int fds[2] = {-1, -1};
  ~Pipe() {
    for (int fd : fds) {
      if (fd >= 0) close(fd);
    }
  }
  void close_end(int i) {
    if (fds[i] >= 0) close(fds[i]);
    fds[i] = -1;
  }
};

}  // namespace

std::string ChildOutcome::describe() const {
  if (exited) return "exit " + std::to_string(exit_code);
  const char* name = strsignal(signal);
  return "signal " + std::to_string(signal) +
         (name != nullptr ? std::string(" (") + name + ")" : "");
}

base::Expected<ChildOutcome, std::string> run_child(const std::vector<std::string>& argv,
                                                    ChildLimits limits) {
  if (argv.empty()) return base::unexpected(std::string("run_child: no program"));
  Pipe out, err;
  if (pipe2(out.fds, O_CLOEXEC) != 0 || pipe2(err.fds, O_CLOEXEC) != 0) {
    return base::unexpected(errno_text("pipe2"));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fds[1], STDERR_FILENO);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return base::unexpected("posix_spawn " + argv[0] + ": " + std::strerror(spawned));
  }
  out.close_end(1);
  err.close_end(1);

  // Read both pipes until both close, so that neither can fill up and block the child.
  ChildOutcome outcome;
  std::array<char, 65536> buffer{};
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    std::array<pollfd, 3> fds{pollfd{out_open ? out.fds[0] : -1, POLLIN, 0},
                              pollfd{err_open ? err.fds[0] : -1, POLLIN, 0},
                              pollfd{limits.cancel_fd, POLLIN, 0}};
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return base::unexpected(errno_text("poll"));
    }
    if (fds[2].fd >= 0 && fds[2].revents != 0) {
      kill(pid, SIGKILL);
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      outcome.cancelled = true;
      return outcome;
    }
    for (size_t i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
        continue;
      }
      const std::string_view chunk(buffer.data(), static_cast<size_t>(n));
      if (i == 0) {
        if (outcome.out.size() + chunk.size() > limits.out_bytes_max) {
          kill(pid, SIGKILL);
          waitpid(pid, nullptr, 0);
          return base::unexpected("child " + argv[0] + " wrote more than " +
                                  std::to_string(limits.out_bytes_max) + " bytes to stdout");
        }
        outcome.out.append(chunk);
      } else {
        outcome.err_tail.append(chunk);
        if (outcome.err_tail.size() > limits.err_tail_bytes_max) {
          outcome.err_tail.erase(0, outcome.err_tail.size() - limits.err_tail_bytes_max);
        }
      }
    }
  }
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) return base::unexpected(errno_text("wait4"));
  }
  outcome.peak_rss_kib = usage.ru_maxrss;  // Linux reports KiB
  auto ms = [](const timeval& t) { return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3; };
  outcome.cpu_ms = ms(usage.ru_utime) + ms(usage.ru_stime);
  outcome.exited = WIFEXITED(status);
  if (outcome.exited) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

base::Expected<std::string, std::string> self_executable() {
  std::array<char, 4096> path{};
  const ssize_t n = readlink("/proc/self/exe", path.data(), path.size() - 1);
  if (n <= 0) return base::unexpected(errno_text("readlink /proc/self/exe"));
  return std::string(path.data(), static_cast<size_t>(n));
}

}  // namespace iq::cli
