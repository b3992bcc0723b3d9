#include "panels/DiagnosisPanel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QStringList>
#include <QVBoxLayout>

namespace torchir::ui {

namespace {

// Failures are red; stop conditions (the run worked, a value looks wrong) are amber.
QString classColor(torchir::DiagnosisClass kind) {
  switch (kind) {
    case torchir::DiagnosisClass::NanOrInf:
    case torchir::DiagnosisClass::DtypeDiffersFromExport:
    case torchir::DiagnosisClass::ShapeDiffersFromExport:
    case torchir::DiagnosisClass::Divergence:
      return QStringLiteral("#b35900");
    default:
      return QStringLiteral("#b00020");
  }
}

QLabel* textLabel(QWidget* parent, const char* objectName) {
  auto* label = new QLabel(parent);
  label->setObjectName(QLatin1String(objectName));
  label->setTextFormat(Qt::PlainText);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  return label;
}

}  // namespace

DiagnosisPanel::DiagnosisPanel(QWidget* parent) : QWidget(parent) {
  m_body = new QWidget;
  auto* body = new QVBoxLayout(m_body);
  body->setContentsMargins(6, 6, 6, 6);

  m_class = textLabel(m_body, "diagnosisClass");
  QFont bold = m_class->font();
  bold.setBold(true);
  bold.setPointSizeF(bold.pointSizeF() * 1.15);
  m_class->setFont(bold);
  m_node = textLabel(m_body, "diagnosisNode");
  m_goTo = new QPushButton(tr("Go to node"), m_body);
  m_goTo->setObjectName(QStringLiteral("goToNodeButton"));
  connect(m_goTo, &QPushButton::clicked, this, [this] {
    if (m_nodeId != torchir::kNone) Q_EMIT nodeActivated(m_nodeId);
  });
  auto* nodeRow = new QHBoxLayout;
  nodeRow->addWidget(m_node, 1);
  nodeRow->addWidget(m_goTo);
  body->addWidget(m_class);
  body->addLayout(nodeRow);

  m_body->setLayout(body);
  m_message = section(tr("libtorch says"), "diagnosisMessage", false);
  m_explanation = section(tr("What happened, and what to change"), "diagnosisExplanation", false);
  // The fix the failure suggests (a dtype mismatch's cast), applied and run on in one click.
  m_fix = new QPushButton(m_body);
  m_fix->setObjectName(QStringLiteral("diagnosisFix"));
  m_fix->hide();
  body->addWidget(m_fix, 0, Qt::AlignLeft);
  connect(m_fix, &QPushButton::clicked, this, &DiagnosisPanel::fixRequested);
  // The module an op defined in Python is in, as the program points to it: imported only on a click.
  m_import = new QPushButton(m_body);
  m_import->setObjectName(QStringLiteral("diagnosisImport"));
  m_import->hide();
  body->addWidget(m_import, 0, Qt::AlignLeft);
  connect(m_import, &QPushButton::clicked, this, [this] { Q_EMIT importRequested(m_importModule); });
  m_schema = section(tr("Schema"), "diagnosisSchema", true);
  m_arguments = section(tr("Arguments"), "diagnosisArguments", true);
  m_source = section(tr("Source"), "diagnosisSource", true);
  m_traceback = section(tr("Python traceback"), "diagnosisTraceback", true);
  body->addStretch(1);

  // Messages and argument lists can be long: the panel scrolls rather than growing the dock.
  m_scroll = new QScrollArea(this);
  m_scroll->setWidgetResizable(true);
  m_scroll->setFrameShape(QFrame::NoFrame);
  m_scroll->setWidget(m_body);
  m_empty = new QLabel(tr("No failure."), this);
  m_empty->setObjectName(QStringLiteral("diagnosisEmpty"));
  m_empty->setAlignment(Qt::AlignCenter);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_empty);
  layout->addWidget(m_scroll, 1);
  clear();
}

QLabel* DiagnosisPanel::section(const QString& caption, const char* objectName, bool monospace) {
  auto* heading = new QLabel(caption, m_body);
  QFont f = heading->font();
  f.setBold(true);
  heading->setFont(f);
  QLabel* label = textLabel(m_body, objectName);
  if (monospace) label->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_body->layout()->addWidget(heading);
  m_body->layout()->addWidget(label);
  m_headings.insert(label, heading);
  return label;
}

QString DiagnosisPanel::firstFrame(const std::string& stackTrace) {
  const QStringList lines = QString::fromStdString(stackTrace).split(QLatin1Char('\n'));
  QStringList frame;
  for (const QString& line : lines) {
    const bool frameStart = line.trimmed().startsWith(QStringLiteral("File "));
    if (frameStart && !frame.isEmpty()) break;
    if (!line.trimmed().isEmpty()) frame << (frameStart ? line.trimmed() : QStringLiteral("    ") + line.trimmed());
  }
  return frame.join(QLatin1Char('\n'));
}

QString DiagnosisPanel::argumentLines(const std::vector<torchir::ArgumentRecord>& arguments) {
  QStringList lines;
  for (const torchir::ArgumentRecord& a : arguments) {
    QString source = QString::fromLatin1(torchir::argSourceName(a.source).data());
    if (!a.sourceDetail.empty()) source += QStringLiteral(" ") + QString::fromStdString(a.sourceDetail);
    lines << QStringLiteral("%1: %2 = %3 (%4)")
                 .arg(QString::fromStdString(a.name), QString::fromStdString(a.declaredType),
                      QString::fromStdString(a.value.text), source);
  }
  return lines.join(QLatin1Char('\n'));
}

void DiagnosisPanel::setDiagnosis(const torchir::Diagnosis& d) {
  if (d.ok()) {
    clear();
    return;
  }
  m_nodeId = d.node;
  m_class->setText(QString::fromLatin1(torchir::diagnosisClassName(d.kind).data()));
  m_class->setStyleSheet(QStringLiteral("color: %1;").arg(classColor(d.kind)));
  QString node = QString::fromStdString(d.nodeName);
  if (!d.opType.empty()) node += QStringLiteral("  ·  ") + QString::fromStdString(d.opType);
  m_node->setText(node);
  m_goTo->setEnabled(d.node != torchir::kNone);
  // A section without text hides with its heading.
  auto fill = [this](QLabel* label, const QString& text) {
    label->setText(text);
    label->setVisible(!text.isEmpty());
    m_headings.value(label)->setVisible(!text.isEmpty());
  };
  fill(m_message, QString::fromStdString(d.message));
  m_headings.value(m_message)->setText(d.kind == torchir::DiagnosisClass::PythonError ? tr("Python says") : tr("libtorch says"));
  fill(m_explanation, QString::fromStdString(d.explanation));
  fill(m_schema, QString::fromStdString(d.schema));
  fill(m_arguments, argumentLines(d.arguments));
  fill(m_source, firstFrame(d.stackTrace));
  fill(m_traceback, QString::fromStdString(d.traceback).trimmed());
  m_empty->hide();
  m_scroll->show();
}

void DiagnosisPanel::setFix(const QString& text) {
  m_fix->setText(text);
  m_fix->setVisible(!text.isEmpty());
}

void DiagnosisPanel::setImport(const QString& module) {
  m_importModule = module;
  m_import->setText(tr("Import %1 and run").arg(module));
  m_import->setVisible(!module.isEmpty());
}

void DiagnosisPanel::clear() {
  m_nodeId = torchir::kNone;
  setFix({});
  setImport({});
  for (QLabel* label : {m_class, m_node, m_message, m_explanation, m_schema, m_arguments, m_source, m_traceback}) label->clear();
  m_goTo->setEnabled(false);
  m_empty->show();
  m_scroll->hide();
}

}  // namespace torchir::ui
