#pragma once
// The find bar over the graph: type to find nodes (NodeFinder), step through the matches.
// Hidden until activate(); Enter = next, Shift+Enter = previous, Esc hides.
#include <QWidget>
#include <vector>

#include "session/LoadedProgram.h"

class QLabel;
class QLineEdit;
class QToolButton;

namespace torchir::ui {

class FindBar : public QWidget {
  Q_OBJECT

 public:
  explicit FindBar(QWidget* parent = nullptr);

  void setProgram(torchir::ui::LoadedProgramPtr program);
  /// Shows the bar, focuses the query and selects it, so typing replaces it.
  void activate();

  void findNext();
  void findPrevious();

  int matchCount() const { return static_cast<int>(m_matches.size()); }
  int currentIndex() const { return m_current; }  // -1 when nothing matches
  torchir::NodeId currentNode() const;
  QLineEdit* lineEdit() const { return m_edit; }
  /// "3 of 17", "No matches", or empty for an empty query.
  QString countText() const;

 Q_SIGNALS:
  void nodeFound(torchir::NodeId node);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void search();
  void step(int delta);
  void showCurrent();

  QLineEdit* m_edit = nullptr;
  QLabel* m_count = nullptr;
  QToolButton* m_prev = nullptr;
  QToolButton* m_next = nullptr;
  LoadedProgramPtr m_program;
  std::vector<torchir::NodeId> m_matches;
  int m_current = -1;
};

}  // namespace torchir::ui
