#pragma once
#include <QString>
#include <QWidget>

#include "exec/ExecTypes.h"
#include "program/Program.h"

class QLabel;
class QTreeView;

namespace torchir::ui {

class ArgumentsModel;

/// The selected node's call: its name, op and status, the schema it was called through, and its
/// arguments and outputs. Double-click or Enter on a tensor asks for it in the tensor viewer.
class ArgumentsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ArgumentsPanel(QWidget* parent = nullptr);

  void showNode(const torchir::Program& program, torchir::NodeId node, const torchir::NodeRecord* record,
                const torchir::Diagnosis* failure);
  void clear();

  ArgumentsModel* model() const { return m_model; }

 Q_SIGNALS:
  void tensorRequested(torchir::ValueId value, const QString& title);

 private:
  void activate(const QModelIndex& index);

  ArgumentsModel* m_model = nullptr;
  QLabel* m_title = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_schema = nullptr;
  QLabel* m_runsInPython = nullptr;
  QTreeView* m_view = nullptr;
  QString m_nodeName;
};

}  // namespace torchir::ui
