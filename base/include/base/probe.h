#pragma once
// Coverage probes ("sometimes" assertions, as FoundationDB's TEST() and Antithesis' sometimes):
// a named point that records it was reached. A probe never changes behaviour; it costs one
// thread-local load and, inside a run, one bit.
//
//   IQ_PROBE("lru.evicted", "an LRU store evicted its least recently used entry");
//
//   base::ProbeHits hits;                 // one run's hit set, owned by the run driver
//   { base::ProbeScope scope(hits); ... } // probes reached on this thread mark `hits`
//   hits.names();                         // the probes hit, sorted
//   base::ProbeRegistry::all();           // every probe in the binary, hit or not, by name
//
// Registration: each IQ_PROBE site instantiates ProbeSite<name, description>, whose static member
// registers the probe during static initialisation, so a probe that no run reaches is still
// listed. Two sites with the same name and description are one probe; the same name with another
// description is a programmer error (asserted at start-up).
//
// Determinism: there is no global hit state. Hits go to the ProbeHits of the innermost ProbeScope
// of the calling thread (none: dropped), so two runs in one process never see each other's hits,
// and the registry's index order (static-initialisation order) never reaches any output: names()
// sorts.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/assert.h"

namespace iq::base {

struct ProbeInfo {
  std::string_view name;         // short, dotted: "<area>.<event>"
  std::string_view description;  // one line
};

class ProbeRegistry {
 public:
  // Every registered probe, sorted by name.
  static std::vector<ProbeInfo> all() {
    std::vector<ProbeInfo> out = probes();
    std::sort(out.begin(), out.end(),
              [](const ProbeInfo& a, const ProbeInfo& b) { return a.name < b.name; });
    return out;
  }
  static size_t size() { return probes().size(); }
  static const ProbeInfo& at(size_t index) {
    IQ_ASSERT(index < probes().size(), "index={} size={}", index, probes().size());
    return probes()[index];
  }
  // Called once per probe, at static initialisation; returns the probe's index.
  static size_t add(ProbeInfo info) {
    IQ_ASSERT(!info.name.empty() && !info.description.empty());
    for (const ProbeInfo& p : probes()) {
      IQ_ASSERT(p.name != info.name, "probe '{}' declared twice: '{}' and '{}'", info.name,
                p.description, info.description);
    }
    probes().push_back(info);
    return probes().size() - 1;
  }

 private:
  // A function-local static: safe to use from other translation units' static initialisers.
  static std::vector<ProbeInfo>& probes() {
    static std::vector<ProbeInfo> registered;
    return registered;
  }
};

// One run's hit set.
class ProbeHits {
 public:
  void mark(size_t index) {
    if (index >= hit_.size()) hit_.resize(ProbeRegistry::size(), false);
    IQ_ASSERT(index < hit_.size(), "index={} size={}", index, hit_.size());
    hit_[index] = true;
  }
  bool hit(std::string_view name) const {
    for (size_t i = 0; i < hit_.size(); ++i) {
      if (hit_[i] && ProbeRegistry::at(i).name == name) return true;
    }
    return false;
  }
  // The names of the probes hit, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < hit_.size(); ++i) {
      if (hit_[i]) out.emplace_back(ProbeRegistry::at(i).name);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::vector<bool> hit_;  // by registry index; grows to the registry's size on the first hit
};

namespace probe_detail {
inline thread_local ProbeHits* current = nullptr;
}  // namespace probe_detail

// Directs this thread's probe hits to `hits` for the scope's lifetime; scopes nest.
class ProbeScope {
 public:
  explicit ProbeScope(ProbeHits& hits) : previous_(probe_detail::current) {
    probe_detail::current = &hits;
  }
  ~ProbeScope() { probe_detail::current = previous_; }
  ProbeScope(const ProbeScope&) = delete;
  ProbeScope& operator=(const ProbeScope&) = delete;

 private:
  ProbeHits* previous_;
};

inline void probe_hit(size_t index) {
  if (probe_detail::current != nullptr) probe_detail::current->mark(index);
}

// A string literal as a template argument (C++20), so each probe is its own instantiation.
template <size_t N>
struct ProbeLiteral {
  constexpr ProbeLiteral(const char (&text)[N]) {  // NOLINT: implicit on purpose
    std::copy_n(text, N, chars);
  }
  constexpr std::string_view view() const { return {chars, N - 1}; }
  char chars[N]{};
};

template <ProbeLiteral Name, ProbeLiteral Description>
struct ProbeSite {
  static inline const size_t index = ProbeRegistry::add({Name.view(), Description.view()});
};

}  // namespace iq::base

// IQ_PROBE("area.event", "one line on what was reached"): see the top of this file.
#define IQ_PROBE(name, description) \
  ::iq::base::probe_hit(::iq::base::ProbeSite<name, description>::index)
