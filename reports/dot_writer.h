#pragma once
// DotWriter: Graphviz DOT text with a stable order and hard caps, and render_svg(): DOT laid out
// with "dot" and rendered to SVG in-process through libgvc.
//
//   DotWriter dot("placement", {.nodes_max = 200});
//   dot.node("i1", "instance-1", {{"color", "blue"}});
//   dot.edge("i1", "i2", {{"label", "P0 active"}});
//   RenderedGraph g = render_graph(dot);   // g.svg (inline-able <svg>), g.cut_notes
//
// Nodes and edges are written in the order they are added (callers add them in a defined order),
// never in hash order, so the same run always gives the same text. What a cap cut is kept in
// cut_notes(), and the report says it on the page.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/expected.h"

namespace iq::reports {

struct DotCaps {
  size_t nodes_max = 300;
  size_t edges_max = 600;
  size_t bytes_max = 256 * 1024;  // of DOT text
};

using DotAttrs = std::vector<std::pair<std::string, std::string>>;

class DotWriter {
 public:
  DotWriter(std::string name, DotCaps caps);

  // Graph-wide attributes (rankdir, fontname, ...), written first.
  void graph_attr(const std::string& key, const std::string& value);
  void node_defaults(const DotAttrs& attrs);
  // Returns false (and notes the cut) when a cap refused it.
  bool node(const std::string& id, const std::string& label, const DotAttrs& attrs = {});
  bool edge(const std::string& from, const std::string& to, const DotAttrs& attrs = {});
  // A cluster subgraph; nodes added until end_cluster() belong to it.
  void begin_cluster(const std::string& id, const std::string& label, const DotAttrs& attrs = {});
  void end_cluster();

  std::string str() const;  // the whole graph
  size_t nodes() const { return nodes_; }
  size_t edges() const { return edges_; }
  bool cut() const { return !cut_notes_.empty(); }
  const std::vector<std::string>& cut_notes() const { return cut_notes_; }

 private:
  bool room_for(size_t bytes, const char* what);

  std::string name_;
  DotCaps caps_;
  std::string head_;  // graph attributes and defaults
  std::string body_;
  int32_t depth_ = 0;  // open clusters
  size_t nodes_ = 0;
  size_t edges_ = 0;
  size_t refused_nodes_ = 0;
  size_t refused_edges_ = 0;
  std::vector<std::string> cut_notes_;
};

// A DOT string literal: quoted, with quotes, backslashes and newlines escaped ("\n" becomes a
// centred line break).
std::string dot_quote(std::string_view text);

// Bounds on the layout work libgvc may do, passed as graph attributes (Graphviz has no time
// limit; these bound the iterations of network simplex and crossing minimisation instead).
struct LayoutCaps {
  double nslimit = 2.0;  // network simplex iterations, times the number of nodes
  double mclimit = 0.5;  // crossing minimisation passes, scaled
  int32_t searchsize = 30;
};

struct RenderedGraph {
  std::string svg;                     // an <svg> element, no XML prolog; empty on error
  std::vector<std::string> cut_notes;  // what the caps cut, for the page
  std::string error;                   // why nothing was rendered, if so
};

// Lays out with "dot" and renders SVG through libgvc (one process-wide gvContext, agread with a
// deterministic ID discipline in place of agmemread, gvLayout, gvRenderData). Serialised by a
// mutex: libgvc keeps global state.
RenderedGraph render_graph(const DotWriter& dot, const LayoutCaps& layout = {});
base::Expected<std::string, std::string> render_dot_to_svg(const std::string& dot,
                                                           const LayoutCaps& layout = {});

}  // namespace iq::reports
