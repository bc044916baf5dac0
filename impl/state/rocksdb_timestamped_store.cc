#include "state/rocksdb_timestamped_store.h"

#include <rocksdb/db.h>

#include <memory>

#include "base/assert.h"

namespace iq {

std::string RocksDBTimestampedStore::column_family_name() const {
  return kTimestampedValuesColumnFamilyName;
}

void RocksDBTimestampedStore::on_open(rocksdb::DB& db) {
  // Kafka would open in upgrade mode here; iqsim has no legacy data (see the header).
  std::unique_ptr<rocksdb::Iterator> it(
      db.NewIterator(rocksdb::ReadOptions(), db.DefaultColumnFamily()));
  it->SeekToFirst();
  IQ_ASSERT(it->status().ok(), "store {}: {}", name(), it->status().ToString());
  IQ_ASSERT(!it->Valid(),
            "store {} has plain values in the default column family (upgrade mode "
            "is not modelled)",
            name());
}

}  // namespace iq
