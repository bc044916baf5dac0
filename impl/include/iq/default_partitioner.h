#pragma once
// The default partitioner Streams uses for keys (PI/DefaultStreamPartitioner.java, which calls
// the producer's BuiltInPartitioner.partitionForKey): murmur2 of the serialized key, masked
// positive, modulo the partition count. queryMetadataForKey and the simulated producers both use
// it, so a key's owner can be found the way a real application finds it.

#include <cstdint>
#include <string_view>

#include "base/assert.h"

namespace iq {

// Utils.murmur2: Kafka's 32-bit MurmurHash2 with seed 0x9747b28c, little-endian blocks.
inline int32_t murmur2(std::string_view data) {
  const auto length = static_cast<uint32_t>(data.size());
  constexpr uint32_t kSeed = 0x9747b28c;
  constexpr uint32_t kM = 0x5bd1e995;
  constexpr int kR = 24;
  uint32_t h = kSeed ^ length;
  const uint32_t blocks = length / 4;
  auto byte = [&](uint32_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(data[i]));
  };
  for (uint32_t i = 0; i < blocks; ++i) {
    const uint32_t i4 = i * 4;
    uint32_t k = byte(i4) | (byte(i4 + 1) << 8) | (byte(i4 + 2) << 16) | (byte(i4 + 3) << 24);
    k *= kM;
    k ^= k >> kR;
    k *= kM;
    h *= kM;
    h ^= k;
  }
  const uint32_t tail = length & ~3u;
  switch (length % 4) {
    case 3:
      h ^= byte(tail + 2) << 16;
      [[fallthrough]];
    case 2:
      h ^= byte(tail + 1) << 8;
      [[fallthrough]];
    case 1:
      h ^= byte(tail);
      h *= kM;
      break;
    default:
      break;
  }
  h ^= h >> 13;
  h *= kM;
  h ^= h >> 15;
  return static_cast<int32_t>(h);
}

inline int32_t partition_for_key(std::string_view serialized_key, int32_t num_partitions) {
  IQ_ASSERT(num_partitions > 0, "num_partitions={}", num_partitions);
  return (murmur2(serialized_key) & 0x7fffffff) % num_partitions;  // Utils.toPositive
}

}  // namespace iq
