#include "GoToNodeDialog.h"

#include <QCompleter>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QStringList>
#include <QStringListModel>
#include <QVBoxLayout>

namespace torchir::ui {

GoToNodeDialog::GoToNodeDialog(const Program& program, QWidget* parent) : QDialog(parent), m_program(program) {
  setWindowTitle(tr("Go to Node"));
  auto* box = new QVBoxLayout(this);
  box->addWidget(new QLabel(tr("Node name or row number:"), this));
  m_edit = new QLineEdit(this);
  box->addWidget(m_edit);
  m_note = new QLabel(this);
  m_note->setStyleSheet(QStringLiteral("color: #b00020"));
  m_note->hide();
  box->addWidget(m_note);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  box->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &GoToNodeDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &GoToNodeDialog::reject);

  QStringList names;
  names.reserve(static_cast<int>(program.nodes.size()));
  for (const Node& n : program.nodes) names << QString::fromStdString(n.name);
  auto* completer = new QCompleter(new QStringListModel(names, this), this);
  completer->setCaseSensitivity(Qt::CaseInsensitive);
  completer->setFilterMode(Qt::MatchContains);
  m_edit->setCompleter(completer);
  connect(m_edit, &QLineEdit::textChanged, m_note, &QLabel::hide);
}

NodeId GoToNodeDialog::resolve(const QString& text) const {
  const QString t = text.trimmed();
  if (t.isEmpty()) return kNone;
  if (const auto n = m_program.findNode(t.toStdString())) return *n;
  bool number = false;
  const qlonglong row = t.toLongLong(&number);
  if (number && row >= 0 && row < static_cast<qlonglong>(m_program.nodes.size())) return static_cast<NodeId>(row);
  return kNone;
}

void GoToNodeDialog::accept() {
  m_chosen = resolve(m_edit->text());
  if (m_chosen == kNone) {
    m_note->setText(tr("No node is named \"%1\", and it is not a row number below %2.")
                        .arg(m_edit->text().trimmed())
                        .arg(m_program.nodes.size()));
    m_note->show();
    return;
  }
  QDialog::accept();
}

std::optional<NodeId> GoToNodeDialog::ask(QWidget* parent, const Program& program) {
  GoToNodeDialog dialog(program, parent);
  if (dialog.exec() != QDialog::Accepted) return std::nullopt;
  return dialog.chosen();
}

}  // namespace torchir::ui
