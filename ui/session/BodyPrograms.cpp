#include "session/BodyPrograms.h"

#include <QFile>
#include <stdexcept>

#include "program/ModuleTree.h"

namespace torchir::ui {

LoadedProgramPtr bodyProgram(const torchir::DebugTarget& parent, torchir::NodeId node, torchir::BodyCalls calls) {
  const torchir::Program& p = *parent.program;
  const torchir::Node& n = p.node(node);
  const std::vector<std::size_t> graphs = torchir::subgraphsOf(p, n);
  std::optional<std::size_t> chosen;
  // where it failed (a while_loop's cond_fn, too), else the last graph argument that ran
  if (!calls.failure.empty() && !calls.calls.empty() && calls.calls.back().results.empty())
    chosen = calls.calls.back().subgraph;
  for (auto g = graphs.rbegin(); g != graphs.rend() && !chosen; ++g)
    for (const torchir::BodyCall& c : calls.calls)
      if (c.subgraph == *g) chosen = *g;
  if (!chosen)
    throw std::runtime_error(calls.failure.empty() ? "node '" + n.name + "' called none of its bodies"
                                                   : "node '" + n.name + "' failed before its body ran: " + calls.failure);
  auto origin = std::make_shared<BodyOrigin>();
  origin->node = QString::fromStdString(n.name);
  origin->graph = QString::fromStdString(p.subgraphs[*chosen].name);
  if (const auto n = calls.notKept.find(*chosen); n != calls.notKept.end()) origin->notKept = n->second;
  origin->failure = QString::fromStdString(calls.failure);
  for (torchir::BodyCall& c : calls.calls)
    if (c.subgraph == *chosen) origin->calls.push_back(std::move(c));

  auto loaded = std::make_shared<LoadedProgram>();
  loaded->request.path = QFile::decodeName(parent.path.c_str());
  loaded->program = *p.subgraphs[*chosen].graph;
  loaded->program.source = p.source;  // the body's file is its program's
  if (loaded->program.modules.empty()) torchir::buildModuleTree(loaded->program);  // what the views group nodes by
  loaded->body = std::move(origin);
  deriveViews(*loaded);
  return loaded;
}

}  // namespace torchir::ui
