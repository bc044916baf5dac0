#pragma once
// SimNetwork: the simulated network between named nodes ("broker", "instance-1", "client-0").
//
// A message is a label and a handler: send(from, to, label, on_delivery) runs on_delivery as an
// event on the EventLoop when the message arrives. Each directed link (from -> to) has its own
// LinkConfig: a delay drawn uniformly from [delay_ms_min, delay_ms_max] and a loss ratio.
//
// Choices, and why:
// - FIFO per link. Kafka's connections are TCP, so a link never reorders: a message's delivery time
//   is at least that of the previous message on the same link (ties keep send order through the
//   loop's sequence numbers). Different links are independent and may reorder freely.
// - Silent loss. A lost message, or one sent on a cut link, simply never arrives: the sender learns
//   nothing, as with a real network. Detecting it (timeouts, retries, session expiry) is the job of
//   the layers above, as in Kafka.
// - A cut kills what is in flight. cut(a, b) drops every message still in flight between a and b,
//   in both directions, like a TCP connection that breaks: healing later does not bring them back.
//   The endpoints of a broken connection learn that it broke (Kafka's NetworkClient sees the
//   disconnect and fails every request in flight on it); LinkStats::cuts counts the breaks, so a
//   requester that remembers the count at send time can tell that its answer will never come.
// - Randomness per link. Each directed link draws from its own Prng child, split from the network's
//   Prng by the name "from->to", and draws exactly two numbers per send (loss, then delay) whatever
//   the outcome; so traffic on one link, or a new node, never changes what another link draws.
// - Bounded: at most in_flight_per_link_max messages in flight per link (assert).
//
// isolate(node) cuts the node from every node registered so far; heal_node(node) heals them all;
// heal_all() heals every link. Delivery events are labelled "net:<from>-><to>:<label>", so they
// enter the loop's digest and trace. Destroying the network cancels the deliveries in flight.
//
// Lookups are on the hot path (every send, and every fetch and broker request asks is_cut() and
// stats() of its links), so besides the ordered map that owns the links (and fixes the order of
// every iteration) there is a table of link pointers indexed by node numbers, and a count of cut
// links that lets is_cut() answer without a lookup while nothing is cut (docs/performance.md).

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/prng.h"
#include "base/time.h"
#include "event_loop/event_loop.h"

namespace iq::sim {

struct LinkConfig {
  int64_t delay_ms_min = 1;
  int64_t delay_ms_max = 1;
  base::Ratio loss{0, 1};
  bool operator==(const LinkConfig&) const = default;
};

struct NetworkLimits {
  size_t in_flight_per_link_max = 10'000;
};

// What happened on one directed link. sent == delivered + dropped_loss + dropped_cut + in_flight.
struct LinkStats {
  uint64_t sent = 0;
  uint64_t delivered = 0;
  uint64_t dropped_loss = 0;
  uint64_t dropped_cut = 0;  // sent while cut, or in flight when cut
  uint64_t in_flight = 0;
  uint64_t cuts = 0;  // times the link went from up to cut: a connection over it broke
  friend bool operator==(const LinkStats&, const LinkStats&) = default;
};

class SimNetwork {
 public:
  // `prng` is the network's own child stream (world_prng.split("network")).
  SimNetwork(EventLoop& loop, base::Prng prng, LinkConfig default_link = {},
             NetworkLimits limits = {});
  ~SimNetwork();
  SimNetwork(const SimNetwork&) = delete;
  SimNetwork& operator=(const SimNetwork&) = delete;

  // A registered node's number (add_node order): the sends, cut checks and counts below that take
  // numbers instead of names skip the name lookups (a fetch's request and answer use them).
  using NodeId = uint32_t;
  NodeId node(std::string_view name) const;
  const std::string& node_name(NodeId id) const;

  // --- sending ---------------------------------------------------------------------------------
  // Delivers after the link's delay unless the message is lost or the link is cut (see above).
  void send(const std::string& from, const std::string& to, const std::string& label,
            Handler on_delivery);
  // The same between numbered nodes; the delivery's label is "net:<from>-><to>:" + label +
  // label_suffix (an answer's "-response" without building the string first).
  void send(NodeId from, NodeId to, std::string_view label, std::string_view label_suffix,
            Handler on_delivery);

  // --- topology and configuration --------------------------------------------------------------
  void add_node(const std::string& name);
  bool has_node(const std::string& name) const { return nodes_.contains(name); }
  const std::set<std::string>& nodes() const { return nodes_; }
  // One direction only; links not configured use the default given at construction.
  void set_link(const std::string& from, const std::string& to, LinkConfig config);
  const LinkConfig& link_config(const std::string& from, const std::string& to);

  // --- partitions (each acts on both directions) ------------------------------------------------
  void cut(const std::string& a, const std::string& b);
  void heal(const std::string& a, const std::string& b);
  void isolate(const std::string& node);
  void heal_node(const std::string& node);
  void heal_all();
  bool is_cut(const std::string& from, const std::string& to) const;
  bool is_cut(NodeId from, NodeId to) const;

  // --- observing -------------------------------------------------------------------------------
  LinkStats stats(const std::string& from, const std::string& to) const;
  // stats(a, b).cuts + stats(b, a).cuts, with one name lookup per node instead of two: every
  // consumer fetch and broker request asks it (BrokerService::link_cuts).
  uint64_t cuts_between(std::string_view a, std::string_view b) const;
  uint64_t cuts_between(NodeId a, NodeId b) const;
  LinkStats totals() const;

 private:
  using LinkKey = std::pair<std::string, std::string>;  // (from, to)
  using LinkView = std::pair<std::string_view, std::string_view>;
  // LinkKey's own order (from, then to, bytewise), also over views: looking a link up (several
  // times per message and per broker request) then copies no string (docs/performance.md).
  struct LinkLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return LinkView(a.first, a.second) < LinkView(b.first, b.second);
    }
  };
  // A message in flight: its delivery event and what runs at delivery. The event's own handler
  // only names the link (small enough to live inside the handler, no allocation); the message's
  // handler waits here, so it is not wrapped in a second one per message.
  struct InFlight {
    EventId id;
    Handler on_delivery;
  };
  struct Link {
    LinkConfig config;
    base::Prng prng;
    bool cut = false;
    base::Instant last_delivery_at;
    std::deque<InFlight> in_flight;  // in delivery order (FIFO)
    LinkStats stats;
    std::string label_prefix;  // "net:FROM->TO:", the start of every delivery's event label
  };

  Link& link(const std::string& from, const std::string& to);
  Link& link(NodeId from, NodeId to);
  void send_on(Link& l, std::string_view label, std::string_view label_suffix, Handler on_delivery);
  // Cancels every delivery in flight on the link, destroying each message's handler right after
  // its event (the order a cancel of a handler-owning event had).
  void drop_in_flight(Link& l);
  // Const, yet the link it finds is not: the table holds plain pointers into links_.
  Link* find_link(std::string_view from, std::string_view to) const;
  void index_link(const LinkKey& key, Link& l);
  void cut_one_way(const std::string& from, const std::string& to);
  void deliver(Link& l);
  static void check(const LinkConfig& config);

  EventLoop& loop_;
  base::Prng prng_;
  LinkConfig default_link_;
  NetworkLimits limits_;
  std::set<std::string> nodes_;
  // Created on first use; ordered, so iteration is deterministic.
  std::map<LinkKey, Link, LinkLess> links_;
  // Node number by name (numbered in add_node order), and the links by number: entry
  // from * node_ids_.size() + to points into links_ (map nodes never move), nullptr until used.
  // Node numbers by name, in add_node order (the number is the index). A linear search: a world
  // has a handful of nodes. Each name's length and last (up to) eight bytes form a key compared
  // first, so a search costs a few integer compares and one memcmp of the match, not a memcmp per
  // node ("instance-1" and "instance-2" share all but their last byte; docs/performance.md).
  std::vector<std::string> node_ids_;
  std::vector<std::pair<size_t, uint64_t>> node_keys_;  // (length, tail) per node number
  static uint64_t tail_key(std::string_view name);
  std::optional<uint32_t> node_id(std::string_view name) const;
  std::vector<Link*> link_table_;
  size_t links_cut_ = 0;  // links whose `cut` is set
};

}  // namespace iq::sim
