#pragma once
// PositionSerde (SI/PositionSerde.java): the byte layout of a Position in the changelog header
// "c". All integers big-endian:
//   int8 version = 0 | int32 nTopics | { int32 nameLen | name | int32 nPairs | { int32 p | int64 o
//   } }
//
// Kafka quirk kept (docs/iqv2-semantics.md §3, quirk 5): the buffer is sized with Java's *.SIZE
// constants, which count bits, and the header value is the whole backing array, so the value
// Kafka writes is the payload followed by zero padding. serialize_padded() reproduces that;
// deserialize() reads only what the counts say and so ignores trailing bytes.

#include <string>

#include "base/expected.h"
#include "iq/position.h"
#include "iq/streams_error.h"

namespace iq::position_serde {

// The payload only (Kafka's serialize(...) up to its limit()).
std::string serialize(const Position& position);
// What Kafka puts into the header: serialize(position).array(), payload plus zero padding.
std::string serialize_padded(const Position& position);
// The allocation Kafka makes: 40 + sum over topics of (64 + nameLen + 96 * nPairs) bytes.
size_t padded_size(const Position& position);
// Unknown version: IllegalArgumentException; truncated input: BufferUnderflowException.
base::Expected<Position, StreamsError> deserialize(std::string_view bytes);

}  // namespace iq::position_serde
