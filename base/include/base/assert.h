#pragma once
// Assertions that are always on, in every build type. They are for programmer errors only: an
// operating condition (a lagging standby, a missing file) is a value, never an assertion.

#include <fmt/format.h>
#include <cstdio>
#include <cstdlib>

namespace iq::base {

[[noreturn]] inline void assert_fail(const char* expr, const char* file, int line,
                                     const std::string& detail) {
  std::fprintf(stderr, "%s:%d: assertion failed: %s%s%s\n", file, line, expr,
               detail.empty() ? "" : " -- ", detail.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace iq::base

// IQ_ASSERT(cond) or IQ_ASSERT(cond, "fmt {}", values...): the format arguments say what was seen.
#define IQ_ASSERT(cond, ...)                                                                       \
  do {                                                                                             \
    if (!(cond)) [[unlikely]] {                                                                    \
      ::iq::base::assert_fail(#cond, __FILE__, __LINE__, ::iq::base::detail_message(__VA_ARGS__)); \
    }                                                                                              \
  } while (0)

namespace iq::base {
inline std::string detail_message() {
  return {};
}
template <typename... Args>
std::string detail_message(fmt::format_string<Args...> f, Args&&... args) {
  return fmt::format(f, std::forward<Args>(args)...);
}
}  // namespace iq::base
