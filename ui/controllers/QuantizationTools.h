#pragma once
// Where quantization loses accuracy, in the studio: Keep in Float on the selected layer or its
// module, Compare › Layer Sensitivity with its bar chart (a dock beside the graph, the graph
// coloured by gain), and the output's SQNR before and after a change.
#include <QObject>
#include <optional>
#include <vector>

#include "program/Ids.h"

class QAction;
class QDockWidget;
class QMainWindow;
class QStatusBar;

namespace torchir::ui {

struct StudioContext;
class GraphPanel;
class Selection;
class SensitivityChart;
class SessionController;

class QuantizationTools : public QObject {
  Q_OBJECT

 public:
  QuantizationTools(const StudioContext& studio, GraphPanel* graph);

  QAction* keepInFloatAction() const { return m_keepNode; }
  QAction* keepModuleInFloatAction() const { return m_keepModule; }
  QAction* sensitivityAction() const { return m_sensitivity; }
  QDockWidget* dock() const { return m_dock; }

  /// The quantized layers Keep in Float acts on: the selected node when it is one; with
  /// `wholeModule`, those of the selected node's innermost module.
  std::vector<torchir::NodeId> layersToKeep(bool wholeModule) const;

 private:
  /// Compare › Layer Sensitivity: while the comparison is with the float program of a quantized
  /// one and nothing runs.
  bool canMeasureSensitivity() const;
  void measureSensitivity();
  void updateEnabled();
  void keep(bool wholeModule);
  void showComparison();
  void sayPending();

  SessionController* m_session;
  Selection* m_selection;
  GraphPanel* m_graph;
  QStatusBar* m_status;
  QAction* m_keepNode = nullptr;
  QAction* m_keepModule = nullptr;
  QAction* m_sensitivity = nullptr;
  QDockWidget* m_dock = nullptr;
  SensitivityChart* m_chart = nullptr;
  /// The output's SQNR when a keep-in-float change was asked for, and what was kept: said beside
  /// the new one when the comparison made again arrives.
  std::optional<double> m_sqnrBefore;
  QString m_kept;
  QString m_pending;  // what to say once the run rests
};

}  // namespace torchir::ui
