#include "FindBar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

#include "graph/NodeFinder.h"

namespace torchir::ui {

FindBar::FindBar(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(4, 2, 4, 2);
  m_edit = new QLineEdit(this);
  m_edit->setObjectName(QStringLiteral("findEdit"));
  m_edit->setPlaceholderText(tr("Find node, op or module"));
  m_edit->setClearButtonEnabled(true);
  m_edit->installEventFilter(this);
  m_count = new QLabel(this);
  m_count->setMinimumWidth(m_count->fontMetrics().horizontalAdvance(QStringLiteral("00000 of 00000")));
  m_prev = new QToolButton(this);
  m_prev->setText(QStringLiteral("\u25b2"));
  m_prev->setToolTip(tr("Previous match (Shift+Enter)"));
  m_next = new QToolButton(this);
  m_next->setText(QStringLiteral("\u25bc"));
  m_next->setToolTip(tr("Next match (Enter)"));
  auto* close = new QToolButton(this);
  close->setText(QStringLiteral("\u2715"));
  close->setToolTip(tr("Close (Esc)"));
  row->addWidget(m_edit, 1);
  row->addWidget(m_count);
  row->addWidget(m_prev);
  row->addWidget(m_next);
  row->addWidget(close);

  connect(m_edit, &QLineEdit::textChanged, this, &FindBar::search);
  connect(m_prev, &QToolButton::clicked, this, &FindBar::findPrevious);
  connect(m_next, &QToolButton::clicked, this, &FindBar::findNext);
  connect(close, &QToolButton::clicked, this, &QWidget::hide);
  hide();
}

void FindBar::setProgram(LoadedProgramPtr program) {
  m_program = std::move(program);
  search();
}

void FindBar::activate() {
  show();
  m_edit->setFocus(Qt::ShortcutFocusReason);
  m_edit->selectAll();
}

NodeId FindBar::currentNode() const {
  return m_current >= 0 ? m_matches[static_cast<std::size_t>(m_current)] : kNone;
}

QString FindBar::countText() const { return m_count->text(); }

void FindBar::search() {
  m_matches = m_program ? findNodes(m_program->program, m_edit->text()) : std::vector<NodeId>{};
  m_current = m_matches.empty() ? -1 : 0;
  showCurrent();
}

void FindBar::findNext() { step(1); }
void FindBar::findPrevious() { step(-1); }

void FindBar::step(int delta) {
  if (m_matches.empty()) return;
  const int n = static_cast<int>(m_matches.size());
  m_current = ((m_current + delta) % n + n) % n;  // wraps both ways
  showCurrent();
}

void FindBar::showCurrent() {
  const bool any = !m_matches.empty();
  m_prev->setEnabled(any);
  m_next->setEnabled(any);
  if (m_edit->text().trimmed().isEmpty())
    m_count->clear();
  else if (!any)
    m_count->setText(tr("No matches"));
  else
    m_count->setText(tr("%1 of %2").arg(m_current + 1).arg(m_matches.size()));
  if (any) Q_EMIT nodeFound(currentNode());
}

bool FindBar::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_edit && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
      (key->modifiers() & Qt::ShiftModifier) ? findPrevious() : findNext();
      return true;
    }
    if (key->key() == Qt::Key_Escape) {
      hide();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace torchir::ui
