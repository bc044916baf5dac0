#pragma once
// ConstrainedPrioritySet (A/ConstrainedPrioritySet.java): clients ordered by a weight (a load)
// with the ProcessId as tie-break, and a poll that skips clients failing a constraint.
//
// Two details are Java's and are kept on purpose:
// - The weight is read when the heap compares, not when a client is offered (see
//   java_priority_queue.h for why the heap is Java's).
// - poll() puts the clients it skipped back in the iteration order of a java.util.HashSet, which
//   is what Kafka collects them in. java_hash_set_order() reproduces that order. The re-offer order
//   only shapes the heap, so it can change a result only while some client in the heap has a
//   stale load, which TaskMovement does for a moment.

#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "assignment/java_priority_queue.h"
#include "assignment/process_id.h"
#include "iq/task_id.h"

namespace iq {

class ConstrainedPrioritySet {
 public:
  using Constraint = std::function<bool(const ProcessId&, const TaskId&)>;
  using ExtraConstraint = std::function<bool(const ProcessId&)>;
  using Weight = std::function<double(const ProcessId&)>;

  ConstrainedPrioritySet(Constraint constraint, Weight weight);

  // The least loaded client that meets the constraint for `task` (and `extra`), removed from the
  // set; nullopt if none does. Skipped clients stay in the set.
  std::optional<ProcessId> poll(const TaskId& task, const ExtraConstraint& extra);
  std::optional<ProcessId> poll(const TaskId& task);

  // Adds a client, or re-positions it if it is already in the set (its weight may have changed).
  void offer(const ProcessId& client);
  template <typename Range>
  void offer_all(const Range& clients) {
    for (const ProcessId& client : clients) offer(client);
  }

 private:
  ProcessId poll_next_client();

  Constraint constraint_;
  JavaPriorityQueue<ProcessId> clients_by_task_load_;
  std::set<ProcessId> unique_clients_;  // membership only, as Kafka's HashSet is used
};

// The order in which a java.util.HashSet<ProcessId> with default capacity iterates after
// add()-ing `insertion_order` (duplicates ignored): buckets by spread hash code, insertion order
// within a bucket, tables doubling at load factor 0.75 and when a bucket reaches 9 entries in a
// table smaller than 64. A bucket Java turns into a tree (9 or more colliding clients in a table
// of 64 or more) keeps insertion order here; Java's would differ.
std::vector<ProcessId> java_hash_set_order(const std::vector<ProcessId>& insertion_order);

// Double.compare: what Comparator.comparing(weight) uses for a boxed Double.
int java_double_compare(double a, double b);

}  // namespace iq
