#include "PythonPreferencesDialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>

namespace torchir::ui {
namespace {

QString lines(const std::vector<std::string>& items) {
  QStringList out;
  for (const auto& s : items) out << QString::fromStdString(s);
  return out.join(QLatin1Char('\n'));
}

std::vector<std::string> items(const QPlainTextEdit* edit) {
  std::vector<std::string> out;
  for (const QString& line : edit->toPlainText().split(QLatin1Char('\n')))
    if (!line.trimmed().isEmpty()) out.push_back(line.trimmed().toStdString());
  return out;
}

}  // namespace

PythonPreferencesDialog::PythonPreferencesDialog(const PythonHostOptions& options, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Preferences › Python"));
  setObjectName(QStringLiteral("pythonPreferences"));
  auto* form = new QFormLayout;
  auto* intro = new QLabel(tr("Ops a program defines in Python (torch.library custom ops, pytorch-ir executors) run in "
                              "a worker process of this Python. Leave it empty to run no Python "
                              "(TORCHIR_PYTHON is used then, when set)."),
                           this);
  intro->setWordWrap(true);

  m_python = new QLineEdit(QString::fromStdString(options.python), this);
  m_python->setObjectName(QStringLiteral("pythonInterpreter"));
  m_python->setPlaceholderText(tr("/path/to/venv/bin/python"));
  auto* browse = new QPushButton(tr("Browse…"), this);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Python interpreter"), m_python->text());
    if (!path.isEmpty()) m_python->setText(path);
  });
  auto* pythonRow = new QHBoxLayout;
  pythonRow->addWidget(m_python, 1);
  pythonRow->addWidget(browse);
  form->addRow(tr("Python:"), pythonRow);

  m_imports = new QPlainTextEdit(lines(options.imports), this);
  m_imports->setObjectName(QStringLiteral("pythonImports"));
  m_imports->setPlaceholderText(tr("mypkg.ops (one module a line)"));
  m_imports->setFixedHeight(72);
  form->addRow(tr("Import first:"), m_imports);

  m_executors = new QPlainTextEdit(lines(options.executorFiles), this);
  m_executors->setObjectName(QStringLiteral("pythonExecutorFiles"));
  m_executors->setPlaceholderText(tr("/path/to/my_executors.py (pytorch-ir register_executor; one a line)"));
  m_executors->setFixedHeight(72);
  form->addRow(tr("Executor files:"), m_executors);

  m_timeout = new QDoubleSpinBox(this);
  m_timeout->setRange(1, 86400);
  m_timeout->setDecimals(0);
  m_timeout->setSuffix(tr(" s"));
  m_timeout->setValue(options.callTimeoutSeconds);
  form->addRow(tr("Longest call:"), m_timeout);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(buttons);
  resize(560, sizeHint().height());
}

PythonHostOptions PythonPreferencesDialog::options() const {
  PythonHostOptions o;
  o.python = m_python->text().trimmed().toStdString();
  o.imports = items(m_imports);
  o.executorFiles = items(m_executors);
  o.callTimeoutSeconds = m_timeout->value();
  return o;
}

}  // namespace torchir::ui
