#include "session/Annotations.h"

namespace torchir::ui {

Annotations::Annotations(ExecutionMarks& marks, QObject* parent) : QObject(parent), m_marks(marks) {}

void Annotations::reset(std::size_t nodes, std::size_t values) {
  m_nodes = nodes;
  m_values = values;
  m_marks.bookmarks.clear();
  m_marks.noted.clear();
  m_notes.clear();
  m_pinned.clear();
}

bool Annotations::toggleBookmark(torchir::NodeId node) {
  if (!validNode(node)) return false;
  if (!m_marks.bookmarks.erase(node)) {
    int slot = 1;
    while (slot <= 9 && bookmarkedNode(slot) != torchir::kNone) ++slot;
    if (slot > 9) return false;
    m_marks.bookmarks[node] = slot;
  }
  Q_EMIT marksChanged();
  return true;
}

torchir::NodeId Annotations::bookmarkedNode(int slot) const {
  for (const auto& [node, s] : m_marks.bookmarks)
    if (s == slot) return node;
  return torchir::kNone;
}

void Annotations::setNote(torchir::NodeId node, const QString& text) {
  if (!validNode(node)) return;
  if (text.trimmed().isEmpty()) {
    m_notes.erase(node);
    m_marks.noted.erase(node);
  } else {
    m_notes[node] = text;
    m_marks.noted.insert(node);
  }
  Q_EMIT marksChanged();
}

QString Annotations::note(torchir::NodeId node) const {
  const auto it = m_notes.find(node);
  return it == m_notes.end() ? QString() : it->second;
}

void Annotations::togglePin(torchir::ValueId value) {
  if (value < 0 || static_cast<std::size_t>(value) >= m_values) return;
  if (!m_pinned.erase(value)) m_pinned.insert(value);
}

}  // namespace torchir::ui
