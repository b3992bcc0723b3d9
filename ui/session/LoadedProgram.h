#pragma once
#include <QMetaType>
#include <QString>
#include <memory>
#include <vector>

#include "capture/CaptureFile.h"
#include "debug/Debugger.h"
#include "layout/ViewGraph.h"
#include "program/Program.h"
#include "formats/WeightsFile.h"
#include "session/FxCells.h"
#include "session/OpenRequest.h"

namespace torchir::ui {

/// A higher-order node's body shown in a window of its own: which node and subgraph it is, and the
/// calls of the body that the node's run made, each a run of the body on its own. Nothing of the
/// program around it is kept: its window may be closed first.
struct BodyOrigin {
  QString node, graph;                   // the higher-order node, the body's subgraph
  std::vector<torchir::BodyCall> calls;  // of this subgraph, its first ones, in the order they ran
  std::size_t notKept = 0;               // calls that ran but were not kept (memory)
  QString failure;                       // the node's run failed inside a body: libtorch's words
  /// "iteration 2 of map_impl's body_graph_0": the words for the inputs of `calls[call]`.
  QString callText(std::size_t call) const;
};

/// A program read off the GUI thread, together with what the views derive from it, which is
/// computed on the same thread so the GUI only ever receives finished data.
struct LoadedProgram {
  OpenRequest request;  // the files it was read from; request.path is the program itself
  torchir::Program program;
  FxCells fxCells;
  /// Its quantized layers (what Keep in Float acts on): finding them walks every node, which the
  /// GUI thread must not do at a step.
  std::vector<torchir::NodeId> quantizedLayers;
  /// The weights with no data, and those whose data has another dtype than the export's (what the
  /// load banner tells): each walks every weight, 70k of them in a 100k-node program.
  std::vector<std::string> missingData;
  std::vector<torchir::WeightOfOtherDtype> weightsOfOtherDtype;
  /// The graph the view draws with its default options, built beside the cells: the window lays
  /// the program out as soon as it has it (a 100k-node graph takes 130 ms to build).
  std::shared_ptr<const torchir::layout::ViewGraph> viewGraph;
  /// The capture the program was opened from (request.capturePath), else null.
  std::shared_ptr<const torchir::Capture> capture;
  /// Set when the program is a higher-order node's body, run on one of its calls.
  std::shared_ptr<const BodyOrigin> body;
};

/// What the views derive from `loaded.program` (the FX table's cells, the view graph, the quantized
/// layers, the weights' problems), made off the GUI thread: on the one that read it and beside it.
void deriveViews(LoadedProgram& loaded);

// Shared and const: handed across threads by signal, then read by several views.
using LoadedProgramPtr = std::shared_ptr<const LoadedProgram>;

/// What the debugger runs: the program, which the target keeps alive, and its files; a body's run
/// on its call `call`.
torchir::DebugTarget debugTarget(const LoadedProgramPtr& loaded, std::size_t call = 0);

}  // namespace torchir::ui

Q_DECLARE_METATYPE(torchir::ui::LoadedProgramPtr)
