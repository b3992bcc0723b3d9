#pragma once
// What the user marks on a program that the run does not make: bookmarks, notes, pinned values.
#include <QObject>
#include <QString>
#include <cstddef>
#include <map>
#include <set>

#include "program/Ids.h"
#include "session/ExecutionMarks.h"

namespace torchir::ui {

/// The views draw bookmarks and notes from the run's marks, so they are kept there; the notes'
/// texts and the pinned values are kept here. All three belong to one program, go into captures
/// and come back with them.
class Annotations : public QObject {
  Q_OBJECT

 public:
  /// `marks`: the run's, which outlive this.
  Annotations(ExecutionMarks& marks, QObject* parent);

  /// Another program, of `nodes` nodes and `values` values: none.
  void reset(std::size_t nodes, std::size_t values);

  /// The node gets the first free slot of 1..9, or loses the one it has; false when all nine are
  /// taken (or the node is not the program's).
  bool toggleBookmark(torchir::NodeId node);
  /// The node in `slot`, else kNone.
  torchir::NodeId bookmarkedNode(int slot) const;
  /// A note on a node; empty text removes it.
  void setNote(torchir::NodeId node, const QString& text);
  QString note(torchir::NodeId node) const;
  /// Pinned values' tensors go into captures (and show when one is opened).
  void togglePin(torchir::ValueId value);
  const std::set<torchir::ValueId>& pinned() const { return m_pinned; }

  /// For the capture mapping, which writes them and puts an opened capture's in.
  std::map<torchir::NodeId, QString>& notes() { return m_notes; }
  std::set<torchir::ValueId>& pins() { return m_pinned; }

 Q_SIGNALS:
  /// A bookmark or a note: the marks changed.
  void marksChanged();

 private:
  bool validNode(torchir::NodeId node) const { return node >= 0 && static_cast<std::size_t>(node) < m_nodes; }

  ExecutionMarks& m_marks;
  std::size_t m_nodes = 0, m_values = 0;
  std::map<torchir::NodeId, QString> m_notes;
  std::set<torchir::ValueId> m_pinned;
};

}  // namespace torchir::ui
