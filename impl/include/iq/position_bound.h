#pragma once
// PositionBound (org.apache.kafka.streams.query.PositionBound): a deep copy of a Position that a
// store must have reached. unbounded() is the bound around the empty position; is_unbounded() is
// simply position().is_empty(), so at({t:{}}) is not "unbounded" yet permits everything.

#include "iq/position.h"

namespace iq {

class PositionBound {
 public:
  static PositionBound unbounded() { return PositionBound(Position::empty_position()); }
  static PositionBound at(const Position& position) { return PositionBound(position.copy()); }

  bool is_unbounded() const { return position_.is_empty(); }
  const Position& position() const { return position_; }

  std::string to_string() const { return "PositionBound{position=" + position_.to_string() + "}"; }
  friend bool operator==(const PositionBound&, const PositionBound&) = default;

 private:
  explicit PositionBound(Position p) : position_(std::move(p)) {}
  Position position_;
};

}  // namespace iq
