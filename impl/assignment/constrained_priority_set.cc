#include "assignment/constrained_priority_set.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

#include "base/assert.h"

namespace iq {

ConstrainedPrioritySet::ConstrainedPrioritySet(Constraint constraint, Weight weight)
    : constraint_(std::move(constraint)),
      clients_by_task_load_([weight = std::move(weight)](const ProcessId& a, const ProcessId& b) {
        if (int c = java_double_compare(weight(a), weight(b)); c != 0) return c;
        const auto order = a <=> b;
        return order < 0 ? -1 : (order > 0 ? 1 : 0);
      }) {}

std::optional<ProcessId> ConstrainedPrioritySet::poll(const TaskId& task,
                                                      const ExtraConstraint& extra) {
  std::vector<ProcessId> invalid_polled_clients;
  // Bounded: each turn removes one client and nothing is added until the loop ends.
  while (!clients_by_task_load_.empty()) {
    const ProcessId candidate = poll_next_client();
    if (constraint_(candidate, task) && extra(candidate)) {
      offer_all(java_hash_set_order(invalid_polled_clients));
      return candidate;
    }
    invalid_polled_clients.push_back(candidate);
  }
  offer_all(java_hash_set_order(invalid_polled_clients));
  return std::nullopt;
}

std::optional<ProcessId> ConstrainedPrioritySet::poll(const TaskId& task) {
  return poll(task, [](const ProcessId&) { return true; });
}

void ConstrainedPrioritySet::offer(const ProcessId& client) {
  if (unique_clients_.contains(client)) {
    const bool removed = clients_by_task_load_.remove(client);
    IQ_ASSERT(removed, "client {} tracked but not queued", client.to_string());
  } else {
    unique_clients_.insert(client);
  }
  clients_by_task_load_.offer(client);
  IQ_ASSERT(clients_by_task_load_.size() == unique_clients_.size(), "queued={} tracked={}",
            clients_by_task_load_.size(), unique_clients_.size());
}

ProcessId ConstrainedPrioritySet::poll_next_client() {
  ProcessId client = clients_by_task_load_.poll();
  const size_t erased = unique_clients_.erase(client);
  IQ_ASSERT(erased == 1, "client {} queued but not tracked", client.to_string());
  return client;
}

std::vector<ProcessId> java_hash_set_order(const std::vector<ProcessId>& insertion_order) {
  // java.util.HashMap constants.
  constexpr size_t kInitialCapacity = 16;
  constexpr size_t kTreeifyThreshold = 8;
  constexpr size_t kMinTreeifyCapacity = 64;

  std::vector<std::vector<ProcessId>> table(kInitialCapacity);
  size_t threshold = kInitialCapacity * 3 / 4;
  size_t size = 0;

  const auto bucket_of = [](const ProcessId& id, size_t capacity) {
    const auto h = static_cast<uint32_t>(id.java_hash_code());
    return static_cast<size_t>(h ^ (h >> 16)) & (capacity - 1);
  };
  // HashMap.resize: double, and split each bucket keeping relative order.
  const auto resize = [&]() {
    std::vector<std::vector<ProcessId>> bigger(table.size() * 2);
    for (const auto& bucket : table) {
      for (const ProcessId& id : bucket) bigger[bucket_of(id, bigger.size())].push_back(id);
    }
    table = std::move(bigger);
    threshold *= 2;
  };

  for (const ProcessId& id : insertion_order) {
    auto& bucket = table[bucket_of(id, table.size())];
    bool present = false;
    for (const ProcessId& other : bucket) present = present || other == id;
    if (present) continue;
    bucket.push_back(id);
    // HashMap.putVal treeifies when a chain grows past 8; treeifyBin resizes instead below 64.
    if (bucket.size() > kTreeifyThreshold && table.size() < kMinTreeifyCapacity) resize();
    if (++size > threshold) resize();
  }

  std::vector<ProcessId> order;
  order.reserve(size);
  for (const auto& bucket : table) order.insert(order.end(), bucket.begin(), bucket.end());
  IQ_ASSERT(order.size() == size, "order={} size={}", order.size(), size);
  return order;
}

int java_double_compare(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  // Equal or unordered: Java orders by the raw bits (-0.0 < 0.0, NaN above everything, and all
  // NaNs equal).
  const auto bits = [](double d) {
    return std::isnan(d) ? INT64_C(0x7ff8000000000000) : std::bit_cast<int64_t>(d);
  };
  const int64_t x = bits(a);
  const int64_t y = bits(b);
  return x == y ? 0 : (x < y ? -1 : 1);
}

}  // namespace iq
