#include "windows/CompareMenu.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

namespace torchir::ui {

CompareMenu::CompareMenu(SessionController* session, QWidget* parent)
    : QMenu(tr("&Compare"), parent), m_session(session) {
  setObjectName(QStringLiteral("compareMenu"));
  auto shadow = [this](torchir::DType dtype, const QString& name, const QString& text) {
    QAction* a = addAction(text, this, [this, dtype] { m_session->compareWith({CompareRequest::Dtype, dtype, {}}); });
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
  m_compareActions << file << weights;
  addSeparator();
  m_save = addAction(tr("&Save Comparison as CSV…"), this, &CompareMenu::saveCsv);
  m_save->setObjectName(QStringLiteral("actionSaveComparison"));
  connect(m_session, &SessionController::stateChanged, this, &CompareMenu::updateEnabled);
  connect(m_session, &SessionController::comparisonChanged, this, &CompareMenu::updateEnabled);
  updateEnabled();
}

void CompareMenu::updateEnabled() {
  for (QAction* a : m_compareActions) a->setEnabled(m_session->canCompare());
  m_save->setEnabled(m_session->comparison() != nullptr);
}

void CompareMenu::chooseFile(CompareRequest::Kind kind) {
  const bool program = kind == CompareRequest::File;
  const QString path = QFileDialog::getOpenFileName(
      parentWidget(), program ? tr("Compare with Program") : tr("Compare with Weights"), {},
      program ? tr("Exported programs (*.pt2 *.json);;All files (*)")
              : tr("Weights (*.safetensors *.pt *.pth *.bin);;All files (*)"));
  if (!path.isEmpty()) m_session->compareWith({kind, torchir::DType::Float64, path});
}

void CompareMenu::saveCsv() {
  const ComparisonPtr c = m_session->comparison();
  if (!c || !m_session->program()) return;
  const QString path = QFileDialog::getSaveFileName(parentWidget(), tr("Save Comparison"),
                                                    QStringLiteral("comparison.csv"), tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
      f.write(comparisonCsv(*c, m_session->program()->program).toUtf8()) < 0)
    QMessageBox::warning(parentWidget(), tr("Save Comparison"), tr("Cannot write %1").arg(QFileInfo(path).fileName()));
}

}  // namespace torchir::ui
