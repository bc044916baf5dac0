#include "network/sim_network.h"

#include <algorithm>

namespace iq::sim {

SimNetwork::SimNetwork(EventLoop& loop, base::Prng prng, LinkConfig default_link,
                       NetworkLimits limits)
    : loop_(loop), prng_(prng), default_link_(default_link), limits_(limits) {
  check(default_link_);
  IQ_ASSERT(limits_.in_flight_per_link_max > 0);
}

SimNetwork::~SimNetwork() {
  for (auto& [key, l] : links_) {
    for (const EventId& id : l.in_flight) {
      loop_.cancel(id);
    }
  }
}

void SimNetwork::send(const std::string& from, const std::string& to, const std::string& label,
                      Handler on_delivery) {
  IQ_ASSERT(static_cast<bool>(on_delivery), "message '{}' {}->{} without a handler", label, from,
            to);
  Link& l = link(from, to);
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
  IQ_ASSERT(l.in_flight.size() < limits_.in_flight_per_link_max,
            "link {}->{}: {} messages in flight", from, to, l.in_flight.size());
  // FIFO: never before the previous delivery on this link.
  const base::Instant at =
      std::max(loop_.now() + base::Duration::millis(delay_ms), l.last_delivery_at);
  l.last_delivery_at = at;
  const EventId id =
      loop_.schedule_at(at, l.label_prefix, label,
                        [this, &l, h = std::move(on_delivery)]() mutable { deliver(l, h); });
  l.in_flight.push_back(id);
  ++l.stats.in_flight;
}

// The delivery event of the oldest message in flight on the link (FIFO makes it the front).
void SimNetwork::deliver(Link& l, Handler& on_delivery) {
  IQ_ASSERT(!l.in_flight.empty() && l.stats.in_flight == l.in_flight.size());
  IQ_ASSERT(l.in_flight.front().at == loop_.now(), "delivery out of FIFO order");
  IQ_ASSERT(!l.cut, "a delivery on a cut link: cut() should have cancelled it");
  l.in_flight.pop_front();
  --l.stats.in_flight;
  ++l.stats.delivered;
  on_delivery();
}

void SimNetwork::add_node(const std::string& name) {
  IQ_ASSERT(!name.empty());
  const bool inserted = nodes_.insert(name).second;
  IQ_ASSERT(inserted, "node '{}' added twice", name);
  // A new node widens the table: rebuild it from the links, which stay where they are.
  node_ids_.push_back(name);
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
  for (const EventId& id : l.in_flight) {
    const bool was_pending = loop_.cancel(id);
    IQ_ASSERT(was_pending, "link {}->{}: in-flight message already delivered", from, to);
    ++l.stats.dropped_cut;
  }
  l.in_flight.clear();
  l.stats.in_flight = 0;
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
  const size_t n = node_ids_.size();
  const Link* ab = link_table_[*ia * n + *ib];
  const Link* ba = link_table_[*ib * n + *ia];
  return (ab == nullptr ? 0 : ab->stats.cuts) + (ba == nullptr ? 0 : ba->stats.cuts);
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

// The link between two registered nodes, or nullptr when none was used yet (or a name is unknown).
SimNetwork::Link* SimNetwork::find_link(std::string_view from, std::string_view to) const {
  const std::optional<uint32_t> f = node_id(from);
  const std::optional<uint32_t> t = node_id(to);
  if (!f || !t) return nullptr;
  return link_table_[*f * node_ids_.size() + *t];
}

std::optional<uint32_t> SimNetwork::node_id(std::string_view name) const {
  for (size_t i = 0; i < node_ids_.size(); ++i) {
    if (node_ids_[i] == name) return static_cast<uint32_t>(i);
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
