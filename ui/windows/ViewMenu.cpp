#include "windows/ViewMenu.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QKeySequence>
#include <QStatusBar>

#include "graph/FindBar.h"
#include "graph/GraphPanel.h"

namespace torchir::ui {

ViewMenu::ViewMenu(GraphPanel* graph, FindBar* find, const QList<QDockWidget*>& docks, std::function<void()> goToNode,
                   std::function<std::optional<QString>()> baseName, QStatusBar* status, QWidget* parent)
    : QMenu(tr("&View"), parent), m_graph(graph), m_baseName(std::move(baseName)), m_status(status) {
  addAction(tr("&Find Node…"), find, &FindBar::activate)->setShortcut(QKeySequence::Find);
  addAction(tr("&Go to Node…"), this, std::move(goToNode))->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
  addSeparator();
  addAction(tr("&Fit to Window"), QKeySequence(Qt::CTRL | Qt::Key_0), graph, &GraphPanel::fitToWindow);
  addAction(tr("Zoom &In"), QKeySequence::ZoomIn, graph, &GraphPanel::zoomIn);
  addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, graph, &GraphPanel::zoomOut);
  addAction(tr("&Expand All Modules"), graph, &GraphPanel::expandAll);
  addAction(tr("&Collapse All Modules"), graph, &GraphPanel::collapseAll);
  // triggered(checked): the user's toggle, passed on as the checked state
  QAction* showQuant = addAction(tr("Show &Q/DQ Nodes"), graph, &GraphPanel::setShowQuantizationNodes);
  showQuant->setObjectName(QStringLiteral("showQuantizationNodesAction"));
  showQuant->setCheckable(true);
  showQuant->setToolTip(tr("Draw quantize/dequantize nodes as boxes instead of on the edges they sit on"));
  addSeparator();
  for (QDockWidget* dock : docks) addAction(dock->toggleViewAction());
  m_exportSvg = new QAction(tr("Export Graph as &SVG…"), this);
  m_exportPng = new QAction(tr("Export Graph as &PNG…"), this);
  connect(m_exportSvg, &QAction::triggered, this, [this] { exportGraph(QStringLiteral("svg")); });
  connect(m_exportPng, &QAction::triggered, this, [this] { exportGraph(QStringLiteral("png")); });
}

void ViewMenu::exportGraph(const QString& format) {
  const std::optional<QString> base = m_baseName();
  if (!base) return;
  const QString path = QFileDialog::getSaveFileName(parentWidget(), tr("Export Graph"), *base + QLatin1Char('.') + format,
                                                    format == QStringLiteral("svg") ? tr("SVG (*.svg)") : tr("PNG (*.png)"));
  if (path.isEmpty()) return;
  QString error;
  const bool ok = format == QStringLiteral("svg") ? m_graph->exportSvg(path, &error) : m_graph->exportPng(path, &error);
  m_status->showMessage(ok ? tr("Saved %1").arg(path) : tr("Could not save %1: %2").arg(path, error), 6000);
}

}  // namespace torchir::ui
