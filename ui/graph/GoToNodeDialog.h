#pragma once
// "Go to node": a node name (completed as typed) or a row number of the FX table (node ids count
// from 0, as the table's rows do).
#include <QDialog>
#include <optional>

#include "program/Program.h"

class QLabel;
class QLineEdit;

namespace torchir::ui {

class GoToNodeDialog : public QDialog {
  Q_OBJECT

 public:
  GoToNodeDialog(const Program& program, QWidget* parent = nullptr);

  /// Runs the dialog; the chosen node, or nullopt when cancelled.
  static std::optional<NodeId> ask(QWidget* parent, const Program& program);

  /// The node `text` names: an exact node name, else a row number; kNone when neither.
  NodeId resolve(const QString& text) const;
  NodeId chosen() const { return m_chosen; }
  QLineEdit* lineEdit() const { return m_edit; }

 public Q_SLOTS:
  void accept() override;  // stays open, with a note, while the text names no node

 private:
  const Program& m_program;
  QLineEdit* m_edit = nullptr;
  QLabel* m_note = nullptr;
  NodeId m_chosen = kNone;
};

}  // namespace torchir::ui
