#include "session/Selection.h"

namespace torchir::ui {

Selection::Selection(QObject* parent) : QObject(parent) {}

void Selection::reset(std::size_t nodeCount) {
  m_nodeCount = nodeCount;
  m_node = torchir::kNone;
  Q_EMIT changed(m_node, nullptr);
}

void Selection::select(torchir::NodeId node, QObject* origin) {
  if (node < 0 || static_cast<std::size_t>(node) >= m_nodeCount) return;
  m_node = node;
  Q_EMIT changed(node, origin);
}

void Selection::showAgain() {
  if (m_node != torchir::kNone) Q_EMIT shownAgain(m_node);
}

}  // namespace torchir::ui
