#include "windows/CompareMenu.h"

#include <QActionGroup>
#include <QFile>
#include <QKeySequence>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "compare/ComparisonCsv.h"
#include "compare/ComparisonReport.h"
#include "session/BackgroundPool.h"
#include "quant/SensitivityReport.h"

namespace torchir::ui {

CompareMenu::CompareMenu(SessionController* session, QAction* sensitivity, QWidget* parent)
    : QMenu(tr("&Compare"), parent), m_session(session) {
  setObjectName(QStringLiteral("compareMenu"));
  auto shadow = [this](torchir::DType dtype, const QString& name, const QString& text) {
    QAction* a = addAction(text, this, [this, dtype] {
      m_session->compareWith(request(CompareRequest::Dtype, dtype));
    });
    a->setObjectName(QStringLiteral("actionCompare") + name);
    a->setStatusTip(tr("Run again, each node compared with the same program at %1").arg(name.toLower()));
    m_compareActions << a;
  };
  shadow(torchir::DType::Float64, QStringLiteral("Float64"), tr("With &float64"));
  shadow(torchir::DType::Float32, QStringLiteral("Float32"), tr("With float&32"));
  shadow(torchir::DType::Float16, QStringLiteral("Float16"), tr("With float&16"));
  shadow(torchir::DType::BFloat16, QStringLiteral("BFloat16"), tr("With &bfloat16"));
  addSeparator();
  QAction* file = addAction(tr("With Another &File…"), this, [this] { chooseFile(CompareRequest::File); });
  file->setObjectName(QStringLiteral("actionCompareFile"));
  QAction* weights = addAction(tr("With Other &Weights…"), this, [this] { chooseFile(CompareRequest::Weights); });
  weights->setObjectName(QStringLiteral("actionCompareWeights"));
  // a quantized program's float export: nodes paired by their from_node provenance, Q/DQ nodes
  // counted as quantization (the same comparison as With Another File, chosen by its name)
  QAction* floatProgram = addAction(tr("With F&loat Program…"), this, [this] { chooseFile(CompareRequest::File, true); });
  floatProgram->setObjectName(QStringLiteral("actionCompareFloatProgram"));
  floatProgram->setStatusTip(tr("Compare a quantized program with its float export: SQNR per layer, own error, sensitivity"));
  m_compareActions << file << weights << floatProgram;
  if (sensitivity) addAction(sensitivity);
  addSeparator();
  // Where a comparison stops; Continue Comparison goes on to the next such node.
  auto* stops = new QActionGroup(this);
  QAction* toEnd = addAction(tr("Run to the &End"));
  m_stopAtDivergence = addAction(tr("Stop at Each &Divergence"));
  m_stopAtNonfinite = addAction(tr("Stop at the First &NaN/Inf"));
  toEnd->setObjectName(QStringLiteral("actionCompareToEnd"));
  m_stopAtDivergence->setObjectName(QStringLiteral("actionCompareStopAtDivergence"));
  m_stopAtDivergence->setStatusTip(tr("Stop where a node's output parts from the reference's and its inputs did not (or the op adds error)"));
  m_stopAtNonfinite->setObjectName(QStringLiteral("actionCompareStopAtNonfinite"));
  m_stopAtNonfinite->setStatusTip(tr("Stop at the first node that makes NaN or Inf from finite inputs"));
  for (QAction* a : {toEnd, m_stopAtDivergence, m_stopAtNonfinite}) {
    a->setCheckable(true);
    stops->addAction(a);
  }
  toEnd->setChecked(true);
  m_tolerance = addAction(tr("&Tolerance: by dtype…"), this, &CompareMenu::chooseTolerance);
  m_tolerance->setObjectName(QStringLiteral("actionCompareTolerance"));
  m_tolerance->setStatusTip(tr("The max relative difference past which a node diverges (0: 1e-3 for float32, 1e-2 for float16, 5e-2 for bfloat16)"));
  m_continue = addAction(tr("&Continue Comparison"), this, [this] { m_session->continueComparison(chosenStop()); });
  m_continue->setObjectName(QStringLiteral("actionContinueComparison"));
  m_continue->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F5));
  addSeparator();
  m_worst = addAction(tr("W&orst Nodes First"), this, &CompareMenu::worstNodesRequested);
  m_worst->setObjectName(QStringLiteral("actionWorstNodesFirst"));
  m_save = addAction(tr("&Save Comparison as CSV…"), this, &CompareMenu::saveCsv);
  m_save->setObjectName(QStringLiteral("actionSaveComparison"));
  m_report = addAction(tr("Export Comparison &Report…"), this, &CompareMenu::exportReport);
  m_report->setObjectName(QStringLiteral("actionExportReport"));
  m_report->setStatusTip(tr("One self-contained HTML page: the worst layers, the sensitivity chart, the graph coloured by SQNR, every node"));
  connect(m_session, &SessionController::stateChanged, this, &CompareMenu::updateEnabled);
  connect(m_session, &SessionController::comparisonChanged, this, &CompareMenu::updateEnabled);
  updateEnabled();
}

void CompareMenu::updateEnabled() {
  for (QAction* a : m_compareActions) a->setEnabled(m_session->canCompare());
  m_save->setEnabled(m_session->comparison() != nullptr);
  m_report->setEnabled(m_session->comparison() != nullptr);
  m_worst->setEnabled(m_session->comparison() != nullptr);
  m_continue->setEnabled(m_session->canContinueComparison());
}

CompareRequest CompareMenu::request(CompareRequest::Kind kind, torchir::DType dtype, const QString& path) const {
  CompareRequest r;
  r.kind = kind;
  r.dtype = dtype;
  r.path = path;
  r.stop = chosenStop();
  r.tolerance = m_toleranceValue;
  return r;
}

void CompareMenu::chooseTolerance() {
  bool ok = false;
  const double t = QInputDialog::getDouble(parentWidget(), tr("Comparison Tolerance"),
                                           tr("Max relative difference (0: by the run's dtype):"), m_toleranceValue, 0,
                                           1e6, 12, &ok, Qt::WindowFlags(), 1e-4);
  if (ok) setTolerance(t);
}

void CompareMenu::setTolerance(double tolerance) {
  m_toleranceValue = tolerance > 0 ? tolerance : 0;
  m_tolerance->setText(m_toleranceValue > 0 ? tr("&Tolerance: %1…").arg(m_toleranceValue, 0, 'g', 3) : tr("&Tolerance: by dtype…"));
}

torchir::CompareStop CompareMenu::chosenStop() const {
  return m_stopAtDivergence->isChecked()  ? torchir::CompareStop::Divergence
         : m_stopAtNonfinite->isChecked() ? torchir::CompareStop::Nonfinite
                                          : torchir::CompareStop::None;
}

void CompareMenu::chooseFile(CompareRequest::Kind kind, bool floatProgram) {
  const bool program = kind == CompareRequest::File;
  const QString path = QFileDialog::getOpenFileName(
      parentWidget(), floatProgram ? tr("Compare with the Float Program") : program ? tr("Compare with Program") : tr("Compare with Weights"), {},
      program ? tr("Exported programs (*.pt2 *.json);;All files (*)")
              : tr("Weights (*.safetensors *.pt *.pth *.bin);;All files (*)"));
  if (!path.isEmpty()) m_session->compareWith(request(kind, torchir::DType::Float64, path));
}

void CompareMenu::exportReport() {
  const ComparisonPtr c = m_session->comparison();
  const LoadedProgramPtr program = m_session->program();
  if (!c || !program) return;
  const QString path = QFileDialog::getSaveFileName(parentWidget(), tr("Export Comparison Report"),
                                                    QStringLiteral("comparison.html"), tr("HTML (*.html)"));
  if (path.isEmpty()) return;
  // laid out and written off the GUI thread: a large graph takes Graphviz a while
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, path] {
    const QString problem = watcher->result();
    watcher->deleteLater();
    if (!problem.isEmpty()) QMessageBox::warning(parentWidget(), tr("Export Comparison Report"), problem);
    else Q_EMIT reportExported(path);
  });
  watcher->setFuture(QtConcurrent::run(backgroundPool(), [c, program, path]() -> QString {
    torchir::ReportInput in;
    in.programPath = program->request.path.toStdString();
    in.reference = c->reference;
    in.a = &program->program;
    in.b = c->referenceProgram.get();
    in.nodes = &c->nodes;
    if (c->sensitivity) in.charts.push_back(torchir::sensitivityChart(*c->sensitivity, program->program));
    in.outputSqnrDb = c->outputSqnrDb;
    for (const auto& n : c->nodes) {
      if (!in.firstDivergence && n.startsDivergence) in.firstDivergence = &n;
      if (!in.firstNonfinite && n.makesNonfinite) in.firstNonfinite = &n;
    }
    try {
      const std::string html = torchir::comparisonReportHtml(in);
      QFile f(path);
      if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(html.data(), static_cast<qint64>(html.size())) < 0)
        return tr("Cannot write %1").arg(QFileInfo(path).fileName());
      return {};
    } catch (const std::exception& e) {
      return tr("No report: %1").arg(QString::fromUtf8(e.what()));
    }
  }));
}

void CompareMenu::saveCsv() {
  const ComparisonPtr c = m_session->comparison();
  if (!c || !m_session->program()) return;
  const QString path = QFileDialog::getSaveFileName(parentWidget(), tr("Save Comparison"),
                                                    QStringLiteral("comparison.csv"), tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
      f.write(QByteArray::fromStdString(torchir::comparisonCsv(c->nodes, m_session->program()->program, *c->referenceProgram))) < 0)
    QMessageBox::warning(parentWidget(), tr("Save Comparison"), tr("Cannot write %1").arg(QFileInfo(path).fileName()));
}

}  // namespace torchir::ui
