#include "controllers/EditCallDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <stdexcept>

#include "panels/ShapeText.h"
#include "session/BackgroundPool.h"
#include "session/CallChanges.h"
#include "session/OneLine.h"
#include "session/SessionController.h"

namespace torchir::ui {

namespace {

enum Column { kName, kType, kValue, kChange, kWith };

// The change a tensor row offers, in its combo box; a cast is kCast * 100 + the dtype.
enum TensorChange { kAsIs, kCast, kFill, kReplace };

const std::vector<torchir::DType> kCastTargets = {
    torchir::DType::Float32, torchir::DType::Float16, torchir::DType::BFloat16, torchir::DType::Float64,
    torchir::DType::Int64,   torchir::DType::Int32,   torchir::DType::Bool};

/// A number the export put in a Tensor slot (mul(x, 0.001)): a 0-d tensor the node's call holds.
bool isWrappedNumber(const torchir::ArgumentRecord& a) {
  return a.value.kind == "Tensor" && a.value.sizes.empty() && a.source != torchir::ArgSource::Input;
}
bool isTensor(const torchir::ArgumentRecord& a) { return a.value.kind == "Tensor" && !isWrappedNumber(a); }
bool isNumber(const torchir::ArgumentRecord& a) {
  return a.value.kind == "int" || a.value.kind == "float" || a.value.kind == "bool" || isWrappedNumber(a);
}

QString text(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<int>(s.size())); }

int castChoice(torchir::DType dtype) { return kCast * 100 + static_cast<int>(dtype); }

/// The combo box's entry for a change the node has.
int choiceOf(const torchir::ArgumentPatch& p) {
  switch (p.kind) {
    case torchir::ArgumentPatch::Kind::Cast:
      return castChoice(p.dtype);
    case torchir::ArgumentPatch::Kind::Fill:
      return kFill;
    case torchir::ArgumentPatch::Kind::Replace:
      return kReplace;
    case torchir::ArgumentPatch::Kind::Scalar:
    case torchir::ArgumentPatch::Kind::FromValue:
      break;
  }
  return kAsIs;
}

}  // namespace

EditCallDialog::EditCallDialog(SessionController* session, torchir::NodeId node, QWidget* parent)
    : QDialog(parent), m_session(session), m_node(node) {
  setObjectName(QStringLiteral("editCallDialog"));
  const auto program = session->program();
  setWindowTitle(tr("Edit the call of %1").arg(QString::fromStdString(program->program.node(node).name)));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("Change an argument, Try the call, then Apply and Continue: every later run of "
                              "the node takes the change. Clear a change to take it back."),
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
  m_try = buttons->addButton(tr("&Try"), QDialogButtonBox::ActionRole);
  m_try->setObjectName(QStringLiteral("editCallTry"));
  m_apply = buttons->addButton(tr("&Apply and Continue"), QDialogButtonBox::AcceptRole);
  m_apply->setObjectName(QStringLiteral("editCallApply"));
  buttons->addButton(QDialogButtonBox::Cancel);
  layout->addWidget(buttons);
  connect(m_try, &QPushButton::clicked, this, [this] { readFilesThen(&EditCallDialog::sendTrial); });
  connect(m_apply, &QPushButton::clicked, this, [this] { readFilesThen(&EditCallDialog::sendChanges); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  connect(session, &SessionController::patchRefused, this, [this](torchir::NodeId n, const QString& why) {
    if (n == m_node) m_result->setText(tr("Not applied: %1").arg(why));
  });
  // The call's arguments as the engine rebuilds them, with the changes already made to it.
  if (const auto it = session->patches().find(node); it != session->patches().end()) m_had = it->second;
  tryPatches(m_had);
  resize(760, 420);
}

void EditCallDialog::tryPatches(const std::vector<torchir::ArgumentPatch>& patches) {
  if (!m_session->canEditCall()) return;
  // beside the run, not a command (Stop does not cancel it); a capture's run is made again first
  m_session->ask([this, node = m_node, patches, show = m_session->progressToGui()](EngineJob& job) {
    const bool replays = job.debugger().replayPending();
    const torchir::PatchTrial trial = job.debugger().tryPatches(node, patches, job.observer(show));
    if (replays) job.reply([show, report = job.report()] { show(report); });
    // the session is the context: the dialog may close (and be deleted) while the trial runs
    job.reply([dialog = QPointer<EditCallDialog>(this), trial] {
      if (!dialog) return;
      if (!dialog->m_argumentsShown) dialog->showArguments(trial.arguments);
      dialog->showTrial(trial);
    });
  });
}

void EditCallDialog::showArguments(const std::vector<torchir::ArgumentRecord>& arguments) {
  m_argumentsShown = true;
  m_rows.assign(arguments.size(), {});
  m_table->setRowCount(static_cast<int>(arguments.size()));
  for (int row = 0; row < static_cast<int>(arguments.size()); ++row) {
    const torchir::ArgumentRecord& a = arguments[static_cast<std::size_t>(row)];
    Row& state = m_rows[static_cast<std::size_t>(row)];
    state.name = a.name;
    for (const auto& p : m_had)
      if (p.argument == a.name) state.had = p;
    auto cell = [&](int column, const QString& value) {
      auto* item = new QTableWidgetItem(value);
      item->setFlags(item->flags() & ~Qt::ItemIsEditable);
      m_table->setItem(row, column, item);
      return item;
    };
    cell(kName, QString::fromStdString(a.name));
    cell(kType, QString::fromStdString(a.declaredType));
    // the value the call gets now, with the node's change made; the tooltip says which change
    QTableWidgetItem* value =
        cell(kValue, isTensor(a) ? valueSummaryText(a.value) : QString::fromStdString(a.value.text));
    if (a.source == torchir::ArgSource::Patched) value->setToolTip(QString::fromStdString(a.sourceDetail));
    if (isTensor(a)) {
      addTensorRow(row, a, state);
    } else if (isNumber(a)) {
      addNumberRow(row, a, state);
    } else {
      cell(kChange, {});
      cell(kWith, {});
    }
  }
  m_table->resizeColumnsToContents();
}

void EditCallDialog::addTensorRow(int row, const torchir::ArgumentRecord& a, Row& state) {
  auto* change = new QComboBox(m_table);
  change->addItem(tr("as is"), kAsIs);
  // The dtype it has is no change, unless it has it by a cast the node has: then the cast is offered.
  for (torchir::DType d : kCastTargets)
    if (d != a.value.dtype || state.had)
      change->addItem(tr("cast to %1").arg(text(torchir::dtypeName(d))), castChoice(d));
  change->addItem(tr("fill with"), kFill);
  change->addItem(tr("replace from file"), kReplace);
  auto* with = new QLineEdit(m_table);
  with->setPlaceholderText(tr("a number, or F.safetensors[:name]"));
  if (state.had) {
    const torchir::ArgumentPatch& p = *state.had;
    if (change->findData(choiceOf(p)) < 0)  // a cast to a dtype not offered, from a capture
      change->addItem(tr("cast to %1").arg(text(torchir::dtypeName(p.dtype))), choiceOf(p));
    change->setCurrentIndex(change->findData(choiceOf(p)));
    if (p.kind == torchir::ArgumentPatch::Kind::Fill) with->setText(QString::number(p.value));
    if (p.kind == torchir::ArgumentPatch::Kind::Replace) with->setText(QString::fromStdString(p.origin));
  }
  state.change = change;
  state.with = with;
  state.shownChoice = change->currentData().toInt();
  state.shownText = with->text();
  m_table->setCellWidget(row, kChange, change);
  m_table->setCellWidget(row, kWith, with);
  connect(change, &QComboBox::currentIndexChanged, this, [change, with] {
    if (change->currentData().toInt() == kReplace && with->text().isEmpty()) {
      const QString file = QFileDialog::getOpenFileName(with, tr("Tensor from"), {}, tr("Safetensors (*.safetensors)"));
      if (!file.isEmpty()) with->setText(file);
    }
  });
}

void EditCallDialog::addNumberRow(int row, const torchir::ArgumentRecord& a, Row& state) {
  auto* item = new QTableWidgetItem(tr("a number"));
  item->setFlags(item->flags() & ~Qt::ItemIsEditable);
  m_table->setItem(row, kChange, item);
  // Emptied, the argument is as exported again.
  auto* with = new QLineEdit(QString::fromStdString(a.value.text), m_table);
  with->setPlaceholderText(tr("as exported"));
  state.with = with;
  state.shownText = with->text();
  m_table->setCellWidget(row, kWith, with);
}

bool EditCallDialog::isTouched(const Row& row) const {
  if (!row.with) return false;
  return row.with->text() != row.shownText || (row.change && row.change->currentData().toInt() != row.shownChoice);
}

std::optional<torchir::ArgumentPatch> EditCallDialog::changeOf(const Row& row) const {
  const std::string& name = row.name;
  auto number = [&](const QString& s) {
    bool ok = false;
    const double v = s.trimmed().toDouble(&ok);
    if (!ok) throw std::invalid_argument("'" + name + "': '" + s.toStdString() + "' is not a number");
    return v;
  };
  torchir::ArgumentPatch p;
  p.argument = name;
  if (!row.change) {  // a number
    if (row.with->text().trimmed().isEmpty()) return std::nullopt;
    p.kind = torchir::ArgumentPatch::Kind::Scalar;
    p.value = number(row.with->text());
    return p;
  }
  const int choice = row.change->currentData().toInt();
  if (choice == kAsIs) return std::nullopt;
  if (choice >= kCast * 100) {
    p.kind = torchir::ArgumentPatch::Kind::Cast;
    p.dtype = static_cast<torchir::DType>(choice - kCast * 100);
  } else if (choice == kFill) {
    p.kind = torchir::ArgumentPatch::Kind::Fill;
    p.value = number(row.with->text());
  } else {
    p.kind = torchir::ArgumentPatch::Kind::Replace;
    const TensorFileSpec spec = parseTensorFileSpec(row.with->text());
    const auto read = m_files.find(spec.file);
    if (read == m_files.end() || !read->second.problem.isEmpty())
      throw std::invalid_argument("'" + name + "': " + spec.file + " is not read");
    std::string key;
    p.tensor = tensorFor(read->second.tensors, spec, name, &key);
    p.origin = spec.file + ":" + key;
  }
  return p;
}

std::vector<torchir::ArgumentPatch> EditCallDialog::patches() const {
  std::vector<torchir::ArgumentPatch> out = m_had;
  for (const Row& row : m_rows)
    if (isTouched(row)) out = torchir::withChange(std::move(out), row.name, changeOf(row));
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

void EditCallDialog::readFilesThen(void (EditCallDialog::*then)()) {
  if (m_reading) return;
  std::set<std::string> files;
  for (const Row& row : m_rows)
    if (isTouched(row) && row.change && row.change->currentData().toInt() == kReplace)
      files.insert(parseTensorFileSpec(row.with->text()).file);
  if (files.empty()) return (this->*then)();
  // A file may be large or on a slow disk: the dialog stays live, Cancel included, meanwhile.
  m_reading = true;
  m_try->setEnabled(false);
  m_apply->setEnabled(false);
  QStringList names;
  for (const std::string& f : files) names << QString::fromStdString(f);
  m_result->setText(tr("Reading %1…").arg(names.join(QStringLiteral(", "))));
  auto* watcher = new QFutureWatcher<TensorFileReads>(this);
  connect(watcher, &QFutureWatcher<TensorFileReads>::finished, this, [this, watcher, then] {
    m_reading = false;
    m_try->setEnabled(true);
    m_apply->setEnabled(true);
    m_files = watcher->result();
    watcher->deleteLater();
    for (const auto& [file, read] : m_files)
      if (!read.problem.isEmpty()) return m_result->setText(read.problem);
    (this->*then)();
  });
  watcher->setFuture(QtConcurrent::run(backgroundPool(), &readTensorFiles, files));
}

void EditCallDialog::sendTrial() {
  try {
    tryPatches(patches());
    m_result->setText(tr("Trying…"));
  } catch (const std::exception& e) {
    m_result->setText(oneLine(QString::fromStdString(e.what())));
  }
}

void EditCallDialog::sendChanges() {
  try {
    // the whole list: the node's changes are what it says, the earlier ones it keeps included
    changeCall(*m_session, m_node, patches(), true);
    accept();
  } catch (const std::exception& e) {
    m_result->setText(oneLine(QString::fromStdString(e.what())));
  }
}

}  // namespace torchir::ui
