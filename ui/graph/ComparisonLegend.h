#pragma once
#include <QFrame>

#include "graph/ComparisonColors.h"

class QComboBox;
class QLabel;

namespace torchir::ui {

/// The graph's key to a comparison's colours, with the metric they show; over the graph's corner.
class ComparisonLegend : public QFrame {
  Q_OBJECT

 public:
  explicit ComparisonLegend(QWidget* parent = nullptr);
  ComparisonMetric metric() const;
  /// Shows `metric` (as if chosen in the legend: metricChanged follows).
  void setMetric(ComparisonMetric metric);
  /// "Compared with float64", above the key.
  void setReference(const QString& reference);

 Q_SIGNALS:
  void metricChanged(torchir::ui::ComparisonMetric metric);

 private:
  void updateLabels();

  QLabel* m_title = nullptr;
  QComboBox* m_metric = nullptr;
  QLabel* m_labels[kSeverityLevels] = {};
};

}  // namespace torchir::ui
