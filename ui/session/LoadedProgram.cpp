#include "session/LoadedProgram.h"

#include <QFile>
#include <future>

#include "quant/KeepInFloat.h"
#include "program/FxTable.h"

namespace torchir::ui {

void deriveViews(LoadedProgram& loaded) {
  // The view graph is the longest of these (0.2 s at 100k nodes): it starts first, on a thread of
  // its own, and the smaller walks follow the cells (themselves made on two threads) beside it.
  auto graph = std::async(std::launch::async,
                          [&loaded] { return std::make_shared<const torchir::layout::ViewGraph>(loaded.program); });
  loaded.fxCells = fxCellsOf(loaded.program);
  loaded.quantizedLayers = torchir::quantizedLayers(loaded.program);
  loaded.missingData = loaded.program.missingData();
  loaded.weightsOfOtherDtype = torchir::weightsOfOtherDtype(loaded.program);
  loaded.viewGraph = graph.get();
}

QString BodyOrigin::callText(std::size_t call) const {
  return QStringLiteral("iteration %1 of %2's %3").arg(call < calls.size() ? calls[call].iteration : call).arg(node, graph);
}

torchir::DebugTarget debugTarget(const LoadedProgramPtr& loaded, std::size_t call) {
  auto path = [](const QString& p) { return QFile::encodeName(p).toStdString(); };
  torchir::DebugTarget t;
  t.program = std::shared_ptr<const torchir::Program>(loaded, &loaded->program);
  t.path = path(loaded->request.path);
  t.constantsPath = path(loaded->request.constantsPath);
  t.inputs.file = path(loaded->request.inputsPath);
  t.castWeights = loaded->request.castWeights;
  t.capture = loaded->capture;
  t.capturePath = path(loaded->request.capturePath);
  if (loaded->body && call < loaded->body->calls.size())
    torchir::runOnCall(t, loaded->body->calls[call], loaded->body->callText(call).toStdString());
  return t;
}

}  // namespace torchir::ui
