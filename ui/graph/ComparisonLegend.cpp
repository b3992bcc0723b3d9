#include "graph/ComparisonLegend.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>

namespace torchir::ui {

ComparisonLegend::ComparisonLegend(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("comparisonLegend"));
  setFrameShape(QFrame::StyledPanel);
  setAutoFillBackground(true);
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(6, 4, 6, 4);
  grid->setVerticalSpacing(2);
  m_title = new QLabel(this);
  grid->addWidget(m_title, 0, 0, 1, 2);
  m_metric = new QComboBox(this);
  m_metric->setObjectName(QStringLiteral("comparisonMetric"));
  for (ComparisonMetric m : kComparisonMetrics)
    m_metric->addItem(metricName(m), static_cast<int>(m));
  grid->addWidget(m_metric, 1, 0, 1, 2);
  for (int s = 0; s < kSeverityLevels; ++s) {
    auto* swatch = new QLabel(this);
    swatch->setFixedSize(14, 14);
    swatch->setStyleSheet(QStringLiteral("background: %1; border: 1px solid #888;").arg(severityColor(s).name()));
    m_labels[s] = new QLabel(this);
    grid->addWidget(swatch, 2 + s, 0);
    grid->addWidget(m_labels[s], 2 + s, 1);
  }
  connect(m_metric, &QComboBox::currentIndexChanged, this, [this] {
    updateLabels();
    Q_EMIT metricChanged(metric());
  });
  updateLabels();
}

void ComparisonLegend::setMetric(ComparisonMetric metric) {
  m_metric->setCurrentIndex(m_metric->findData(static_cast<int>(metric)));
}

ComparisonMetric ComparisonLegend::metric() const { return static_cast<ComparisonMetric>(m_metric->currentData().toInt()); }

void ComparisonLegend::setReference(const QString& reference) {
  m_title->setText(tr("Compared with %1").arg(reference));
  adjustSize();
}

void ComparisonLegend::updateLabels() {
  for (int s = 0; s < kSeverityLevels; ++s) m_labels[s]->setText(severityLabel(metric(), s));
  adjustSize();
}

}  // namespace torchir::ui
