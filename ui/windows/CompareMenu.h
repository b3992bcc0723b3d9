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
  CompareMenu(SessionController* session, QWidget* parent);

 Q_SIGNALS:
  /// Compare › Worst Nodes First: the table sorted by max rel, the worst first.
  void worstNodesRequested();

 private:
  void updateEnabled();
  void chooseFile(CompareRequest::Kind kind);
  void saveCsv();
  torchir::CompareStop chosenStop() const;

  SessionController* m_session;
  QList<QAction*> m_compareActions;
  QAction* m_save = nullptr;
  QAction* m_worst = nullptr;
  QAction* m_continue = nullptr;
  QAction* m_stopAtDivergence = nullptr;
  QAction* m_stopAtNonfinite = nullptr;
};

}  // namespace torchir::ui
