#pragma once
// EventLoop: the only scheduler of the simulated world. Single-threaded, on virtual time.
//
// Every event has a virtual time and a sequence number, given when it is scheduled; the loop runs
// events in (time, sequence) order, so two events at the same time run in the order they were
// scheduled (FIFO). Running an event advances the virtual clock to the event's time (time never
// goes back) and then dispatches its handler through a boost::asio::io_context: the handler is
// posted to the io_context and the io_context is polled on this thread, so every handler (and every
// Asio completion) runs inside the io_context, as it would in an Asio program. Nothing ever waits
// on real time: when the next event is later than now, the clock jumps to it.
//
// Work must reach the io_context only through the loop (post, schedule_at): posting to
// io_context() directly would bypass the order and the digest, and the loop asserts that it never
// finds such work. (An Asio executor over the queue existed once; nothing used it, so it went.)
//
// Every dispatched event feeds a running Digest with (time, sequence, label): two runs that did the
// same things in the same order have equal digests. on_event() lets later code record the trace.
//
// Bounds (STYLE: everything bounded): the queue holds at most events_pending_max events (assert);
// each run_* call dispatches at most a given number of events and says so in its result when it
// stops on that budget, which is how a livelock shows up.
//
// Cost per event (docs/performance.md): the queue is a binary min-heap of (time, sequence, slot)
// over a slab of reusable slots holding the label and the handler, so scheduling an event
// allocates nothing once the slab and the heap have grown to the run's peak (a std::map allocated
// and rebalanced a node per event). A cancelled event's slot is freed at once and its handler
// destroyed at once, as before; its heap entry is left behind and skipped (its slot's sequence no
// longer matches) when it reaches the top, and the heap is compacted when such entries outnumber
// the live ones. The io_context runs with BOOST_ASIO_CONCURRENCY_HINT_UNSAFE: one thread ever
// touches it, so its scheduler needs no mutex. A label is copied into its slot's string, whose
// buffer is kept from event to event, and the posted handler's Asio operation lives in one
// reusable block (OpBlock), so a label the caller keeps and a handler cost no allocation of the
// loop's own per event (docs/performance.md, third pass).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "base/assert.h"
#include "base/digest.h"
#include "base/time.h"
#include "event_loop/unique_function.h"

namespace iq::sim {

// An event's handler: run once, when the event is dispatched.
using Handler = UniqueFunction<void()>;

// Names one scheduled event; valid() is false for the default value ("no event").
struct EventId {
  uint64_t seq = 0;
  base::Instant at;
  uint32_t slot = 0;  // where the loop keeps the pending event; meaningful only with its seq
  bool valid() const { return seq != 0; }
  friend bool operator==(const EventId&, const EventId&) = default;
};

// What the trace hook sees for each dispatched event, just before its handler runs. `label` is
// valid only during the call; copy it to keep it.
struct EventRecord {
  base::Instant at;
  uint64_t seq = 0;
  std::string_view label;
};

struct EventLoopLimits {
  uint64_t events_pending_max = 1'000'000;
  // The budget of run_until() and run_for() when the caller gives none.
  uint64_t events_per_run_max = 10'000'000;
};

enum class RunStop {
  kTimeReached,           // run_until: no event left at or before the bound; now() == the bound
  kQuiescent,             // run_until_quiescent: the queue is empty
  kEventBudgetExhausted,  // the run dispatched its budget of events and stopped (livelock?)
  kStopRequested,         // the stop check (set_stop_check) said stop after an event
};
const char* to_string(RunStop stop);

struct [[nodiscard]] RunResult {
  uint64_t events = 0;  // dispatched by this call
  RunStop stop = RunStop::kQuiescent;
};

class EventLoop {
 public:
  explicit EventLoop(EventLoopLimits limits = {});
  // Destroys the pending handlers one by one, so that a handler whose destruction schedules more
  // work (a coroutine frame owning a timer, which aborts its waits) finds the loop intact.
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // --- running -------------------------------------------------------------------------------
  // Dispatches every event with time <= until (including events those handlers schedule at or
  // before it), then sets the clock to `until`. until >= now().
  RunResult run_until(base::Instant until);
  RunResult run_until(base::Instant until, uint64_t events_max);
  RunResult run_for(base::Duration d) { return run_until(now_ + d); }
  // Dispatches events until none is left or events_max have run.
  RunResult run_until_quiescent(uint64_t events_max);
  // Dispatches the earliest event, if any; false when the queue is empty.
  bool step();
  // Asked after every event a run dispatches: true ends the run (kStopRequested), and every
  // later run at once. For bounds a scenario sets, which end the run rather than abort it.
  void set_stop_check(std::function<bool()> check) { stop_check_ = std::move(check); }

  // --- scheduling ----------------------------------------------------------------------------
  base::Instant now() const { return now_; }
  // at >= now(). Labels name what happens ("net:broker->instance-1:fetch"); they enter the digest.
  // The label is copied into the event's slot, whose buffer is reused from event to event: a
  // caller that keeps its labels (a member string, a literal) allocates nothing per event. The
  // two- and three-part forms schedule prefix + label (+ suffix) without building it first.
  EventId schedule_at(base::Instant at, std::string_view label, Handler handler);
  EventId schedule_at(base::Instant at, std::string_view label_prefix, std::string_view label,
                      Handler handler);
  EventId schedule_at(base::Instant at, std::string_view label_prefix, std::string_view label,
                      std::string_view label_suffix, Handler handler);
  EventId schedule_after(base::Duration d, std::string_view label, Handler handler);
  // At now(), after every event already queued for now().
  EventId post(std::string_view label, Handler handler);
  // True if the event was pending and now never runs; false if it already ran or was cancelled.
  bool cancel(EventId id);

  // --- observing -----------------------------------------------------------------------------
  const base::Digest& digest() const { return digest_; }
  void on_event(std::function<void(const EventRecord&)> hook) { on_event_ = std::move(hook); }
  uint64_t events_dispatched() const { return events_dispatched_; }
  size_t events_pending() const { return pending_; }
  // The time of the earliest pending event; Instant::max() when there is none.
  base::Instant next_event_time() const;
  const EventLoopLimits& limits() const { return limits_; }

  // The io_context every handler runs inside (tests look at it; nothing may post to it).
  boost::asio::io_context& io_context() { return io_; }

 private:
  // One heap entry: the event's (time, sequence) key and the slot holding it. An entry whose
  // slot's seq differs is stale (the event was cancelled, the slot maybe reused).
  struct HeapEntry {
    int64_t at_ms;
    uint64_t seq;
    uint32_t slot;
  };
  // Orders the heap so that its front is the least (time, sequence).
  struct Later {
    bool operator()(const HeapEntry& a, const HeapEntry& b) const {
      return a.at_ms != b.at_ms ? a.at_ms > b.at_ms : a.seq > b.seq;
    }
  };
  struct Slot {
    uint64_t seq = 0;  // 0: free
    // Kept when the slot is freed, until the slot is next used: the dispatch reads the label of
    // the event it just popped from here, and the buffer's capacity serves the next label.
    std::string label;
    Handler handler;
  };
  // What leaves the queue: the event's key, its slot (freed; its label stays readable until the
  // next schedule) and its handler, moved out of the slot.
  struct Popped {
    int64_t at_ms;
    uint64_t seq;
    uint32_t slot;
    Handler handler;
  };

  // The memory of the one Asio operation in flight (the posted handler): Asio allocates each
  // post's operation through the handler's associated allocator, and outside a running
  // io_context its default recycling cache is not reachable, so every event cost a malloc and a
  // free. One operation is in flight at a time (a post, then a poll that runs it), and Asio frees
  // it before the handler runs; a larger or second request falls back to the heap.
  class OpBlock {
   public:
    void* allocate(size_t bytes, size_t align);
    void deallocate(void* p);

   private:
    static constexpr size_t kBytes = 256;
    alignas(std::max_align_t) unsigned char block_[kBytes];
    bool in_use_ = false;
  };
  template <typename T>
  struct OpAllocator {
    using value_type = T;
    OpBlock* block;
    explicit OpAllocator(OpBlock* b) noexcept : block(b) {}
    template <typename U>
    OpAllocator(const OpAllocator<U>& other) noexcept : block(other.block) {}  // NOLINT
    T* allocate(size_t n) { return static_cast<T*>(block->allocate(n * sizeof(T), alignof(T))); }
    void deallocate(T* p, size_t /*n*/) { block->deallocate(p); }
    template <typename U>
    bool operator==(const OpAllocator<U>& other) const noexcept {
      return block == other.block;
    }
  };
  // The handler as posted: Asio finds the allocator through allocator_type and get_allocator().
  struct Posted {
    using allocator_type = OpAllocator<void>;
    Handler handler;
    OpBlock* block;
    allocator_type get_allocator() const noexcept { return allocator_type(block); }
    void operator()() { handler(); }
  };

  RunResult run(base::Instant until, bool stop_at_time, uint64_t events_max);
  void dispatch_earliest();
  Popped pop_earliest();
  void free_slot(uint32_t slot);
  // Takes a free slot (or makes one) for a new event with this sequence number.
  Slot& claim_slot(uint64_t seq, uint32_t* slot_out);
  EventId enqueue(base::Instant at, uint64_t seq, uint32_t slot);
  void drop_stale_top();
  void compact_if_stale();
  bool is_live(const HeapEntry& e) const { return slots_[e.slot].seq == e.seq; }

  EventLoopLimits limits_;
  // One thread, ours, ever runs or posts to it: no scheduler mutex needed.
  boost::asio::io_context io_{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE};
  // Invariant: heap_ is empty or its front is live, so the front is always the next event.
  std::vector<HeapEntry> heap_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  size_t pending_ = 0;  // live events: heap_ entries whose slot still holds them
  base::Instant now_ = base::Instant::epoch();
  uint64_t seq_next_ = 1;  // 0 is EventId{}, "no event"
  uint64_t events_dispatched_ = 0;
  bool dispatching_ = false;
  OpBlock op_block_;
  base::Digest digest_;
  std::function<bool()> stop_check_;
  std::function<void(const EventRecord&)> on_event_;
};

}  // namespace iq::sim
