#pragma once
// What the store-level RapidCheck suites (store_properties.cc, window_store_properties.cc) share:
// the position bound a query carries and the rule it is judged by, the model's position as a
// Position, the running max of optional offsets, a scratch state directory per generated case,
// and gtest parameter names made from a configuration's describe(). Test-only.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <optional>
#include <string>

#include "iq/position.h"
#include "iq/position_bound.h"
#include "single_store_task.h"

namespace iq::properties {

inline std::optional<int64_t> max_opt(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

// A bound: unbounded (kind 0), on the store's partition (1), on another partition only (2), or on
// a topic never written (3). Each suite draws kind and offset with its own generator.
struct BoundChoice {
  int kind;
  int64_t offset;
  int32_t partition;  // the store's

  PositionBound bound() const {
    switch (kind) {
      case 0:
        return PositionBound::unbounded();
      case 1:
        return PositionBound::at(Position::from_map({{kSourceTopic, {{partition, offset}}}}));
      case 2:
        return PositionBound::at(Position::from_map({{kSourceTopic, {{partition + 1, offset}}}}));
      default:
        return PositionBound::at(Position::from_map({{"other-topic", {{partition, offset}}}}));
    }
  }
  // The bound check, written from the rule rather than from the code's loop.
  bool permits(std::optional<int64_t> pos) const {
    if (kind == 0 || kind == 2) return true;
    if (kind == 3) return false;
    return pos.has_value() && *pos >= offset;
  }
};

// The position a store on `partition` reports when the model says its last update was `offset`.
inline std::optional<Position> as_position(int32_t partition, std::optional<int64_t> offset) {
  if (!offset) return Position::empty_position();
  return Position::from_map({{kSourceTopic, {{partition, *offset}}}});
}

// A state directory of its own for one generated case. On tmpfs when there is one: still real
// files, but fsync costs nothing, so a few hundred cases per configuration stay cheap.
inline std::filesystem::path scratch_state_dir(const std::string& prefix) {
  static std::atomic<int> run_counter{0};
  const std::filesystem::path root =
      std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : testing::TempDir();
  return root / (prefix + std::to_string(::getpid()) + "-" + std::to_string(run_counter++));
}

// A gtest parameter name: the configuration's describe() with every other character as '_'.
template <typename Config>
std::string param_name(const testing::TestParamInfo<Config>& param_info) {
  std::string n = param_info.param.describe();
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

}  // namespace iq::properties
