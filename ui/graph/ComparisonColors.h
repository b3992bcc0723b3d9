#pragma once
// How the graph colours a comparison: each compared node gets a severity under the chosen metric,
// one colour per severity, and the legend's words for each.
#include <QColor>
#include <QString>

#include "compare/PairedRun.h"

namespace torchir::ui {

enum class ComparisonMetric { MaxRel, OwnRel, Cosine, Sqnr, OwnSqnr, SensitivityGain };
/// Every metric, in the legend's order.
constexpr ComparisonMetric kComparisonMetrics[] = {ComparisonMetric::MaxRel, ComparisonMetric::OwnRel,
                                                   ComparisonMetric::Cosine, ComparisonMetric::Sqnr,
                                                   ComparisonMetric::OwnSqnr, ComparisonMetric::SensitivityGain};

/// 0 agrees, 1 and 2 drift (a hundredth, a tenth of the tolerance; by cosine distance or SQNR for
/// those), 3 diverges, 4 NaN or Inf where the reference has numbers; -1 when there is no value.
/// By sensitivity gain (of `record`'s layer sensitivity), 3 is the layer that gives back most when
/// kept in float.
int comparisonSeverity(const torchir::NodeComparison& c, ComparisonMetric metric,
                       const torchir::ComparisonRecord* record = nullptr);
constexpr int kSeverityLevels = 5;
QColor severityColor(int severity);
/// The legend's label of a severity under `metric`.
QString severityLabel(ComparisonMetric metric, int severity);
QString metricName(ComparisonMetric metric);

}  // namespace torchir::ui
