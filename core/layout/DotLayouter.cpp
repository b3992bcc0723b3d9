#include "DotLayouter.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>

namespace torchir::layout {

namespace {

/// Graphviz keeps global state: the studio's layout thread and a report's export (another
/// thread) take turns through this.
std::mutex& graphvizMutex() {
  static std::mutex m;
  return m;
}

/// Graphviz's dot layout installed beside our binaries (the Python wheel's lib/, on their RUNPATH),
/// or null. A system Graphviz keeps its plugins in a folder of its own that the dynamic loader does
/// not search, so there this finds nothing.
gvplugin_library_t* dotLayoutBesideUs() {
  static gvplugin_library_t* const library = [] {
    void* plugin = dlopen("libgvplugin_dot_layout.so.6", RTLD_NOW | RTLD_LOCAL);
    return plugin ? static_cast<gvplugin_library_t*>(dlsym(plugin, "gvplugin_dot_layout_LTX_library")) : nullptr;
  }();
  return library;
}

/// With our own dot layout, a context of that plugin alone: Graphviz then reads no plugin config, so
/// a system Graphviz's plugins, linked against another copy of its libraries, are never loaded.
/// Without it, the system Graphviz's plugins as its config lists them.
GVC_t* newContext() {
  // Graphviz keeps a pointer to the list: it lives as long as the process.
  static const lt_symlist_t builtins[] = {{"gvplugin_dot_layout_LTX_library", dotLayoutBesideUs()},
                                          {nullptr, nullptr}};
  return builtins[0].address ? gvContextPlugins(builtins, 0) : gvContext();
}

}  // namespace

struct DotLayouter::Context {
  GVC_t* gvc = newContext();
  ~Context() { gvFreeContext(gvc); }
};

DotLayouter::DotLayouter() {
  const std::lock_guard<std::mutex> lock(graphvizMutex());
  m_ctx = std::make_unique<Context>();
  if (!m_ctx->gvc) throw std::runtime_error("Graphviz: cannot create a context");
}

DotLayouter::~DotLayouter() {
  const std::lock_guard<std::mutex> lock(graphvizMutex());
  m_ctx.reset();
}

namespace {

std::string inches(double points) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", points / 72.0);
  return buf;
}

/// Graphviz takes non-const char* everywhere.
char* c(const char* s) { return const_cast<char*>(s); }

}  // namespace

DotResult DotLayouter::layout(const DotGraph& in) {
  const std::lock_guard<std::mutex> lock(graphvizMutex());
  ++m_runs;
  DotResult out;
  if (in.nodes.empty()) return out;
  Agraph_t* g = agopen(c("level"), Agdirected, nullptr);
  agattr(g, AGRAPH, c("rankdir"), c("TB"));
  // The newer ranker works on a graph of its own. The old one leaves network simplex's marks on our
  // nodes, which Graphviz 2.42's wrapping one-byte component mark then takes for "visited" once
  // every ~255 searches: a crash in decompose() after about a hundred runs in one process.
  agattr(g, AGRAPH, c("newrank"), c("true"));
  // Plain splines read best; past a few hundred boxes their routing dominates dot's time, so big
  // levels (a flat program without modules) fall back to polylines.
  agattr(g, AGRAPH, c("splines"), c(in.nodes.size() > 400 ? "polyline" : "spline"));
  agattr(g, AGRAPH, c("nodesep"), c("0.25"));
  agattr(g, AGRAPH, c("ranksep"), c("0.35"));
  if (in.nodes.size() > 400) {
    // Bound the crossing minimisation and network simplex on big levels: good enough, and bounded.
    agattr(g, AGRAPH, c("mclimit"), c("0.3"));
    agattr(g, AGRAPH, c("nslimit"), c("2"));
    agattr(g, AGRAPH, c("nslimit1"), c("2"));
  }
  agattr(g, AGNODE, c("shape"), c("box"));
  agattr(g, AGNODE, c("fixedsize"), c("true"));
  agattr(g, AGNODE, c("label"), c(""));  // we draw labels ourselves: no font lookups in Graphviz
  Agsym_t* width = agattr(g, AGNODE, c("width"), c("0.5"));
  Agsym_t* height = agattr(g, AGNODE, c("height"), c("0.5"));
  agattr(g, AGEDGE, c("arrowsize"), c("0.7"));

  std::vector<Agnode_t*> nodes(in.nodes.size());
  for (std::size_t i = 0; i < in.nodes.size(); ++i) {
    const std::string name = "n" + std::to_string(i);
    nodes[i] = agnode(g, c(name.c_str()), 1);
    agxset(nodes[i], width, c(inches(in.nodes[i].w).c_str()));
    agxset(nodes[i], height, c(inches(in.nodes[i].h).c_str()));
  }
  auto rankGroup = [&](const char* name, const char* rank, const std::vector<int>& members) {
    if (members.empty()) return;
    Agraph_t* sg = agsubg(g, c(name), 1);
    agsafeset(sg, c("rank"), c(rank), c(""));
    for (int n : members) agsubnode(sg, nodes[static_cast<std::size_t>(n)], 1);
  };
  rankGroup("top", "min", in.top);
  rankGroup("bottom", "max", in.bottom);
  std::vector<Agedge_t*> edges(in.edges.size());
  for (std::size_t i = 0; i < in.edges.size(); ++i)
    edges[i] = agedge(g, nodes[static_cast<std::size_t>(in.edges[i].first)], nodes[static_cast<std::size_t>(in.edges[i].second)],
                      nullptr, 1);

  if (gvLayout(m_ctx->gvc, g, "dot") != 0) {
    agclose(g);
    throw std::runtime_error("Graphviz: dot layout failed");
  }
  const boxf bb = GD_bb(g);
  out.size = {bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y};
  auto flip = [&](pointf p) { return Point{p.x - bb.LL.x, bb.UR.y - p.y}; };
  out.centers.reserve(nodes.size());
  for (Agnode_t* n : nodes) out.centers.push_back(flip(ND_coord(n)));
  out.edges.resize(edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const splines* spl = ED_spl(edges[i]);
    if (!spl || spl->size == 0) continue;  // dot drops nothing here, but stay defensive
    DotEdge& e = out.edges[i];
    for (int b = 0; b < spl->size; ++b) {
      const bezier& bz = spl->list[b];
      for (int k = (b == 0 ? 0 : 1); k < bz.size; ++k) e.points.push_back(flip(bz.list[k]));
      if (b == spl->size - 1) {
        e.arrowBase = e.points.back();
        e.arrowTip = bz.eflag ? flip(bz.ep) : e.points.back();
      }
    }
  }
  gvFreeLayout(m_ctx->gvc, g);
  agclose(g);
  return out;
}

}  // namespace torchir::layout
