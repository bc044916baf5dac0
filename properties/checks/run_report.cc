#include "checks/run_report.h"

#include <algorithm>

namespace iq::properties {
namespace {

// Shell-quotes a path only when it needs it, so the common case stays copy-pasteable as is.
std::string shell_word(const std::string& word) {
  bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
           c == '.' || c == '_' || c == '-' || c == '+' || c == ':' || c == '=';
  });
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

}  // namespace

std::string RunReport::reproduce_command() const {
  return "iqsim replay " + shell_word(scenario) + " --seed " + std::to_string(seed);
}

uint64_t RunReport::failures() const {
  return static_cast<uint64_t>(std::count_if(
      violations.begin(), violations.end(),
      [](const Violation& v) { return v.violation_class == ViolationClass::kFailure; }));
}

std::map<std::string, uint64_t> RunReport::violations_by_class() const {
  std::map<std::string, uint64_t> counts;
  for (const Violation& v : violations) ++counts[class_key(v.violation_class)];
  return counts;
}

}  // namespace iq::properties
