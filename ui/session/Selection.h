#pragma once
// The one selected node of the window.
#include <QObject>
#include <cstddef>

#include "program/Ids.h"

namespace torchir::ui {

/// The node the user is looking at: the graph, the table and the docks show it, and the commands
/// on one node (Run to Selected, breakpoints, bookmarks, notes, repros) act on it. Every view reports
/// a choice here and follows changed(), so no two of them can disagree and none needs another's.
class Selection : public QObject {
  Q_OBJECT

 public:
  explicit Selection(QObject* parent = nullptr);

  /// kNone when nothing is selected.
  torchir::NodeId node() const { return m_node; }
  /// Another program, of `nodeCount` nodes, is shown: nothing is selected, since an id of the
  /// previous program means nothing in it.
  void reset(std::size_t nodeCount);
  /// Makes `node` the selected one. `origin` is the view it was chosen in, which shows it already;
  /// nullptr when no view chose it (a run stopped there, a bookmark). Selecting the selected node
  /// again is reported too: it may have run since, and the views show it anew. A node the program
  /// does not have (kNone included) leaves the selection as it is.
  void select(torchir::NodeId node, QObject* origin = nullptr);

  /// The selected node's data changed (a new run, a comparison made): shownAgain() tells the views
  /// of its data (the docks), while the views of the graph keep where they stand. Nothing when no
  /// node is selected.
  void showAgain();

  /// Takes the choices `view` reports with `chose`: each selects its node, with `view` as origin.
  template <class View>
  void takeFrom(View* view, void (View::*chose)(torchir::NodeId)) {
    connect(view, chose, this, [this, view](torchir::NodeId node) { select(node, view); });
  }

 Q_SIGNALS:
  /// `node` is kNone after reset().
  void changed(torchir::NodeId node, QObject* origin);
  /// The selected node is the same, what is known of it is not (showAgain()).
  void shownAgain(torchir::NodeId node);

 private:
  torchir::NodeId m_node = torchir::kNone;
  std::size_t m_nodeCount = 0;
};

}  // namespace torchir::ui
