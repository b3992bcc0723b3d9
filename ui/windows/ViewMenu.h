#pragma once
#include <QList>
#include <QMenu>
#include <functional>
#include <optional>

class QDockWidget;
class QStatusBar;

namespace torchir::ui {

class FindBar;
class GraphPanel;

/// The View menu: find and go to a node, the graph's zoom and modules, Q/DQ nodes as boxes, and
/// the docks; and the graph's export as SVG or PNG (File shows those).
class ViewMenu : public QMenu {
  Q_OBJECT

 public:
  /// `goToNode`: View › Go to Node…; `baseName`: the open program's file name without its
  /// extension, nullopt when none is open.
  ViewMenu(GraphPanel* graph, FindBar* find, const QList<QDockWidget*>& docks, std::function<void()> goToNode,
           std::function<std::optional<QString>()> baseName, QStatusBar* status, QWidget* parent);
  QAction* exportSvgAction() const { return m_exportSvg; }
  QAction* exportPngAction() const { return m_exportPng; }

 private:
  void exportGraph(const QString& format);

  GraphPanel* m_graph;
  std::function<std::optional<QString>()> m_baseName;
  QStatusBar* m_status;
  QAction* m_exportSvg = nullptr;
  QAction* m_exportPng = nullptr;
};

}  // namespace torchir::ui
