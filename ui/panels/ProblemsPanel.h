#pragma once
#include <QWidget>
#include <vector>

#include "check/ProgramCheck.h"

class QLabel;
class QTreeWidget;

namespace torchir::ui {

/// What would stop a run, found when the program opened (torchir check's list): severity, node,
/// kind and one line each. Activating a row selects its node.
class ProblemsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ProblemsPanel(QWidget* parent = nullptr);

  void setProblems(const std::vector<torchir::Problem>& problems);
  /// "Problems (2)", or "Problems" when there are none: the dock's title.
  QString title() const;
  int count() const;

 Q_SIGNALS:
  void nodeActivated(torchir::NodeId node);

 private:
  QTreeWidget* m_list = nullptr;
  QLabel* m_empty = nullptr;
};

}  // namespace torchir::ui
