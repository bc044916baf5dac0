#include "workload/time_edges.h"

#include <algorithm>

#include "base/assert.h"

namespace iq::sim::time_edges {

namespace {

// How many of a key's newest records a query edge is drawn from: older versions and windows have
// mostly expired by the time a query asks, so the newest ones are where a bound meets data.
constexpr size_t kNewestRecords = 8;

// The smallest multiple of `step` at or above `t` (t >= 0, step > 0).
int64_t ceil_to_multiple(int64_t t, int64_t step) {
  IQ_ASSERT(t >= 0 && step > 0, "t {} step {}", t, step);
  return (t + step - 1) / step * step;
}

int64_t floor_to_multiple(int64_t t, int64_t step) {
  IQ_ASSERT(t >= 0 && step > 0, "t {} step {}", t, step);
  return t / step * step;
}

// One of the key's newest records' timestamps, or nullopt for a key never produced.
std::optional<int64_t> newest_timestamp(const std::vector<int64_t>& key_timestamps,
                                        base::Prng& prng) {
  if (key_timestamps.empty()) return std::nullopt;
  const size_t newest = std::min(key_timestamps.size(), kNewestRecords);
  return key_timestamps[key_timestamps.size() - 1 - prng.below(newest)];
}

// The window starts a record at `t` goes to run from here up to t (TimeWindows.windowsFor; the
// PAPI writer's one window at (t / size) * size).
int64_t window_step_ms(const TopologyConfig& t) {
  return t.kind == TopologyKind::WindowPapiWriter ? t.window_size_ms
                                                  : t.effective_window_advance_ms();
}

}  // namespace

std::optional<int64_t> grace_edge_ms(const TopologyConfig& t, int64_t stream_time_ms) {
  IQ_ASSERT(stream_time_ms >= 0, "stream time {}", stream_time_ms);
  std::optional<int64_t> edge;
  switch (t.kind) {
    case TopologyKind::WindowedCount:
    case TopologyKind::WindowedSum: {
      // Kept while its newest window ends after the close time (stream time - grace).
      const int64_t first_open_end = stream_time_ms - t.grace_ms + 1;
      const int64_t first_start = first_open_end - t.window_size_ms;
      if (first_start > 0) edge = ceil_to_multiple(first_start, t.effective_window_advance_ms());
      break;
    }
    case TopologyKind::WindowPapiWriter: {
      // The store drops a put at a window start <= its observed (newest window start) - retention.
      const int64_t newest_start = floor_to_multiple(stream_time_ms, t.window_size_ms);
      const int64_t first_start = newest_start - t.effective_window_retention_ms() + 1;
      if (first_start > 0) edge = ceil_to_multiple(first_start, t.window_size_ms);
      break;
    }
    case TopologyKind::SessionCount:
    case TopologyKind::SessionSum:
      // A lone session [t, t] is dropped when it ends before stream time - grace - gap.
      edge = stream_time_ms - t.grace_ms - t.session_gap_ms;
      break;
    case TopologyKind::SessionPapiWriter:
      // The store drops a session ending at or before stream time - retention.
      edge = stream_time_ms - t.effective_window_retention_ms() + 1;
      break;
    case TopologyKind::VersionedTable:
    case TopologyKind::VersionedPapiWriter:
      // The versioned store drops a put older than stream time - grace (= history retention).
      edge = stream_time_ms - t.history_retention_ms;
      break;
    default:
      break;
  }
  if (edge && *edge <= 0) return std::nullopt;
  IQ_ASSERT(!edge || *edge <= stream_time_ms, "edge {} above stream time {}", *edge,
            stream_time_ms);
  return edge;
}

std::vector<int64_t> window_query_edges(const TopologyConfig& t,
                                        const std::vector<int64_t>& key_timestamps,
                                        int64_t stream_time_ms, base::Prng& prng) {
  std::vector<int64_t> edges;
  if (!t.windowed()) return edges;
  const int64_t step = window_step_ms(t);
  if (std::optional<int64_t> ts = newest_timestamp(key_timestamps, prng)) {
    const int64_t newest_start = floor_to_multiple(*ts, step);
    const int64_t windows = t.kind == TopologyKind::WindowPapiWriter ? 1 : t.window_size_ms / step;
    const int64_t start = std::max<int64_t>(
        0, newest_start - step * static_cast<int64_t>(prng.below(static_cast<uint64_t>(windows))));
    edges.push_back(start);
    edges.push_back(start + t.window_size_ms);  // the window's end: the next tumbling one's start
  }
  // A fetch returns window starts above the store's observed stream time (its newest window
  // start) - retention.
  const int64_t floor_ms =
      floor_to_multiple(stream_time_ms, step) - t.effective_window_retention_ms() + 1;
  if (floor_ms > 0) edges.push_back(floor_ms);
  return edges;
}

std::vector<int64_t> versioned_query_edges(const TopologyConfig& t,
                                           const std::vector<int64_t>& key_timestamps,
                                           int64_t stream_time_ms, base::Prng& prng) {
  std::vector<int64_t> edges;
  if (!t.versioned()) return edges;
  if (std::optional<int64_t> ts = newest_timestamp(key_timestamps, prng)) edges.push_back(*ts);
  const int64_t retention_edge_ms = stream_time_ms - t.history_retention_ms;
  if (retention_edge_ms > 0) edges.push_back(retention_edge_ms);
  return edges;
}

int64_t near(base::Prng& prng, int64_t edge) {
  IQ_ASSERT(edge >= 0, "edge {}", edge);
  return std::max<int64_t>(0, edge - 1 + static_cast<int64_t>(prng.below(3)));
}

}  // namespace iq::sim::time_edges
