#include "panels/ProblemsPanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace torchir::ui {

namespace {

enum Column { kSeverity, kNode, kKind, kMessage };
constexpr int kNodeRole = Qt::UserRole;

QIcon severityIcon(const QStyle* style, torchir::Severity severity) {
  switch (severity) {
    case torchir::Severity::Error: return style->standardIcon(QStyle::SP_MessageBoxCritical);
    case torchir::Severity::Warning: return style->standardIcon(QStyle::SP_MessageBoxWarning);
    case torchir::Severity::Info: break;
  }
  return style->standardIcon(QStyle::SP_MessageBoxInformation);
}

}  // namespace

ProblemsPanel::ProblemsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_empty = new QLabel(tr("Nothing found that would stop a run."), this);
  m_empty->setObjectName(QStringLiteral("problemsEmpty"));
  m_empty->setContentsMargins(6, 6, 6, 6);
  m_list = new QTreeWidget(this);
  m_list->setObjectName(QStringLiteral("problemsList"));
  m_list->setRootIsDecorated(false);
  m_list->setUniformRowHeights(true);
  m_list->setWordWrap(false);
  m_list->setHeaderLabels({tr("Severity"), tr("Node"), tr("Kind"), tr("Problem")});
  m_list->header()->setStretchLastSection(true);
  m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_list->header()->setSectionResizeMode(kMessage, QHeaderView::Interactive);
  layout->addWidget(m_empty);
  layout->addWidget(m_list, 1);
  m_list->hide();

  auto activate = [this](QTreeWidgetItem* item) {
    const auto node = static_cast<torchir::NodeId>(item->data(kNode, kNodeRole).toInt());
    if (node != torchir::kNone) Q_EMIT nodeActivated(node);
  };
  connect(m_list, &QTreeWidget::itemActivated, this, activate);
  connect(m_list, &QTreeWidget::itemClicked, this, activate);
}

void ProblemsPanel::setProblems(const std::vector<torchir::Problem>& problems) {
  m_list->clear();
  QList<QTreeWidgetItem*> items;
  for (const torchir::Problem& p : problems) {
    auto* item = new QTreeWidgetItem;
    item->setIcon(kSeverity, severityIcon(style(), p.severity));
    item->setText(kSeverity, QString::fromUtf8(torchir::severityName(p.severity).data()));
    item->setText(kNode, QString::fromStdString(p.nodeName));
    item->setData(kNode, kNodeRole, static_cast<int>(p.node));
    item->setText(kKind, QString::fromStdString(p.kind));
    item->setText(kMessage, QString::fromStdString(p.message));
    item->setToolTip(kMessage, QString::fromStdString(p.message));
    items << item;
  }
  m_list->addTopLevelItems(items);
  m_list->setVisible(!problems.empty());
  m_empty->setVisible(problems.empty());
}

int ProblemsPanel::count() const { return m_list->topLevelItemCount(); }

QString ProblemsPanel::title() const { return count() ? tr("Problems (%1)").arg(count()) : tr("Problems"); }

}  // namespace torchir::ui
