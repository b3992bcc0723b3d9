#pragma once
// The tensor dock: what its viewer waits for from the engine, and what it shows when it comes.
#include <QObject>
#include <QString>

#include "program/Ids.h"
#include "program/TensorData.h"

class QDockWidget;

namespace torchir::ui {

struct StudioContext;
class ArgumentsPanel;
class Selection;
class SessionController;
class TensorViewer;

/// Tensors come from the engine thread some time after they are asked for; by then the user may
/// have asked for another. The dock keeps the one ask it waits for (a value, or a compared node)
/// and drops every other answer, so the viewer shows what was asked last. It follows the
/// selection with the node's first output, as a watch would, and takes the tensors the arguments
/// panel asks for.
class TensorDock : public QObject {
  Q_OBJECT

 public:
  TensorDock(const StudioContext& studio, ArgumentsPanel* arguments, TensorViewer* viewer, QDockWidget* dock);

  /// A value of the run under `title`; the dock is raised.
  void requestValue(torchir::ValueId value, const QString& title);
  /// Tensors made outside the run (an edited call's trial), shown at once and raised; an answer
  /// still on its way is dropped.
  void show(const QString& title, const torchir::TensorData& tensor);
  void showCompared(const QString& title, const torchir::TensorData& run, const torchir::TensorData& reference,
                    const torchir::TensorData& difference);
  /// Another program: nothing shown, nothing awaited.
  void clear();

 private:
  /// The selected node's first output, once it has run; a compared node's beside the reference's
  /// and their difference. Only while the dock is on screen: a hidden viewer asks nothing.
  void followSelection();
  void forgetRequests();
  void onTensorReady(torchir::ValueId value, const torchir::TensorData& tensor);
  void onComparedReady(torchir::NodeId node, const torchir::TensorData& run, const torchir::TensorData& reference,
                       const torchir::TensorData& difference);

  SessionController* m_session;
  Selection* m_selection;
  TensorViewer* m_viewer;
  QDockWidget* m_dock;
  torchir::ValueId m_requestedTensor = torchir::kNone;
  torchir::NodeId m_requestedCompared = torchir::kNone;  // the compared node whose tensors the viewer waits for
  QString m_requestedTensorTitle;
};

}  // namespace torchir::ui
