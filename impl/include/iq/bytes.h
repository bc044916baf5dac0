#pragma once
// Bytes: a serialized key or value. Ordered by unsigned lexicographic byte comparison, exactly as
// Kafka's Bytes.BYTES_LEXICO_COMPARATOR and RocksDB's BytewiseComparator order them. The order is
// written out (memcmp) rather than left to std::string's operator< so that nobody has to remember
// that char_traits<char> happens to compare as unsigned.

#include <algorithm>
#include <compare>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace iq {

class Bytes {
 public:
  Bytes() = default;
  explicit Bytes(std::string data) : data_(std::move(data)) {}
  static Bytes wrap(std::string_view data) { return Bytes(std::string(data)); }

  const std::string& get() const { return data_; }
  std::string_view view() const { return data_; }
  size_t size() const { return data_.size(); }
  bool empty() const { return data_.empty(); }

  friend bool operator==(const Bytes& a, const Bytes& b) { return a.data_ == b.data_; }
  friend std::strong_ordering operator<=>(const Bytes& a, const Bytes& b) {
    return compare(a.view(), b.view()) <=> 0;
  }
  static int compare(std::string_view a, std::string_view b) {
    const size_t n = std::min(a.size(), b.size());
    const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
    if (c != 0) return c;
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  }

  // Kafka's Bytes.toString: the bytes as printable ASCII, others as \xNN.
  std::string to_string() const {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : data_) {
      if (c >= ' ' && c <= '~' && c != '\\') {
        out.push_back(static_cast<char>(c));
      } else {
        out += "\\x";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
      }
    }
    return out;
  }

 private:
  std::string data_;
};

template <typename K, typename V>
struct KeyValue {
  K key;
  V value;
  friend bool operator==(const KeyValue&, const KeyValue&) = default;
};

// A stored value: nullopt when absent, or a tombstone.
using ValueBytes = std::optional<Bytes>;

}  // namespace iq
