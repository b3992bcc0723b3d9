#include "panels/ArgumentsPanel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

#include "panels/ArgumentsModel.h"

namespace torchir::ui {

ArgumentsPanel::ArgumentsPanel(QWidget* parent) : QWidget(parent), m_model(new ArgumentsModel(this)) {
  m_title = new QLabel(this);
  m_title->setObjectName(QStringLiteral("nodeTitle"));
  m_title->setTextFormat(Qt::RichText);
  m_title->setWordWrap(true);  // a long node name takes a second line, not the dock's width
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("nodeStatus"));
  m_status->setAlignment(Qt::AlignRight | Qt::AlignVCenter);

  auto* header = new QHBoxLayout;
  header->addWidget(m_title, 1);
  header->addWidget(m_status);

  // Schemas are long and read character by character (types, defaults): monospace, selectable.
  m_schema = new QLabel(this);
  m_schema->setObjectName(QStringLiteral("schemaLabel"));
  m_schema->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_schema->setTextFormat(Qt::PlainText);
  m_schema->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  m_schema->setWordWrap(true);
  // A node the user's Python ran (an op defined in Python, or a pytorch-ir executor file's).
  m_runsInPython = new QLabel(this);
  m_runsInPython->setObjectName(QStringLiteral("runsInPythonLabel"));
  m_runsInPython->setStyleSheet(QStringLiteral("color: #1f5fa8; font-weight: bold;"));
  m_runsInPython->hide();

  m_view = new QTreeView(this);
  m_view->setObjectName(QStringLiteral("argumentsView"));
  m_view->setModel(m_model);
  m_view->setUniformRowHeights(true);
  m_view->setAlternatingRowColors(true);
  m_view->setExpandsOnDoubleClick(false);
  m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
  // activated covers double-click and Enter, as the platform defines them.
  connect(m_view, &QTreeView::activated, this, &ArgumentsPanel::activate);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(header);
  layout->addWidget(m_runsInPython);
  layout->addWidget(m_schema);
  layout->addWidget(m_view, 1);
  clear();
}

void ArgumentsPanel::showNode(const torchir::Program& program, torchir::NodeId node,
                              const torchir::NodeRecord* record, const torchir::Diagnosis* failure) {
  if (node < 0 || static_cast<std::size_t>(node) >= program.nodes.size()) {
    clear();
    return;
  }
  const torchir::Node& n = program.node(node);
  const bool failed = !record && failure && failure->node == node;
  m_nodeName = QString::fromStdString(n.name);
  m_title->setText(QStringLiteral("<b>%1</b> &nbsp;%2")
                       .arg(m_nodeName.toHtmlEscaped(), QString::fromStdString(n.target).toHtmlEscaped()));
  m_status->setToolTip(QString());
  if (record) {
    // the header's corner has room for a few words: the reason is the tooltip
    m_status->setText(record->cached ? QStringLiteral("cached")
                                     : QStringLiteral("ran in %1 µs").arg(QString::number(record->microseconds, 'f', 1)));
    if (record->cached)
      m_status->setToolTip(QStringLiteral("Every input is a constant of the program: computed at an earlier run of "
                                          "this session and reused, the same bits"));
    m_status->setStyleSheet(QString());
  } else if (failed) {
    m_status->setText(QStringLiteral("failed"));
    m_status->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold;"));
  } else {
    m_status->setText(QStringLiteral("not run"));
    m_status->setStyleSheet(QString());
  }
  // Before a run only the export's target is known; the engine resolves the schema.
  const std::string& schema = record ? record->schema : failed ? failure->schema : n.target;
  QString schemaText = QString::fromStdString(schema.empty() ? n.target : schema);
  // the engine marks a call it made in Python in the schema it records: "... [run in Python 3.11 (path)]"
  const qsizetype python = schemaText.indexOf(QStringLiteral("  [run in Python"));
  if (python >= 0) {
    m_runsInPython->setText(tr("Ran in %1").arg(schemaText.mid(python + 10).chopped(1)));  // "Python 3.11 (path)"
    schemaText.truncate(python);
  } else if (schemaText.endsWith(QStringLiteral("(Python executor)"))) {
    m_runsInPython->setText(tr("Ran in Python: a pytorch-ir executor"));
  }
  m_runsInPython->setVisible(python >= 0 || schemaText.endsWith(QStringLiteral("(Python executor)")));
  m_schema->setText(schemaText);
  m_schema->setVisible(true);
  m_model->setNode(program, node, record, failure);
  m_view->expandAll();
  for (int c = 0; c < ArgumentsModel::ColumnCount; ++c) m_view->resizeColumnToContents(c);
}

void ArgumentsPanel::clear() {
  m_nodeName.clear();
  m_title->setText(QStringLiteral("No node selected"));
  m_status->clear();
  m_status->setStyleSheet(QString());
  m_schema->clear();
  m_schema->setVisible(false);
  m_runsInPython->hide();
  m_model->clear();
}

void ArgumentsPanel::activate(const QModelIndex& index) {
  const auto value = m_model->valueAt(index);
  if (!value) return;
  const QString name = m_model->index(index.row(), ArgumentsModel::Name, index.parent()).data().toString();
  Q_EMIT tensorRequested(*value, QStringLiteral("%1.%2").arg(m_nodeName, name));
}

}  // namespace torchir::ui
