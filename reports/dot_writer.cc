#include "dot_writer.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "base/assert.h"

// Graphviz 2.42 (Debian bookworm) leaks in its dot layout plugin (virtual and auxiliary edges of
// every layout) and through pango/fontconfig's font caches; none of it is ours to free. The
// sanitizer runtime asks every linked binary for extra suppressions through this hook, so any
// binary that renders graphs carries them, however it is started. Stacks of these leaks are two
// frames deep under the default fast unwinder, hence suppression by library.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libgvc.so\n"
         "leak:libgvplugin_dot_layout.so\n"
         "leak:libgvplugin_pango.so\n"
         "leak:libfontconfig.so\n"
         "leak:libpango\n"
         "leak:libcairo.so\n"
         "leak:libglib-2.0.so\n";
}
#endif

namespace iq::reports {

namespace {

std::string attrs_text(const DotAttrs& attrs) {
  std::string out;
  for (const auto& [key, value] : attrs) {
    out += (out.empty() ? "" : ", ") + key + "=" + dot_quote(value);
  }
  return out;
}

// cgraph's default ID discipline uses the address of each interned name as the object's ID, and
// orders subgraphs by ID, so clusters came out in malloc order: the same DOT gave differently
// ordered SVG. This discipline hands out IDs in order of first mention instead (even for named
// objects, odd for anonymous ones, as cgraph expects), which makes the output a function of the
// DOT text alone.
struct SequentialIds {
  std::map<std::string, IDTYPE, std::less<>> ids;
  std::vector<std::unique_ptr<std::string>> names;  // names[id / 2 - 1]; stable addresses
  IDTYPE anonymous = 1;
};

void* ids_open(Agraph_t*, Agdisc_t*) {
  return new SequentialIds();
}

long ids_map(void* state, int, char* str, IDTYPE* id, int createflag) {
  auto* s = static_cast<SequentialIds*>(state);
  if (str == nullptr) {
    *id = s->anonymous;
    s->anonymous += 2;
    return 1;
  }
  auto it = s->ids.find(std::string_view(str));
  if (it != s->ids.end()) {
    *id = it->second;
    return 1;
  }
  if (createflag == 0) return 0;
  s->names.push_back(std::make_unique<std::string>(str));
  *id = static_cast<IDTYPE>(2 * s->names.size());
  s->ids.emplace(*s->names.back(), *id);
  return 1;
}

long ids_alloc(void*, int, IDTYPE) {
  return 0;
}
void ids_free(void*, int, IDTYPE) {}

char* ids_print(void* state, int, IDTYPE id) {
  auto* s = static_cast<SequentialIds*>(state);
  if (id % 2 != 0 || id == 0 || id / 2 > s->names.size()) return nullptr;
  return s->names[id / 2 - 1]->data();
}

void ids_close(void* state) {
  delete static_cast<SequentialIds*>(state);
}
void ids_register(void*, int, void*) {}

Agiddisc_t sequential_id_disc = {ids_open,  ids_map,   ids_alloc,   ids_free,
                                 ids_print, ids_close, ids_register};

// Reads DOT text with the sequential ID discipline (agmemread would use the default one).
Agraph_t* read_graph(const std::string& dot) {
  FILE* in = fmemopen(const_cast<char*>(dot.data()), dot.size(), "r");
  if (in == nullptr) return nullptr;
  Agdisc_t disc = {&AgMemDisc, &sequential_id_disc, &AgIoDisc};
  Agraph_t* graph = agread(in, &disc);
  std::fclose(in);
  return graph;
}

// libgvc keeps global state (plugin registry, error callbacks): one render at a time.
std::mutex& gvc_mutex() {
  static std::mutex m;
  return m;
}

// One context for the life of the process, never freed. Graphviz 2.42's pango plugin caches a
// pointer to the last font name it measured, and that string belongs to the context's font
// table: after gvFreeContext the next context's first label compares against freed memory
// (AddressSanitizer caught it in reports_test). Keeping the context alive keeps the string alive.
// Caller holds gvc_mutex().
GVC_t* process_gvc() {
  static GVC_t* gvc = gvContext();
  return gvc;
}

}  // namespace

std::string dot_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        break;
      default:
        // Control characters mean nothing in a label; a space keeps the layout's widths sane.
        out += (static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
    }
  }
  return out + "\"";
}

DotWriter::DotWriter(std::string name, DotCaps caps) : name_(std::move(name)), caps_(caps) {
  IQ_ASSERT(caps_.nodes_max > 0 && caps_.bytes_max > 0, "empty DOT caps");
}

void DotWriter::graph_attr(const std::string& key, const std::string& value) {
  head_ += "  " + key + "=" + dot_quote(value) + ";\n";
}

void DotWriter::node_defaults(const DotAttrs& attrs) {
  head_ += "  node [" + attrs_text(attrs) + "];\n";
}

bool DotWriter::room_for(size_t bytes, const char* what) {
  if (head_.size() + body_.size() + bytes <= caps_.bytes_max) return true;
  std::string note = fmt::format("DOT text reached its cap of {} bytes: further {} left out",
                                 caps_.bytes_max, what);
  if (cut_notes_.empty() || cut_notes_.back() != note) cut_notes_.push_back(note);
  return false;
}

bool DotWriter::node(const std::string& id, const std::string& label, const DotAttrs& attrs) {
  if (nodes_ >= caps_.nodes_max) {
    if (refused_nodes_++ == 0) {
      cut_notes_.push_back(
          fmt::format("node cap of {} reached: further nodes left out", caps_.nodes_max));
    }
    return false;
  }
  DotAttrs all = attrs;
  all.insert(all.begin(), {"label", label});
  std::string line = std::string(static_cast<size_t>(2 + 2 * depth_), ' ') + dot_quote(id) + " [" +
                     attrs_text(all) + "];\n";
  if (!room_for(line.size(), "nodes and edges")) return false;
  body_ += line;
  ++nodes_;
  return true;
}

bool DotWriter::edge(const std::string& from, const std::string& to, const DotAttrs& attrs) {
  if (edges_ >= caps_.edges_max) {
    if (refused_edges_++ == 0) {
      cut_notes_.push_back(
          fmt::format("edge cap of {} reached: further edges left out", caps_.edges_max));
    }
    return false;
  }
  std::string line = std::string(static_cast<size_t>(2 + 2 * depth_), ' ') + dot_quote(from) +
                     " -> " + dot_quote(to) +
                     (attrs.empty() ? "" : " [" + attrs_text(attrs) + "]") + ";\n";
  if (!room_for(line.size(), "nodes and edges")) return false;
  body_ += line;
  ++edges_;
  return true;
}

void DotWriter::begin_cluster(const std::string& id, const std::string& label,
                              const DotAttrs& attrs) {
  IQ_ASSERT(depth_ < 8, "clusters nested deeper than 8");
  std::string indent(static_cast<size_t>(2 + 2 * depth_), ' ');
  // Cluster braces are always written (even past the byte cap) so the text stays a valid graph;
  // they are small and bounded by the node cap's callers.
  body_ += indent + "subgraph " + dot_quote("cluster_" + id) + " {\n" + indent +
           "  label=" + dot_quote(label) + ";\n";
  for (const auto& [key, value] : attrs)
    body_ += indent + "  " + key + "=" + dot_quote(value) + ";\n";
  ++depth_;
}

void DotWriter::end_cluster() {
  IQ_ASSERT(depth_ > 0, "end_cluster without begin_cluster");
  --depth_;
  body_ += std::string(static_cast<size_t>(2 + 2 * depth_), ' ') + "}\n";
}

std::string DotWriter::str() const {
  IQ_ASSERT(depth_ == 0, "{} clusters left open", depth_);
  return "digraph " + dot_quote(name_) + " {\n" + head_ + body_ + "}\n";
}

base::Expected<std::string, std::string> render_dot_to_svg(const std::string& dot,
                                                           const LayoutCaps& layout) {
  std::lock_guard<std::mutex> lock(gvc_mutex());
  GVC_t* gvc = process_gvc();
  if (gvc == nullptr) return base::unexpected(std::string("gvContext() failed"));
  Agraph_t* graph = read_graph(dot);
  if (graph == nullptr) {
    return base::unexpected(std::string("Graphviz could not parse the DOT text"));
  }
  // Bounded layout work: these attributes cap the iterations of dot's phases.
  agsafeset(graph, const_cast<char*>("nslimit"),
            const_cast<char*>(fmt::format("{}", layout.nslimit).c_str()), const_cast<char*>(""));
  agsafeset(graph, const_cast<char*>("nslimit1"),
            const_cast<char*>(fmt::format("{}", layout.nslimit).c_str()), const_cast<char*>(""));
  agsafeset(graph, const_cast<char*>("mclimit"),
            const_cast<char*>(fmt::format("{}", layout.mclimit).c_str()), const_cast<char*>(""));
  agsafeset(graph, const_cast<char*>("searchsize"),
            const_cast<char*>(std::to_string(layout.searchsize).c_str()), const_cast<char*>(""));
  std::string svg;
  std::string error;
  if (gvLayout(gvc, graph, "dot") != 0) {
    error = "Graphviz layout failed";
  } else {
    char* data = nullptr;
    size_t length = 0;
    unsigned int length_u = 0;
    if (gvRenderData(gvc, graph, "svg", &data, &length_u) != 0 || data == nullptr) {
      error = "Graphviz SVG rendering failed";
    } else {
      length = length_u;
      svg.assign(data, length);
    }
    if (data != nullptr) gvFreeRenderData(data);
    gvFreeLayout(gvc, graph);
  }
  agclose(graph);
  if (!error.empty()) return base::unexpected(error);
  // Inline SVG inside HTML needs no prolog or DOCTYPE: start at the <svg element.
  size_t start = svg.find("<svg");
  if (start == std::string::npos) return base::unexpected(std::string("no <svg> in the output"));
  return svg.substr(start);
}

RenderedGraph render_graph(const DotWriter& dot, const LayoutCaps& layout) {
  RenderedGraph out;
  out.cut_notes = dot.cut_notes();
  auto svg = render_dot_to_svg(dot.str(), layout);
  if (svg) {
    out.svg = std::move(svg).value();
  } else {
    out.error = svg.error();
  }
  return out;
}

}  // namespace iq::reports
