#include "state/position_serde.h"

#include "base/assert.h"

namespace iq::position_serde {
namespace {

void put_i32(std::string& out, int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((u >> shift) & 0xFF));
}
void put_i64(std::string& out, int64_t v) {
  const auto u = static_cast<uint64_t>(v);
  for (int shift = 56; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((u >> shift) & 0xFF));
}

// A cursor over the input that reports underflow instead of reading past the end.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool read_u8(uint8_t& v) {
    if (pos_ + 1 > in_.size()) return false;
    v = static_cast<uint8_t>(in_[pos_++]);
    return true;
  }
  bool read_i32(int32_t& v) {
    uint64_t u = 0;
    if (!read_be(4, u)) return false;
    v = static_cast<int32_t>(static_cast<uint32_t>(u));
    return true;
  }
  bool read_i64(int64_t& v) {
    uint64_t u = 0;
    if (!read_be(8, u)) return false;
    v = static_cast<int64_t>(u);
    return true;
  }
  bool read_string(size_t n, std::string& s) {
    if (pos_ + n > in_.size()) return false;
    s.assign(in_.substr(pos_, n));
    pos_ += n;
    return true;
  }

 private:
  bool read_be(size_t n, uint64_t& u) {
    if (pos_ + n > in_.size()) return false;
    for (size_t i = 0; i < n; ++i) u = (u << 8) | static_cast<uint8_t>(in_[pos_++]);
    return true;
  }
  std::string_view in_;
  size_t pos_ = 0;
};

StreamsError underflow() {
  return {StreamsError::Kind::BufferUnderflow, "truncated Position"};
}

}  // namespace

std::string serialize(const Position& position) {
  std::string out;
  out.push_back(0);  // version
  put_i32(out, static_cast<int32_t>(position.map().size()));
  for (const auto& [topic, partitions] : position.map()) {
    put_i32(out, static_cast<int32_t>(topic.size()));
    out += topic;
    put_i32(out, static_cast<int32_t>(partitions.size()));
    for (const auto& [partition, offset] : partitions) {
      put_i32(out, partition);
      put_i64(out, offset);
    }
  }
  return out;
}

size_t padded_size(const Position& position) {
  // Byte.SIZE + Integer.SIZE, then per topic Integer.SIZE + name + Integer.SIZE, then per
  // partition Integer.SIZE + Long.SIZE: bits used as if they were bytes.
  size_t size = 8 + 32;
  for (const auto& [topic, partitions] : position.map()) {
    size += 32 + topic.size() + 32 + partitions.size() * (32 + 64);
  }
  return size;
}

std::string serialize_padded(const Position& position) {
  std::string out = serialize(position);
  const size_t padded = padded_size(position);
  IQ_ASSERT(padded >= out.size(), "padded={} payload={}", padded, out.size());
  out.resize(padded, '\0');
  return out;
}

base::Expected<Position, StreamsError> deserialize(std::string_view bytes) {
  Reader r(bytes);
  uint8_t version = 0;
  if (!r.read_u8(version)) return base::unexpected(underflow());
  if (version != 0) {
    return base::unexpected(StreamsError{StreamsError::Kind::IllegalArgument,
                                         // Java's ByteBuffer.get() is signed: 0x80 prints as -128.
                                         "Unknown version " +
                                             std::to_string(static_cast<int8_t>(version)) +
                                             " when deserializing Position"});
  }
  int32_t n_topics = 0;
  if (!r.read_i32(n_topics)) return base::unexpected(underflow());
  Position::Map map;
  for (int32_t t = 0; t < n_topics; ++t) {
    int32_t name_len = 0;
    std::string topic;
    int32_t n_pairs = 0;
    if (!r.read_i32(name_len) || name_len < 0 ||
        !r.read_string(static_cast<size_t>(name_len), topic) || !r.read_i32(n_pairs)) {
      return base::unexpected(underflow());
    }
    // Kafka puts each topic's map in whole, so a repeated topic replaces the earlier one.
    auto& partitions = map[topic];
    partitions.clear();
    for (int32_t i = 0; i < n_pairs; ++i) {
      int32_t partition = 0;
      int64_t offset = 0;
      if (!r.read_i32(partition) || !r.read_i64(offset)) return base::unexpected(underflow());
      partitions[partition] = offset;
    }
  }
  return Position::from_map(map);
}

}  // namespace iq::position_serde
