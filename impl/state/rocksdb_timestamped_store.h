#pragma once
// RocksDBTimestampedStore (SI/RocksDBTimestampedStore.java): a RocksDBStore whose values are
// already [8-byte big-endian timestamp][value] (the layer above builds them; restore receives
// records the state manager converted), kept in the column family "keyValueWithTimestamp".
//
// Kafka's upgrade mode (a non-empty "default" column family of plain values from an older store,
// read through a dual-column-family accessor and migrated on access) is not modelled: iqsim never
// writes plain values into a timestamped store's directory, so the default column family is
// always empty. Opening asserts it, so the assumption cannot fail silently.

#include <string>
#include <string_view>
#include <utility>

#include "state/rocksdb_store.h"

namespace iq {

class RocksDBTimestampedStore final : public RocksDBStore {
 public:
  static constexpr const char* kTimestampedValuesColumnFamilyName = "keyValueWithTimestamp";

  explicit RocksDBTimestampedStore(std::string name) : RocksDBStore(std::move(name)) {}

  std::string_view java_class() const override {
    return "class org.apache.kafka.streams.state.internals.RocksDBTimestampedStore";
  }
  bool is_timestamped() const override { return true; }

 protected:
  std::string column_family_name() const override;
  // Kafka's "regular mode" check: the default column family holds nothing.
  void on_open(rocksdb::DB& db) override;
};

}  // namespace iq
