#include <cstdio>
#include <string>

#include "iq/query.h"

namespace iq {
namespace {

// Howard Hinnant's days-to-civil algorithm (public domain arithmetic), proleptic Gregorian.
void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += (m <= 2);
}

}  // namespace

// Java's Instant.toString for millisecond instants: seconds always shown, the fraction only when
// non-zero (as three digits, since the input has millisecond precision).
std::string instant_to_string(int64_t epoch_ms) {
  int64_t secs = epoch_ms / 1000;
  int64_t ms = epoch_ms % 1000;
  if (ms < 0) {
    ms += 1000;
    secs -= 1;
  }
  int64_t days = secs / 86400;
  int64_t sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    days -= 1;
  }
  int64_t y = 0;
  unsigned m = 0;
  unsigned d = 0;
  civil_from_days(days, y, m, d);
  char buf[64];
  if (ms == 0) {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ",
                  static_cast<long long>(y), m, d, static_cast<long long>(sod / 3600),
                  static_cast<long long>(sod / 60 % 60), static_cast<long long>(sod % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ",
                  static_cast<long long>(y), m, d, static_cast<long long>(sod / 3600),
                  static_cast<long long>(sod / 60 % 60), static_cast<long long>(sod % 60),
                  static_cast<long long>(ms));
  }
  return buf;
}

}  // namespace iq

namespace iq {

std::string java_object_string(std::string_view java_class, std::string_view description) {
  uint32_t h = 2166136261u;  // FNV-1a: stable across runs, unlike Java's identity hash
  for (unsigned char c : description) h = (h ^ c) * 16777619u;
  char hex[16];
  std::snprintf(hex, sizeof hex, "%x", h);
  return std::string(java_class) + "@" + hex;
}

}  // namespace iq
