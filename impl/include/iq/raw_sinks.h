#pragma once
// RawValueSink and RawEntrySink: a typed layer's decoder, handed down with the raw KeyQuery or
// RangeQuery it builds (KeyQuery::with_value_sink, RangeQuery::with_entry_sink), so that the store
// owning the data decodes a value or a range straight from its own bytes. Kafka's typed iterator
// deserializes each entry from the inner RocksDB iterator as it goes; without a sink iqsim copied
// every key and value out of the store into a vector of bytes, and the typed layer then decoded
// that vector into a second one.
//
// Nothing observable changes: the position owner still runs every check (bound, context, store
// open) and returns the same QueryResult, position and failures; only the entries take the short
// way. A store or layer that does not know a sink answers as before (the raw result carries the
// bytes and the sink is never called), and the typed layer then decodes the bytes itself, so a
// sink is an offer, never a requirement. A layer that rewrites the raw answer on the way up (the
// plain-to-timestamped adapter) passes the query down without its sink.
//
// When a store delivers through a sink, the raw result holds no bytes: an empty AnyResult for a
// KeyQuery, an iterator with no entries (but its origin) for a RangeQuery. Only the layer that
// attached the sink reads those results.

#include <optional>
#include <string_view>

namespace iq {

// A KeyQuery's value: called once, with the stored bytes (valid only during the call) or nullopt
// for an absent key or a cached tombstone.
class RawValueSink {
 public:
  virtual ~RawValueSink() = default;
  virtual void value(std::optional<std::string_view> bytes) = 0;
};

// A RangeQuery's entries: begin() once when the store takes the query's entries this way (so an
// empty range is told apart from a store that ignored the sink), then entry() per entry in the
// order the store iterates, each view valid only during the call.
class RawEntrySink {
 public:
  virtual ~RawEntrySink() = default;
  virtual void begin() = 0;
  virtual void entry(std::string_view key, std::string_view value) = 0;
};

}  // namespace iq
