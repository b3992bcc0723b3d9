// `torchir layout FILE`: the layout the studio shows, as SVG, JSON geometry or DOT.
// Compiled into torchir_layout (not torchir_core) so the core stays free of Graphviz.
#include <fstream>
#include <iostream>
#include <sstream>

#include "Cli.h"
#include "layout/FlatDot.h"
#include "layout/LayoutEngine.h"
#include "layout/LayoutJson.h"
#include "layout/SvgWriter.h"
#include "program/EscapedText.h"
#include "formats/ProgramLoader.h"

namespace torchir::cli {

namespace {

/// `--expand all`, `--expand 2` (depth), `--expand layer1,layer2.0` or repeated; default: the
/// studio's first view.
bool foldFromArgs(const Args& args, const layout::ViewGraph& g, layout::FoldState* fold) {
  std::vector<std::string> paths;
  for (const auto& [k, v] : args.options) {
    if (k != "--expand") continue;
    if (v == "all") {
      *fold = layout::FoldState::all(g.program());
      return true;
    }
    if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos) {
      *fold = layout::FoldState::toDepth(g.program(), std::stoi(v));
      return true;
    }
    std::stringstream ss(v);
    for (std::string p; std::getline(ss, p, ',');)
      if (!p.empty()) paths.push_back(p);
  }
  if (paths.empty()) {
    *fold = layout::FoldState::initial(g);
    return true;
  }
  std::vector<std::string> unknown;
  *fold = layout::FoldState::paths(g.program(), paths, &unknown);
  for (const auto& u : unknown) std::cerr << "error: no module '" << u << "' in " << args.positional.front() << "\n";
  return unknown.empty();
}

}  // namespace

int layoutCommand(const Args& args) {
  const std::string format = args.option("--format", "svg");
  if (format != "svg" && format != "json" && format != "dot") {
    std::cerr << "error: --format must be svg, json or dot\n";
    return kBadInput;
  }
  const Program& program = loadForCommand(args.positional.front());
  layout::LayoutEngine engine(layout::fixedMetric);
  engine.setProgram(program);
  std::string text;
  if (format == "dot") {
    // A flat graph for plain dot: every op (and with --weights-as-nodes every FX node).
    text = layout::flatDot(engine.graph(), args.flag("--weights-as-nodes"));
  } else {
    layout::FoldState fold;
    if (!foldFromArgs(args, engine.graph(), &fold)) return kBadInput;
    const auto result = engine.layout(fold);
    // jsonText: a label holding bytes that are not UTF-8 is written with U+FFFD, not thrown on
    text = format == "svg" ? layout::layoutToSvg(*result) : jsonText(layout::layoutToJson(*result), 1) + "\n";
  }
  const std::string out = args.option("-o", args.option("--output"));
  if (out.empty() || out == "-") {
    std::cout << text;
    return kOk;
  }
  std::ofstream f(out, std::ios::binary);
  if (!(f << text)) {
    std::cerr << "error: cannot write " << out << "\n";
    return kBadInput;
  }
  return kOk;
}

}  // namespace torchir::cli
