// WindowHistory and SessionHistory answer a query from per-slot change lists and a per-segment
// index of what a rising floor drops, not by replaying the partition per query. These tests
// compare them, on random store-level histories, with a straightforward replay written here (every
// operation up to the offset into a fresh map, the segmented store's cleanup after every put):
// queries at rising, falling and random offsets, interleaved keys, a time range, queries between
// writes, reopens with a lower stream time, duplicates and restored records. A stale index or a
// wrong change list shows as a difference, with the trial's seed in the message.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "model/key_bytes.h"
#include "model/session_history.h"
#include "model/time_math.h"
#include "model/versioned_history.h"
#include "model/window_history.h"

namespace iq::model {
namespace {

// Keys 1, 2, 3 and -1: the last serializes to 0xffffffff, after every non-negative key.
const std::vector<KeyBytes> kKeys = {serialize_int32_key(1), serialize_int32_key(2),
                                     serialize_int32_key(3), serialize_int32_key(-1)};

int64_t pick(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// ---- Window stores ----

enum class WindowOpKind { kPut, kRestore, kReopen, kApplyLatest };

struct WindowOp {
  WindowOpKind kind;
  int64_t offset;
  KeyBytes key;
  std::optional<int64_t> value;
  int64_t timestamp_ms;
  int64_t start_ms;  // kApplyLatest: floor(ts / size) * size
  int64_t seqnum;    // kRestore; kReopen: the stream time
};

// The store's content after the ops up to an offset, replayed from nothing.
WindowAnswer replay_window(const WindowSpec& spec, const std::vector<WindowOp>& ops,
                           const KeyBytes* key, int64_t from_ms, int64_t to_ms, int64_t offset) {
  const bool segmented = spec.backing == StoreBacking::kSegmented;
  const auto segment = [&](int64_t start) { return start / spec.segment_interval_ms; };
  const auto live_from = [&](int64_t st) {
    return saturating_minus(st, spec.retention_ms) / spec.segment_interval_ms;
  };
  // (key, start, seqnum) -> (value, timestamp)
  std::map<std::tuple<KeyBytes, int64_t, int64_t>, std::pair<int64_t, int64_t>> content;
  int64_t st = -1;
  int64_t counter = 0;
  for (const WindowOp& op : ops) {
    if (op.offset > offset) break;
    if (op.kind == WindowOpKind::kReopen) {
      st = op.seqnum;
      counter = 0;
      continue;
    }
    const bool restore = op.kind == WindowOpKind::kRestore;
    if (!restore && segmented && spec.retain_duplicates && !op.value) continue;
    st = std::max(st, op.start_ms);
    const bool expired = segmented ? segment(op.start_ms) < live_from(st)
                                   : op.start_ms <= saturating_minus(st, spec.retention_ms);
    int64_t seqnum = op.seqnum;
    if (!restore) {
      seqnum = spec.retain_duplicates && op.value && (segmented || !expired) ? ++counter : 0;
    }
    if (!expired) {
      const auto slot = std::make_tuple(op.key, op.start_ms, seqnum);
      if (op.value) {
        content[slot] = {*op.value, op.timestamp_ms};
      } else if (restore || !spec.retain_duplicates) {
        content.erase(slot);
      }
    }
    if (segmented) {
      std::erase_if(content,
                    [&](const auto& e) { return segment(std::get<1>(e.first)) < live_from(st); });
    }
  }
  struct Row {
    KeyBytes key;
    int64_t start, seqnum, value, timestamp;
  };
  std::vector<Row> rows;
  WindowAnswer out;
  for (const auto& [slot, stored] : content) {
    const auto& [k, start, seqnum] = slot;
    if ((key != nullptr && k != *key) || start < from_ms || start > to_ms) continue;
    if (start <= saturating_minus(st, spec.retention_ms)) {
      if (segmented && segment(start) >= live_from(st)) out.uncertain = true;
      continue;
    }
    rows.push_back(Row{k, start, seqnum, stored.first, stored.second});
  }
  // WindowKeyQuery: start, seqnum; fetchAll in memory: start, key, seqnum; segmented: segment,
  // key, start, seqnum.
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    const int c = compare_key_bytes(a.key, b.key);
    if (key != nullptr || !segmented) {
      if (a.start != b.start) return a.start < b.start;
      if (c != 0) return c < 0;
      return a.seqnum < b.seqnum;
    }
    if (segment(a.start) != segment(b.start)) return segment(a.start) < segment(b.start);
    if (c != 0) return c < 0;
    return std::tie(a.start, a.seqnum) < std::tie(b.start, b.seqnum);
  });
  for (const Row& r : rows) {
    out.entries.push_back(
        WindowEntry{r.key, r.start, r.start + spec.size_ms, r.value, r.timestamp});
  }
  return out;
}

void apply_window_op(WindowHistory& h, const WindowOp& op) {
  switch (op.kind) {
    case WindowOpKind::kPut:
      h.put(0, op.offset, op.key, op.value, op.timestamp_ms, op.start_ms);
      break;
    case WindowOpKind::kRestore:
      h.restore_put(0, op.offset, op.key, op.value, op.timestamp_ms, op.start_ms, op.seqnum);
      break;
    case WindowOpKind::kReopen:
      h.reopen_store(0, op.offset, op.seqnum);
      break;
    case WindowOpKind::kApplyLatest:
      h.apply(0, SourceRecord{op.offset, op.key, op.value, op.timestamp_ms,
                              op.value ? WriteKind::kPut : WriteKind::kTombstone});
      break;
  }
}

std::vector<WindowOp> random_window_ops(std::mt19937_64& rng, const WindowSpec& spec, int n) {
  std::vector<WindowOp> ops;
  int64_t offset = 0;
  int64_t high = 0;  // the newest timestamp so far: most records come near it, some late
  for (int i = 0; i < n; ++i) {
    if (pick(rng, 0, 3) != 0) offset += pick(rng, 1, 3);  // several ops may share an offset
    WindowOp op{WindowOpKind::kPut,
                offset,
                kKeys[static_cast<size_t>(pick(rng, 0, 3))],
                std::nullopt,
                0,
                0,
                0};
    const int64_t r = pick(rng, 0, 99);
    if (spec.backing == StoreBacking::kSegmented && r < 4) {
      op.kind = WindowOpKind::kReopen;
      op.seqnum = pick(rng, 0, 1) == 0 ? -1 : pick(rng, 0, high);
      ops.push_back(op);
      continue;
    }
    op.kind = spec.backing == StoreBacking::kSegmented && spec.retain_duplicates && r < 30
                  ? WindowOpKind::kRestore
              : r < 60 ? WindowOpKind::kPut
                       : WindowOpKind::kApplyLatest;
    high += pick(rng, 0, 6);
    op.timestamp_ms = std::max<int64_t>(0, high - (pick(rng, 0, 4) == 0 ? pick(rng, 0, 60) : 0));
    op.start_ms = op.timestamp_ms / spec.size_ms * spec.size_ms;
    if (op.kind != WindowOpKind::kApplyLatest && pick(rng, 0, 9) == 0) {
      op.start_ms = pick(rng, 0, high);  // a put anywhere, as a PAPI processor may write
    }
    if (pick(rng, 0, 5) != 0) op.value = pick(rng, -50, 50);
    op.seqnum = pick(rng, 0, 4);
    ops.push_back(op);
  }
  return ops;
}

// A query's offsets: rising, falling and random, in one sequence.
std::vector<int64_t> query_offsets(std::mt19937_64& rng, int64_t last) {
  std::vector<int64_t> out;
  for (int64_t o = -1; o <= last + 1; o += pick(rng, 1, 4)) out.push_back(o);
  for (int64_t o = last + 1; o >= -1; o -= pick(rng, 1, 4)) out.push_back(o);
  for (int i = 0; i < 40; ++i) out.push_back(pick(rng, -1, last + 1));
  return out;
}

void expect_window_equal(const WindowHistory& h, const WindowSpec& spec,
                         const std::vector<WindowOp>& ops, std::mt19937_64& rng, uint64_t seed,
                         const char* phase) {
  const int64_t last = ops.empty() ? 0 : ops.back().offset;
  for (const int64_t o : query_offsets(rng, last)) {
    const size_t k = static_cast<size_t>(pick(rng, 0, static_cast<int64_t>(kKeys.size())));
    const KeyBytes* key = k < kKeys.size() ? &kKeys[k] : nullptr;  // nullptr: fetch_all
    int64_t from = pick(rng, -10, 120);
    int64_t to = pick(rng, 0, 3) == 0 ? pick(rng, -10, 400) : std::numeric_limits<int64_t>::max();
    if (pick(rng, 0, 3) == 0) from = std::numeric_limits<int64_t>::min();
    const WindowAnswer want = replay_window(spec, ops, key, from, to, o);
    const WindowAnswer got =
        key != nullptr ? h.fetch(0, *key, from, to, o) : h.fetch_all(0, from, to, o);
    ASSERT_EQ(got.entries, want.entries)
        << "seed " << seed << " " << phase << " offset " << o << " key "
        << (key != nullptr ? key_to_hex(*key) : "all") << " [" << from << ", " << to << "]";
    ASSERT_EQ(got.uncertain, want.uncertain) << "seed " << seed << " " << phase << " offset " << o;
  }
}

TEST(ModelHistoryReplayTest, WindowStoreAnswersAsAReplayAtEveryOffset) {
  std::vector<WindowSpec> specs;
  for (const StoreBacking b : {StoreBacking::kInMemory, StoreBacking::kSegmented}) {
    for (const bool dup : {false, true}) {
      for (const int64_t segment : {int64_t{1}, int64_t{7}, int64_t{25}}) {
        if (b == StoreBacking::kInMemory && segment != 1) continue;
        specs.push_back(WindowSpec{WindowAggregation::kLatest, 10, 10, 0, 40, b, segment, dup});
      }
    }
  }
  for (size_t s = 0; s < specs.size(); ++s) {
    for (uint64_t trial = 0; trial < 12; ++trial) {
      const uint64_t seed = s * 1000 + trial;
      std::mt19937_64 rng(seed);
      const WindowSpec& spec = specs[s];
      const std::vector<WindowOp> ops = random_window_ops(rng, spec, 160);
      WindowHistory h(spec);
      // Half the ops, queries (the model must not answer from a state the later writes stale),
      // then the rest and queries over every offset again.
      const size_t half = ops.size() / 2;
      const std::vector<WindowOp> first(ops.begin(), ops.begin() + static_cast<ptrdiff_t>(half));
      for (const WindowOp& op : first) apply_window_op(h, op);
      expect_window_equal(h, spec, first, rng, seed, "half");
      for (size_t i = half; i < ops.size(); ++i) apply_window_op(h, ops[i]);
      expect_window_equal(h, spec, ops, rng, seed, "all");
      // A copy answers alike, and its segment index is its own: writes to the copy after it
      // leave the original alone.
      WindowHistory copy = h;
      std::vector<WindowOp> more = ops;
      int64_t offset = ops.back().offset;
      for (int i = 0; i < 20; ++i) {
        WindowOp op{WindowOpKind::kPut, ++offset, kKeys[static_cast<size_t>(i % 4)], i, 1000 + i,
                    1000 + 10 * i,      0};
        apply_window_op(copy, op);
        more.push_back(op);
      }
      expect_window_equal(copy, spec, more, rng, seed, "copy");
      expect_window_equal(h, spec, ops, rng, seed, "original after the copy's writes");
    }
  }
}

// ---- Session stores ----

enum class SessionOpKind { kPut, kRemove, kReopen };

struct SessionOp {
  SessionOpKind kind;
  int64_t offset;
  KeyBytes key;
  int64_t start_ms;
  int64_t end_ms;  // kReopen: the stream time
  std::optional<int64_t> value;
};

SessionAnswer replay_session(const SessionSpec& spec, const std::vector<SessionOp>& ops,
                             const KeyBytes& key, int64_t offset) {
  const bool segmented = spec.backing == StoreBacking::kSegmented;
  const auto segment = [&](int64_t end) { return end / spec.segment_interval_ms; };
  const auto live_from = [&](int64_t st) {
    return saturating_minus(st, spec.retention_ms) / spec.segment_interval_ms;
  };
  std::map<std::tuple<KeyBytes, int64_t, int64_t>, int64_t> content;  // (key, end, start)
  int64_t st = -1;
  for (const SessionOp& op : ops) {
    if (op.offset > offset) break;
    const auto slot = std::make_tuple(op.key, op.end_ms, op.start_ms);
    switch (op.kind) {
      case SessionOpKind::kReopen:
        st = op.end_ms;
        break;
      case SessionOpKind::kRemove:
        if (segmented) st = std::max(st, op.end_ms);
        content.erase(slot);
        break;
      case SessionOpKind::kPut: {
        st = std::max(st, op.end_ms);
        const bool expired = segmented ? segment(op.end_ms) < live_from(st)
                                       : op.end_ms <= saturating_minus(st, spec.retention_ms);
        if (!expired) {
          if (op.value) {
            content[slot] = *op.value;
          } else {
            content.erase(slot);
          }
        }
        if (segmented) {
          std::erase_if(content, [&](const auto& e) {
            return segment(std::get<1>(e.first)) < live_from(st);
          });
        }
        break;
      }
    }
  }
  SessionAnswer out;
  for (const auto& [slot, value] : content) {
    const auto& [k, end, start] = slot;
    if (k != key) continue;
    if (end < 0 || end <= saturating_minus(st, spec.retention_ms)) {
      if (segmented && end >= 0 && segment(end) >= live_from(st)) out.uncertain = true;
      continue;
    }
    out.entries.push_back(SessionEntry{k, start, end, value});
  }
  if (!segmented) {  // the in-memory store runs the starts of one end descending
    std::stable_sort(out.entries.begin(), out.entries.end(),
                     [](const SessionEntry& a, const SessionEntry& b) {
                       return a.end_ms != b.end_ms ? a.end_ms < b.end_ms : a.start_ms > b.start_ms;
                     });
  }
  return out;
}

void apply_session_op(SessionHistory& h, const SessionOp& op) {
  switch (op.kind) {
    case SessionOpKind::kPut:
      h.put(0, op.offset, op.key, op.start_ms, op.end_ms, op.value);
      break;
    case SessionOpKind::kRemove:
      h.remove(0, op.offset, op.key, op.start_ms, op.end_ms);
      break;
    case SessionOpKind::kReopen:
      h.reopen_store(0, op.offset, op.end_ms);
      break;
  }
}

void expect_session_equal(const SessionHistory& h, const SessionSpec& spec,
                          const std::vector<SessionOp>& ops, std::mt19937_64& rng, uint64_t seed,
                          const char* phase) {
  const int64_t last = ops.empty() ? 0 : ops.back().offset;
  for (const int64_t o : query_offsets(rng, last)) {
    const KeyBytes& key = kKeys[static_cast<size_t>(pick(rng, 0, 3))];
    const SessionAnswer want = replay_session(spec, ops, key, o);
    const SessionAnswer got = h.fetch(0, key, o);
    ASSERT_EQ(got.entries, want.entries)
        << "seed " << seed << " " << phase << " offset " << o << " key " << key_to_hex(key);
    ASSERT_EQ(got.uncertain, want.uncertain) << "seed " << seed << " " << phase << " offset " << o;
  }
}

TEST(ModelHistoryReplayTest, SessionStoreAnswersAsAReplayAtEveryOffset) {
  std::vector<SessionSpec> specs;
  for (const StoreBacking b : {StoreBacking::kInMemory, StoreBacking::kSegmented}) {
    for (const int64_t segment : {int64_t{1}, int64_t{7}, int64_t{25}}) {
      if (b == StoreBacking::kInMemory && segment != 1) continue;
      specs.push_back(SessionSpec{SessionAggregation::kLatest, 5, 0, 40, b, segment, false});
    }
  }
  for (size_t s = 0; s < specs.size(); ++s) {
    for (uint64_t trial = 0; trial < 12; ++trial) {
      const uint64_t seed = 50'000 + s * 1000 + trial;
      std::mt19937_64 rng(seed);
      const SessionSpec& spec = specs[s];
      std::vector<SessionOp> ops;
      std::vector<SessionOp> puts;  // for removes of sessions that exist (or existed)
      int64_t offset = 0;
      int64_t high = 0;
      for (int i = 0; i < 160; ++i) {
        if (pick(rng, 0, 3) != 0) offset += pick(rng, 1, 3);
        SessionOp op{SessionOpKind::kPut, offset, kKeys[static_cast<size_t>(pick(rng, 0, 3))], 0, 0,
                     std::nullopt};
        const int64_t r = pick(rng, 0, 99);
        if (spec.backing == StoreBacking::kSegmented && r < 4) {
          op.kind = SessionOpKind::kReopen;
          op.end_ms = pick(rng, 0, 1) == 0 ? -1 : pick(rng, 0, high);
        } else if (r < 25 && !puts.empty()) {
          op = puts[static_cast<size_t>(pick(rng, 0, static_cast<int64_t>(puts.size()) - 1))];
          op.kind = SessionOpKind::kRemove;
          op.offset = offset;
        } else {
          high += pick(rng, 0, 6);
          op.end_ms = std::max<int64_t>(0, high - (pick(rng, 0, 4) == 0 ? pick(rng, 0, 60) : 0));
          op.start_ms = op.end_ms - pick(rng, 0, 12);
          if (pick(rng, 0, 5) != 0) op.value = pick(rng, -50, 50);
          puts.push_back(op);
        }
        ops.push_back(op);
      }
      SessionHistory h(spec);
      const size_t half = ops.size() / 2;
      const std::vector<SessionOp> first(ops.begin(), ops.begin() + static_cast<ptrdiff_t>(half));
      for (const SessionOp& op : first) apply_session_op(h, op);
      expect_session_equal(h, spec, first, rng, seed, "half");
      for (size_t i = half; i < ops.size(); ++i) apply_session_op(h, ops[i]);
      expect_session_equal(h, spec, ops, rng, seed, "all");
      SessionHistory copy = h;
      std::vector<SessionOp> more = ops;
      for (int i = 0; i < 20; ++i) {
        const SessionOp op{SessionOpKind::kPut, ++offset,      kKeys[static_cast<size_t>(i % 4)],
                           1000 + 10 * i,       1000 + 10 * i, i};
        apply_session_op(copy, op);
        more.push_back(op);
      }
      expect_session_equal(copy, spec, more, rng, seed, "copy");
      expect_session_equal(h, spec, ops, rng, seed, "original after the copy's writes");
    }
  }
}

// ---- Versioned stores ----

// VersionedHistory::get finds the newest kept version without building the key's timeline:
// compared with a replay of the key's records into a timeline (the same timestamp replaces, a
// record older than stream time - history retention is dropped) at every offset.
TEST(ModelHistoryReplayTest, VersionedLatestAnswersAsAReplayAtEveryOffset) {
  for (uint64_t seed = 90'000; seed < 90'040; ++seed) {
    std::mt19937_64 rng(seed);
    const int64_t retention = pick(rng, 0, 30);
    VersionedHistory h(retention, pick(rng, 1, 20));
    std::vector<SourceRecord> records;
    int64_t high = 0;
    for (int64_t offset = 0; offset < 150; ++offset) {
      high += pick(rng, 0, 5);
      const int64_t ts = std::max<int64_t>(0, high - (pick(rng, 0, 3) == 0 ? pick(rng, 0, 50) : 0));
      const std::optional<int64_t> value =
          pick(rng, 0, 4) == 0 ? std::nullopt : std::optional(pick(rng, -9, 9));
      records.push_back(SourceRecord{offset, kKeys[static_cast<size_t>(pick(rng, 0, 3))], value, ts,
                                     value ? WriteKind::kPut : WriteKind::kTombstone});
      h.apply(0, records.back());
    }
    for (int64_t o = -1; o <= 150; ++o) {
      for (const KeyBytes& key : kKeys) {
        std::map<int64_t, std::optional<int64_t>> timeline;
        int64_t st = -1;
        for (const SourceRecord& r : records) {
          if (r.offset > o) break;
          if (r.timestamp_ms < saturating_minus(st, retention)) continue;  // beyond grace
          st = std::max(st, r.timestamp_ms);
          if (r.key == key) timeline[r.timestamp_ms] = r.value;
        }
        std::optional<Version> want;
        if (!timeline.empty() && timeline.rbegin()->second) {
          want = Version{*timeline.rbegin()->second, timeline.rbegin()->first, std::nullopt};
        }
        ASSERT_EQ(h.get(0, key, o), want) << "seed " << seed << " offset " << o;
        ASSERT_EQ(h.get_as_of(0, key, std::numeric_limits<int64_t>::max(), o), want)
            << "seed " << seed << " offset " << o;
      }
    }
  }
}

}  // namespace
}  // namespace iq::model
