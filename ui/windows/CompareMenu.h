#pragma once
#include <QMenu>

#include "session/SessionController.h"

namespace torchir::ui {

/// The Compare menu: the run against its own float64 (or float32, float16, bfloat16) shadow, another
/// file (a second export of the model), or other weights; and the per-node table saved as CSV.
/// Each action is enabled while the session can take a comparison (or has one to save).
class CompareMenu : public QMenu {
  Q_OBJECT

 public:
  /// `sensitivity`: Compare › Layer Sensitivity (QuantizationTools's).
  CompareMenu(SessionController* session, QAction* sensitivity, QWidget* parent);
  /// The max relative difference past which a node diverges in the next comparison; 0 (or less):
  /// by the run's dtype. Compare › Tolerance… asks for it.
  void setTolerance(double tolerance);
  double tolerance() const { return m_toleranceValue; }
  /// Export Comparison Report… (File shows it too).
  QAction* reportAction() const { return m_report; }

 Q_SIGNALS:
  /// Compare › Worst Nodes First: the table sorted by max rel, the worst first.
  void worstNodesRequested();
  /// Export Comparison Report wrote `path`.
  void reportExported(const QString& path);

 private:
  void updateEnabled();
  void chooseFile(CompareRequest::Kind kind, bool floatProgram = false);
  void saveCsv();
  void exportReport();
  torchir::CompareStop chosenStop() const;
  /// The request for `kind` with the chosen stop and tolerance.
  CompareRequest request(CompareRequest::Kind kind, torchir::DType dtype = torchir::DType::Float64,
                         const QString& path = {}) const;
  void chooseTolerance();

  SessionController* m_session;
  QList<QAction*> m_compareActions;
  QAction* m_save = nullptr;
  QAction* m_report = nullptr;
  QAction* m_worst = nullptr;
  QAction* m_continue = nullptr;
  QAction* m_stopAtDivergence = nullptr;
  QAction* m_stopAtNonfinite = nullptr;
  QAction* m_tolerance = nullptr;
  double m_toleranceValue = 0;  // 0: by the run's dtype
};

}  // namespace torchir::ui
