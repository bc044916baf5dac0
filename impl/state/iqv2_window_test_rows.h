#pragma once
// IQv2StoreIntegrationTest's PAPI window runs, as the window store tests replay them on each
// supplier (window_stores_test.cc: in-memory; rocksdb_window_store_test.cc: ROCKS_WINDOW and
// TIME_ROCKS_WINDOW): the input the PAPI window processor writes, the 11 WindowKeyQuery and 9
// WindowRangeQuery rows Kafka expects of it, and the union of values over both partitions that
// Kafka's test compares. Test-only; nothing in iqsim_impl includes it.

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "iq/key_value_iterator.h"
#include "iq/position_bound.h"
#include "iq/query.h"
#include "iq/query_config.h"
#include "iq/serdes.h"
#include "iq/value_and_timestamp.h"
#include "iq/windowed.h"
#include "state/state_store.h"

namespace iq::iqv2_window_rows {

inline constexpr int64_t kW = 1700000100000;  // a multiple of 5 minutes
inline constexpr int64_t kMin5 = 300000;

inline Bytes int_key(int32_t k) {
  return Serde<int32_t>::serialize(k);
}

// One input record: the processor puts (key, value) at windowStart floor(ts / 5 min) * 5 min,
// at the record's index as its offset.
struct Record {
  int32_t key, value;
  int64_t ts;
  int64_t time_ms() const { return kW + ts; }
  int64_t window_start_ms() const { return time_ms() / kMin5 * kMin5; }
};
inline const std::vector<Record> kPartition0 = {{0, 0, 0},      {0, 1, 120000}, {2, 4, 480000},
                                                {2, 5, 600000}, {4, 8, 960000}, {4, 9, 1080000}};
inline const std::vector<Record> kPartition1 = {
    {1, 2, 240000}, {1, 3, 360000}, {3, 6, 720000}, {3, 7, 840000}};

// WindowKeyQuery.withKeyAndWindowStartRange(key, kW + from, kW + to).
struct KeyRow {
  int32_t key;
  int64_t from, to;
  std::set<int32_t> want;
};
inline const std::vector<KeyRow> kKeyRows = {{0, 0, 0, {1}},
                                             {0, -1, -1, {}},
                                             {2, 0, 0, {}},
                                             {999, 0, 0, {}},
                                             {999, -1, -1, {}},
                                             {0, 0, 300000, {1}},
                                             {1, 0, 0, {2}},
                                             {2, 300000, 600000, {4, 5}},
                                             {3, 300000, 600000, {7}},
                                             {4, 900000, 1200000, {9}},
                                             {4, 1200000, 1440000, {}}};

// WindowRangeQuery.withWindowStartRange(kW + from, kW + to).
struct RangeRow {
  int64_t from, to;
  std::set<int32_t> want;
};
inline const std::vector<RangeRow> kRangeRows = {{-1, -1, {}},
                                                 {0, 0, {1, 2}},
                                                 {0, 300000, {1, 2, 3, 4}},
                                                 {300000, 600000, {3, 4, 5, 7}},
                                                 {600000, 900000, {5, 7, 9}},
                                                 {900000, 1200000, {9}},
                                                 {1200000, 1500000, {}},
                                                 {300000, 900000, {3, 4, 5, 7, 9}},
                                                 {0, 900000, {1, 2, 3, 4, 5, 7, 9}}};

// The values of a query's successful results over the partitions (each with a `store`), unioned
// as Kafka's test does (ValueAndTimestamp::value for a timestamped store).
template <typename Partition>
std::set<int32_t> union_values(std::vector<Partition>& parts, const Query& q, bool timestamped) {
  std::set<int32_t> out;
  for (auto& p : parts) {
    auto r = p.store->query(q, PositionBound::unbounded(), QueryConfig(false));
    EXPECT_TRUE(r.has_value());
    EXPECT_TRUE(r->is_success()) << r->to_string();
    if (!r->is_success()) continue;
    const bool key_query = q.kind() == QueryKind::WindowKeyQuery;
    if (key_query && timestamped) {
      for (const auto& e :
           r->template result<KeyValueIterator<int64_t, ValueAndTimestamp<int32_t>>>().entries)
        out.insert(e.value.value);
    } else if (key_query) {
      for (const auto& e : r->template result<KeyValueIterator<int64_t, int32_t>>().entries)
        out.insert(e.value);
    } else if (timestamped) {
      for (const auto& e :
           r->template result<KeyValueIterator<Windowed<int32_t>, ValueAndTimestamp<int32_t>>>()
               .entries)
        out.insert(e.value.value);
    } else {
      for (const auto& e :
           r->template result<KeyValueIterator<Windowed<int32_t>, int32_t>>().entries)
        out.insert(e.value);
    }
  }
  return out;
}

}  // namespace iq::iqv2_window_rows
