#include "network/sim_network.h"

#include <algorithm>
#include <cstring>

namespace iq::sim {

SimNetwork::SimNetwork(EventLoop& loop, base::Prng prng, LinkConfig default_link,
                       NetworkLimits limits)
    : loop_(loop), prng_(prng), default_link_(default_link), limits_(limits) {
  check(default_link_);
  IQ_ASSERT(limits_.in_flight_per_link_max > 0);
}

SimNetwork::~SimNetwork() {
  for (auto& [key, l] : links_) {
    for (InFlight& m : l.in_flight) {
      loop_.cancel(m.id);
      Handler dropped = std::move(m.on_delivery);
    }
  }
}

void SimNetwork::send(const std::string& from, const std::string& to, const std::string& label,
                      Handler on_delivery) {
  IQ_ASSERT(static_cast<bool>(on_delivery), "message '{}' {}->{} without a handler", label, from,
            to);
  send_on(link(from, to), label, {}, std::move(on_delivery));
}

void SimNetwork::send(NodeId from, NodeId to, std::string_view label, std::string_view label_suffix,
                      Handler on_delivery) {
  IQ_ASSERT(static_cast<bool>(on_delivery), "message '{}{}' {}->{} without a handler", label,
            label_suffix, from, to);
  send_on(link(from, to), label, label_suffix, std::move(on_delivery));
}

void SimNetwork::send_on(Link& l, std::string_view label, std::string_view label_suffix,
                         Handler on_delivery) {
  // Always both draws, whatever the outcome, so the link's stream stays aligned (see header).
  const bool lost = l.prng.chance(l.config.loss);
  const int64_t delay_ms = l.prng.range_inclusive(l.config.delay_ms_min, l.config.delay_ms_max);
  ++l.stats.sent;
  if (l.cut) {
    ++l.stats.dropped_cut;
    return;
  }
  if (lost) {
    ++l.stats.dropped_loss;
    return;
  }
  IQ_ASSERT(l.in_flight.size() < limits_.in_flight_per_link_max, "link {}{}: {} messages in flight",
            l.label_prefix, label, l.in_flight.size());
  // FIFO: never before the previous delivery on this link.
  const base::Instant at =
      std::max(loop_.now() + base::Duration::millis(delay_ms), l.last_delivery_at);
  l.last_delivery_at = at;
  const EventId id =
      loop_.schedule_at(at, l.label_prefix, label, label_suffix, [this, &l] { deliver(l); });
  l.in_flight.push_back(InFlight{id, std::move(on_delivery)});
  ++l.stats.in_flight;
}

// The delivery event of the oldest message in flight on the link (FIFO makes it the front).
void SimNetwork::deliver(Link& l) {
  IQ_ASSERT(!l.in_flight.empty() && l.stats.in_flight == l.in_flight.size());
  IQ_ASSERT(l.in_flight.front().id.at == loop_.now(), "delivery out of FIFO order");
  IQ_ASSERT(!l.cut, "a delivery on a cut link: cut() should have cancelled it");
  Handler on_delivery = std::move(l.in_flight.front().on_delivery);
  l.in_flight.pop_front();
  --l.stats.in_flight;
  ++l.stats.delivered;
  on_delivery();
}

void SimNetwork::drop_in_flight(Link& l) {
  for (InFlight& m : l.in_flight) {
    const bool was_pending = loop_.cancel(m.id);
    IQ_ASSERT(was_pending, "link {}: in-flight message already delivered", l.label_prefix);
    Handler dropped = std::move(m.on_delivery);
    ++l.stats.dropped_cut;
  }
  l.in_flight.clear();
  l.stats.in_flight = 0;
}

void SimNetwork::add_node(const std::string& name) {
  IQ_ASSERT(!name.empty());
  const bool inserted = nodes_.insert(name).second;
  IQ_ASSERT(inserted, "node '{}' added twice", name);
  // A new node widens the table: rebuild it from the links, which stay where they are.
  node_ids_.push_back(name);
  node_keys_.emplace_back(name.size(), tail_key(name));
  IQ_ASSERT(node_ids_.size() == nodes_.size());
  link_table_.assign(node_ids_.size() * node_ids_.size(), nullptr);
  for (auto& [key, l] : links_) index_link(key, l);
}

void SimNetwork::set_link(const std::string& from, const std::string& to, LinkConfig config) {
  check(config);
  link(from, to).config = config;
}

const LinkConfig& SimNetwork::link_config(const std::string& from, const std::string& to) {
  return link(from, to).config;
}

void SimNetwork::cut(const std::string& a, const std::string& b) {
  cut_one_way(a, b);
  cut_one_way(b, a);
}

// Marks the link cut (a break, if it was up) and drops what is in flight on it.
void SimNetwork::cut_one_way(const std::string& from, const std::string& to) {
  Link& l = link(from, to);
  if (!l.cut) {
    ++l.stats.cuts;  // cutting a cut link breaks nothing more
    ++links_cut_;
  }
  l.cut = true;
  drop_in_flight(l);
}

void SimNetwork::heal(const std::string& a, const std::string& b) {
  for (Link* l : {&link(a, b), &link(b, a)}) {
    if (l->cut) --links_cut_;
    l->cut = false;
  }
}

void SimNetwork::isolate(const std::string& node) {
  IQ_ASSERT(has_node(node), "unknown node '{}'", node);
  for (const std::string& other : nodes_) {
    if (other != node) {
      cut(node, other);
    }
  }
}

void SimNetwork::heal_node(const std::string& node) {
  IQ_ASSERT(has_node(node), "unknown node '{}'", node);
  for (const std::string& other : nodes_) {
    if (other != node) {
      heal(node, other);
    }
  }
}

void SimNetwork::heal_all() {
  for (auto& [key, l] : links_) {
    l.cut = false;
  }
  links_cut_ = 0;
}

bool SimNetwork::is_cut(NodeId from, NodeId to) const {
  if (links_cut_ == 0) return false;
  IQ_ASSERT(from < node_ids_.size() && to < node_ids_.size());
  const Link* l = link_table_[from * node_ids_.size() + to];
  return l != nullptr && l->cut;
}

bool SimNetwork::is_cut(const std::string& from, const std::string& to) const {
  if (links_cut_ == 0) return false;  // the usual case: nothing is cut anywhere
  const Link* l = find_link(from, to);
  return l != nullptr && l->cut;
}

LinkStats SimNetwork::stats(const std::string& from, const std::string& to) const {
  const Link* l = find_link(from, to);
  return l == nullptr ? LinkStats{} : l->stats;
}

uint64_t SimNetwork::cuts_between(std::string_view a, std::string_view b) const {
  const std::optional<uint32_t> ia = node_id(a);
  const std::optional<uint32_t> ib = node_id(b);
  if (!ia || !ib) return 0;
  return cuts_between(*ia, *ib);
}

uint64_t SimNetwork::cuts_between(NodeId a, NodeId b) const {
  const size_t n = node_ids_.size();
  IQ_ASSERT(a < n && b < n);
  const Link* ab = link_table_[a * n + b];
  const Link* ba = link_table_[b * n + a];
  return (ab == nullptr ? 0 : ab->stats.cuts) + (ba == nullptr ? 0 : ba->stats.cuts);
}

SimNetwork::NodeId SimNetwork::node(std::string_view name) const {
  const std::optional<uint32_t> id = node_id(name);
  IQ_ASSERT(id.has_value(), "unknown node '{}'", name);
  return *id;
}

const std::string& SimNetwork::node_name(NodeId id) const {
  IQ_ASSERT(id < node_ids_.size(), "unknown node number {}", id);
  return node_ids_[id];
}

LinkStats SimNetwork::totals() const {
  LinkStats t;
  for (const auto& [key, l] : links_) {
    t.sent += l.stats.sent;
    t.delivered += l.stats.delivered;
    t.dropped_loss += l.stats.dropped_loss;
    t.dropped_cut += l.stats.dropped_cut;
    t.in_flight += l.stats.in_flight;
    t.cuts += l.stats.cuts;
  }
  return t;
}

// The link's state, created with the default config and its own Prng child on first use.
SimNetwork::Link& SimNetwork::link(const std::string& from, const std::string& to) {
  // A link in the table joins two registered, different nodes: the checks below held when it was
  // made.
  if (Link* known = find_link(from, to)) return *known;
  IQ_ASSERT(has_node(from), "unknown node '{}'", from);
  IQ_ASSERT(has_node(to), "unknown node '{}'", to);
  IQ_ASSERT(from != to, "'{}' sends to itself: local calls do not cross the network", from);
  IQ_ASSERT(!links_.contains(LinkView{from, to}), "link {}->{} missing from the table", from, to);
  base::Prng link_prng = prng_.split(from + "->" + to);
  const auto it = links_
                      .emplace(LinkKey{from, to}, Link{default_link_,
                                                       link_prng,
                                                       false,
                                                       base::Instant::epoch(),
                                                       {},
                                                       LinkStats{},
                                                       "net:" + from + "->" + to + ":"})
                      .first;
  index_link(it->first, it->second);
  return it->second;
}

SimNetwork::Link& SimNetwork::link(NodeId from, NodeId to) {
  IQ_ASSERT(from < node_ids_.size() && to < node_ids_.size(), "unknown node number {} or {}", from,
            to);
  if (Link* known = link_table_[from * node_ids_.size() + to]) return *known;
  return link(node_ids_[from], node_ids_[to]);
}

// The link between two registered nodes, or nullptr when none was used yet (or a name is unknown).
SimNetwork::Link* SimNetwork::find_link(std::string_view from, std::string_view to) const {
  const std::optional<uint32_t> f = node_id(from);
  const std::optional<uint32_t> t = node_id(to);
  if (!f || !t) return nullptr;
  return link_table_[*f * node_ids_.size() + *t];
}

uint64_t SimNetwork::tail_key(std::string_view name) {
  uint64_t key = 0;
  const size_t n = std::min<size_t>(name.size(), sizeof(key));
  if (n == 0) return key;
  std::memcpy(&key, name.data() + name.size() - n, n);
  return key;
}

std::optional<uint32_t> SimNetwork::node_id(std::string_view name) const {
  const std::pair<size_t, uint64_t> key{name.size(), tail_key(name)};
  for (size_t i = 0; i < node_keys_.size(); ++i) {
    if (node_keys_[i] == key && node_ids_[i] == name) return static_cast<uint32_t>(i);
  }
  return std::nullopt;
}

void SimNetwork::index_link(const LinkKey& key, Link& l) {
  const std::optional<uint32_t> f = node_id(key.first);
  const std::optional<uint32_t> t = node_id(key.second);
  IQ_ASSERT(f && t, "link {}->{} between unknown nodes", key.first, key.second);
  link_table_[*f * node_ids_.size() + *t] = &l;
}

void SimNetwork::check(const LinkConfig& c) {
  IQ_ASSERT(0 <= c.delay_ms_min && c.delay_ms_min <= c.delay_ms_max, "delay [{}, {}] ms",
            c.delay_ms_min, c.delay_ms_max);
  IQ_ASSERT(c.loss.den > 0 && c.loss.num <= c.loss.den, "loss Ratio{{{}, {}}}", c.loss.num,
            c.loss.den);
}

}  // namespace iq::sim
