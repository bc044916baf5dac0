#pragma once
// History: every query attempt of a run, append-only and bounded, in the order the attempts
// completed (virtual time, then event order; a deterministic order since the loop is).
//
//   History history(10'000);
//   uint64_t id = history.next_id();     // at invoke
//   history.append(std::move(record));   // at completion
//   history.to_string();                 // one line per record, stable across runs of a seed

#include <cstdint>
#include <string>
#include <vector>

#include "base/digest.h"
#include "trace/query_record.h"

namespace iq::sim {

class History {
 public:
  explicit History(size_t records_max) : records_max_(records_max) {}

  // Ids are handed out at invoke, so they follow invoke order while records follow completion.
  uint64_t next_id() { return next_id_++; }
  // Past records_max drops the record and sets full(). Asserts an id handed out before and
  // completion times that never go backwards.
  void append(QueryRecord record);

  const std::vector<QueryRecord>& records() const { return records_; }
  size_t size() const { return records_.size(); }
  size_t records_max() const { return records_max_; }
  // A record was dropped because the history held records_max.
  bool full() const { return full_; }

  // One record per line, in order.
  std::string to_string() const;
  // A digest of to_string(), for determinism checks.
  base::Digest digest() const;

 private:
  size_t records_max_;
  uint64_t next_id_ = 1;
  bool full_ = false;
  std::vector<QueryRecord> records_;
};

}  // namespace iq::sim
