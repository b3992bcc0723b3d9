#include "windows/EditCallDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <stdexcept>

#include "panels/ShapeText.h"
#include "program/Safetensors.h"
#include "session/SessionController.h"

namespace torchir::ui {

namespace {

enum Column { kName, kType, kValue, kChange, kWith };

// The change a tensor row offers, in its combo box.
enum TensorChange { kAsIs, kCast, kFill, kReplace };

const std::vector<torchir::DType> kCastTargets = {torchir::DType::Float32, torchir::DType::Float16,
                                                  torchir::DType::BFloat16, torchir::DType::Float64,
                                                  torchir::DType::Int64, torchir::DType::Int32, torchir::DType::Bool};

/// A number the export put in a Tensor slot (mul(x, 0.001)): a 0-d tensor the node's call holds.
bool isWrappedNumber(const torchir::ArgumentRecord& a) {
  return a.value.kind == "Tensor" && a.value.sizes.empty() && a.source != torchir::ArgSource::Input;
}
bool isTensor(const torchir::ArgumentRecord& a) { return a.value.kind == "Tensor" && !isWrappedNumber(a); }
bool isNumber(const torchir::ArgumentRecord& a) {
  return a.value.kind == "int" || a.value.kind == "float" || a.value.kind == "bool" || isWrappedNumber(a);
}

QString text(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<int>(s.size())); }

}  // namespace

EditCallDialog::EditCallDialog(SessionController* session, torchir::NodeId node, QWidget* parent)
    : QDialog(parent), m_session(session), m_node(node) {
  setObjectName(QStringLiteral("editCallDialog"));
  const auto program = session->program();
  setWindowTitle(tr("Edit the call of %1").arg(QString::fromStdString(program->program.node(node).name)));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("Change an argument, Try the call, then Apply and Continue: every later run of "
                              "the node takes the change."),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  m_table = new QTableWidget(0, 5, this);
  m_table->setObjectName(QStringLiteral("editCallArguments"));
  m_table->setHorizontalHeaderLabels({tr("Argument"), tr("Type"), tr("Value"), tr("Change"), tr("With")});
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(m_table, 1);
  m_result = new QLabel(tr("Reading the call…"), this);
  m_result->setObjectName(QStringLiteral("editCallResult"));
  m_result->setWordWrap(true);
  layout->addWidget(m_result);

  auto* buttons = new QDialogButtonBox(this);
  QPushButton* tryButton = buttons->addButton(tr("&Try"), QDialogButtonBox::ActionRole);
  tryButton->setObjectName(QStringLiteral("editCallTry"));
  QPushButton* apply = buttons->addButton(tr("&Apply and Continue"), QDialogButtonBox::AcceptRole);
  apply->setObjectName(QStringLiteral("editCallApply"));
  buttons->addButton(QDialogButtonBox::Cancel);
  layout->addWidget(buttons);
  connect(tryButton, &QPushButton::clicked, this, &EditCallDialog::tryChanges);
  connect(apply, &QPushButton::clicked, this, &EditCallDialog::applyChanges);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  connect(session, &SessionController::patchTried, this, [this](torchir::NodeId n, const torchir::PatchTrial& trial) {
    if (n != m_node) return;
    if (!m_argumentsShown) showArguments(trial.arguments);
    showTrial(trial);
  });
  connect(session, &SessionController::patchRefused, this, [this](torchir::NodeId n, const QString& why) {
    if (n == m_node) m_result->setText(tr("Not applied: %1").arg(why));
  });
  // The call's arguments as the engine rebuilds them, with the changes already made to it.
  const auto it = session->patches().find(node);
  session->tryPatches(node, it == session->patches().end() ? std::vector<torchir::ArgumentPatch>{} : it->second);
  resize(760, 420);
}

void EditCallDialog::showArguments(const std::vector<torchir::ArgumentRecord>& arguments) {
  m_argumentsShown = true;
  m_table->setRowCount(static_cast<int>(arguments.size()));
  for (int row = 0; row < static_cast<int>(arguments.size()); ++row) {
    const torchir::ArgumentRecord& a = arguments[static_cast<std::size_t>(row)];
    auto cell = [&](int column, const QString& value) {
      auto* item = new QTableWidgetItem(value);
      item->setFlags(item->flags() & ~Qt::ItemIsEditable);
      m_table->setItem(row, column, item);
    };
    cell(kName, QString::fromStdString(a.name));
    cell(kType, QString::fromStdString(a.declaredType));
    cell(kValue, isTensor(a) ? valueSummaryText(a.value) : QString::fromStdString(a.value.text));
    if (isTensor(a)) {
      auto* change = new QComboBox(m_table);
      change->addItem(tr("as is"), kAsIs);
      for (torchir::DType d : kCastTargets)
        if (d != a.value.dtype) change->addItem(tr("cast to %1").arg(text(torchir::dtypeName(d))), kCast * 100 + static_cast<int>(d));
      change->addItem(tr("fill with"), kFill);
      change->addItem(tr("replace from file"), kReplace);
      m_table->setCellWidget(row, kChange, change);
      auto* with = new QLineEdit(m_table);
      with->setPlaceholderText(tr("a number, or F.safetensors[:name]"));
      m_table->setCellWidget(row, kWith, with);
      connect(change, &QComboBox::currentIndexChanged, this, [change, with] {
        if (change->currentData().toInt() == kReplace && with->text().isEmpty()) {
          const QString file = QFileDialog::getOpenFileName(with, tr("Tensor from"), {}, tr("Safetensors (*.safetensors)"));
          if (!file.isEmpty()) with->setText(file);
        }
      });
    } else if (isNumber(a)) {
      cell(kChange, tr("a number"));
      auto* with = new QLineEdit(QString::fromStdString(a.value.text), m_table);
      with->setProperty("original", with->text());
      m_table->setCellWidget(row, kWith, with);
    } else {
      cell(kChange, {});
      cell(kWith, {});
    }
  }
  m_table->resizeColumnsToContents();
}

std::vector<torchir::ArgumentPatch> EditCallDialog::patches() const {
  std::vector<torchir::ArgumentPatch> out;
  for (int row = 0; row < m_table->rowCount(); ++row) {
    const std::string name = m_table->item(row, kName)->text().toStdString();
    auto* with = qobject_cast<QLineEdit*>(m_table->cellWidget(row, kWith));
    auto* change = qobject_cast<QComboBox*>(m_table->cellWidget(row, kChange));
    auto number = [&](const QString& s) {
      bool ok = false;
      const double v = s.trimmed().toDouble(&ok);
      if (!ok) throw std::invalid_argument("'" + name + "': '" + s.toStdString() + "' is not a number");
      return v;
    };
    torchir::ArgumentPatch p;
    p.argument = name;
    if (!change) {  // a number argument, changed when its text is
      if (!with || with->text() == with->property("original").toString()) continue;
      p.kind = torchir::ArgumentPatch::Kind::Scalar;
      p.value = number(with->text());
      out.push_back(std::move(p));
      continue;
    }
    const int choice = change->currentData().toInt();
    if (choice == kAsIs) continue;
    if (choice >= kCast * 100) {
      p.kind = torchir::ArgumentPatch::Kind::Cast;
      p.dtype = static_cast<torchir::DType>(choice - kCast * 100);
    } else if (choice == kFill) {
      p.kind = torchir::ArgumentPatch::Kind::Fill;
      p.value = number(with->text());
    } else {
      // F.safetensors[:tensor]; the file's only tensor, or the one named after the argument
      p.kind = torchir::ArgumentPatch::Kind::Replace;
      const QString spec = with->text().trimmed();
      const int colon = spec.lastIndexOf(QLatin1Char(':'));
      const bool named = colon > 0 && !spec.mid(colon + 1).contains(QLatin1Char('/'));
      const std::string file = (named ? spec.left(colon) : spec).toStdString();
      const torchir::TensorMap tensors = torchir::readSafetensors(file);
      std::string key = named ? spec.mid(colon + 1).toStdString() : (tensors.size() == 1 ? tensors.begin()->first : name);
      const auto found = tensors.find(key);
      if (found == tensors.end()) throw std::invalid_argument("'" + name + "': " + file + " has no tensor '" + key + "'");
      p.tensor = found->second;
      p.origin = file + ":" + key;
    }
    out.push_back(std::move(p));
  }
  return out;
}

void EditCallDialog::showTrial(const torchir::PatchTrial& trial) {
  auto outcome = [](const std::vector<std::optional<torchir::TensorData>>& outputs, const std::string& problem) {
    if (!problem.empty()) return tr("fails: %1").arg(QString::fromStdString(problem));
    QStringList shown;
    for (const auto& t : outputs)
      if (t) shown << text(torchir::dtypeName(t->dtype)) + QString::fromStdString(torchir::sizesText(t->sizes));
    return shown.isEmpty() ? tr("runs") : tr("gives %1").arg(shown.join(QStringLiteral(", ")));
  };
  m_result->setText(tr("As it is, the call %1.\nWith the changes, it %2.")
                        .arg(outcome(trial.before, trial.beforeProblem), outcome(trial.after, trial.afterProblem)));
  Q_EMIT trialShown(m_node, trial);
}

void EditCallDialog::tryChanges() {
  try {
    m_session->tryPatches(m_node, patches());
    m_result->setText(tr("Trying…"));
  } catch (const std::exception& e) {
    m_result->setText(QString::fromStdString(e.what()));
  }
}

void EditCallDialog::applyChanges() {
  try {
    m_session->applyPatches(m_node, patches(), true);
    accept();
  } catch (const std::exception& e) {
    m_result->setText(QString::fromStdString(e.what()));
  }
}

}  // namespace torchir::ui
