#include "session/ExecutionActions.h"

#include <QAction>
#include <QApplication>
#include <QIcon>
#include <QPainter>
#include <QPixmap>
#include <QStyle>

#include "session/Selection.h"
#include "session/SessionController.h"

namespace torchir::ui {

namespace {

/// Standard icons need a widget style, which a QCoreApplication (a headless tool) does not have.
QIcon standardIcon(QStyle::StandardPixmap pixmap) {
  if (!qobject_cast<QApplication*>(QCoreApplication::instance())) return {};
  return QApplication::style()->standardIcon(pixmap);
}

/// The red dot debuggers use for a breakpoint; no standard pixmap shows one.
QIcon breakpointIcon() {
  if (!qobject_cast<QApplication*>(QCoreApplication::instance())) return {};
  QPixmap pixmap(16, 16);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(QColor(0x8a, 0x1c, 0x14));
  painter.setBrush(QColor(0xe5, 0x39, 0x35));
  painter.drawEllipse(QRectF(2.5, 2.5, 11, 11));
  return QIcon(pixmap);
}

}  // namespace

ExecutionActions::ExecutionActions(SessionController* controller, Selection* selection, QObject* parent)
    : QObject(parent), m_controller(controller), m_selection(selection) {
  m_continue = makeAction(QStringLiteral("actionContinue"), tr("&Continue"),
                          tr("Run until a breakpoint, a stop condition, a failure or the end"));
  m_continue->setShortcut(QKeySequence(Qt::Key_F5));
  m_continue->setIcon(standardIcon(QStyle::SP_MediaPlay));
  connect(m_continue, &QAction::triggered, controller, &SessionController::continueRun);

  m_step = makeAction(QStringLiteral("actionStep"), tr("&Step"), tr("Run the next node"));
  m_step->setShortcut(QKeySequence(Qt::Key_F10));
  m_step->setIcon(standardIcon(QStyle::SP_MediaSeekForward));
  connect(m_step, &QAction::triggered, controller, &SessionController::step);
  m_stepBack = makeAction(QStringLiteral("actionStepBack"), tr("Step &Back"),
                          tr("Go back one node: the last node that ran runs next again"));
  m_stepBack->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F10));
  m_stepBack->setIcon(standardIcon(QStyle::SP_MediaSeekBackward));
  connect(m_stepBack, &QAction::triggered, controller, &SessionController::stepBack);

  m_runTo = makeAction(QStringLiteral("actionRunToSelected"), tr("Run to Se&lected"),
                       tr("Run until the selected node has run"));
  m_runTo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F10));
  m_runTo->setIcon(standardIcon(QStyle::SP_MediaSkipForward));
  connect(m_runTo, &QAction::triggered, this, [this] { m_controller->runTo(m_selection->node()); });

  m_stop = makeAction(QStringLiteral("actionStop"), tr("S&top"), tr("Stop the run after the node now running"));
  // Ctrl+Break is Ctrl+Pause on X11 and macOS, but Windows reports it as VK_CANCEL (Qt::Key_Cancel).
  m_stop->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Pause), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5),
                        QKeySequence(Qt::CTRL | Qt::Key_Cancel)});
  m_stop->setIcon(standardIcon(QStyle::SP_MediaStop));
  connect(m_stop, &QAction::triggered, controller, &SessionController::stop);

  m_reset = makeAction(QStringLiteral("actionReset"), tr("&Reset"), tr("Discard the run and start again from the inputs"));
  m_reset->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
  m_reset->setIcon(standardIcon(QStyle::SP_BrowserReload));
  connect(m_reset, &QAction::triggered, controller, &SessionController::reset);

  m_toggleBreakpoint = makeAction(QStringLiteral("actionToggleBreakpoint"), tr("Toggle &Breakpoint"),
                                  tr("Stop before the selected node runs"));
  m_toggleBreakpoint->setShortcut(QKeySequence(Qt::Key_F9));
  m_toggleBreakpoint->setIcon(breakpointIcon());
  connect(m_toggleBreakpoint, &QAction::triggered, this,
          [this] { m_controller->toggleBreakpoint(m_selection->node()); });

  m_stopOnNan = makeAction(QStringLiteral("actionStopOnNan"), tr("Stop on NaN/Inf"),
                           tr("Stop after a node whose output holds NaN or Inf"));
  m_stopOnDtype = makeAction(QStringLiteral("actionStopOnDtype"), tr("Stop when dtype differs from export"),
                             tr("Stop after a node whose output dtype is not the one export recorded"));
  m_stopOnShape = makeAction(QStringLiteral("actionStopOnShape"), tr("Stop when shape differs from export"),
                             tr("Stop after a node whose output shape is not the one export recorded"));
  const torchir::StopConditions current = controller->stopConditions();
  for (auto [action, checked] : {std::pair{m_stopOnNan, current.nanOrInf}, std::pair{m_stopOnDtype, current.dtypeDiffers},
                                 std::pair{m_stopOnShape, current.shapeDiffers}}) {
    action->setCheckable(true);
    action->setChecked(checked);
    connect(action, &QAction::toggled, this, &ExecutionActions::applyStopConditions);
  }

  connect(controller, &SessionController::stateChanged, this, &ExecutionActions::updateEnabled);
  // Run to Selected depends on whether the selected node has run yet.
  connect(controller, &SessionController::marksChanged, this, &ExecutionActions::updateEnabled);
  connect(selection, &Selection::changed, this, &ExecutionActions::updateEnabled);
  updateEnabled();
}

QAction* ExecutionActions::makeAction(const QString& objectName, const QString& text, const QString& tip) {
  auto* action = new QAction(text, this);
  action->setObjectName(objectName);
  action->setStatusTip(tip);
  action->setToolTip(tip);
  return action;
}

QList<QAction*> ExecutionActions::runActions() const {
  return {m_continue, m_step, m_stepBack, m_runTo, m_stop, m_reset, m_toggleBreakpoint};
}

void ExecutionActions::updateEnabled() {
  m_step->setEnabled(m_controller->canStep());
  m_stepBack->setEnabled(m_controller->canStepBack());
  m_continue->setEnabled(m_controller->canContinue());
  const torchir::NodeId selected = m_selection->node();
  m_runTo->setEnabled(m_controller->canRunTo(selected));
  m_reset->setEnabled(m_controller->canReset());
  m_stop->setEnabled(m_controller->canStop());
  const auto nodes = m_controller->program() ? m_controller->program()->program.nodes.size() : 0;
  m_toggleBreakpoint->setEnabled(selected >= 0 && static_cast<std::size_t>(selected) < nodes);
}

void ExecutionActions::applyStopConditions() {
  torchir::StopConditions c;
  c.nanOrInf = m_stopOnNan->isChecked();
  c.dtypeDiffers = m_stopOnDtype->isChecked();
  c.shapeDiffers = m_stopOnShape->isChecked();
  m_controller->setStopConditions(c);
}

}  // namespace torchir::ui
