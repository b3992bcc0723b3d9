#include "graph/ComparisonColors.h"

#include <QObject>
#include <cmath>

#include "quant/LayerSensitivity.h"

namespace torchir::ui {

namespace {

/// The legend's bands: above 60 dB, above 40, above 20, 20 or below.
int bySqnr(double s) { return s > 60 ? 0 : s > 40 ? 1 : s > 20 ? 2 : 3; }

}  // namespace

int comparisonSeverity(const torchir::NodeComparison& c, ComparisonMetric metric, const torchir::ComparisonRecord* record) {
  if (metric == ComparisonMetric::SensitivityGain) {
    const torchir::LayerSensitivity* l = record && record->sensitivity ? record->sensitivity->of(c.a) : nullptr;
    if (!l || !l->problem.empty()) return -1;
    return l->gainDb > 6 ? 3 : l->gainDb > 1 ? 2 : l->gainDb > 0.1 ? 1 : 0;
  }
  if (!c.problem.empty()) return -1;
  if (c.makesNonfinite || c.metrics.nonfiniteApart > 0 || !c.metrics.comparable()) return 4;
  auto byTolerance = [&](double x) {
    const double r = c.tolerance > 0 ? x / c.tolerance : (x > 0 ? INFINITY : 0);
    return r > 1 ? 3 : r > 0.1 ? 2 : r > 0.01 ? 1 : 0;
  };
  switch (metric) {
    case ComparisonMetric::MaxRel: return byTolerance(c.metrics.maxRel);
    case ComparisonMetric::OwnRel: return c.ownRel ? byTolerance(*c.ownRel) : -1;
    case ComparisonMetric::Cosine: {
      const double d = 1 - c.metrics.cosine;
      return d > 1e-2 ? 3 : d > 1e-4 ? 2 : d > 1e-6 ? 1 : 0;
    }
    case ComparisonMetric::Sqnr: return bySqnr(c.metrics.sqnrDb);
    case ComparisonMetric::OwnSqnr: return c.ownSqnrDb ? bySqnr(*c.ownSqnrDb) : -1;
    case ComparisonMetric::SensitivityGain: break;
  }
  return -1;
}

QColor severityColor(int severity) {
  switch (severity) {
    case 0: return QColor(0xd4, 0xed, 0xda);
    case 1: return QColor(0xff, 0xf3, 0xb0);
    case 2: return QColor(0xff, 0xd0, 0x8a);
    case 3: return QColor(0xf4, 0x8c, 0x78);
    case 4: return QColor(0xd0, 0xa8, 0xf5);
    default: return {};
  }
}

QString severityLabel(ComparisonMetric metric, int severity) {
  if (severity == 4) return QObject::tr("NaN/Inf or shapes apart");
  switch (metric) {
    case ComparisonMetric::MaxRel:
    case ComparisonMetric::OwnRel: {
      static const char* const kLabels[] = {"< 1% of tolerance", "< 10% of tolerance", "within tolerance", "diverges"};
      return QObject::tr(kLabels[severity]);
    }
    case ComparisonMetric::Cosine: {
      static const char* const kLabels[] = {"1 - cos < 1e-6", "< 1e-4", "< 1e-2", ">= 1e-2"};
      return QObject::tr(kLabels[severity]);
    }
    case ComparisonMetric::Sqnr:
    case ComparisonMetric::OwnSqnr: {
      static const char* const kLabels[] = {"SQNR > 60 dB", "> 40 dB", "> 20 dB", "<= 20 dB"};
      return QObject::tr(kLabels[severity]);
    }
    case ComparisonMetric::SensitivityGain: {
      static const char* const kLabels[] = {"in float: gains <= 0.1 dB", "> 0.1 dB", "> 1 dB", "> 6 dB"};
      return QObject::tr(kLabels[severity]);
    }
  }
  return {};
}

QString metricName(ComparisonMetric metric) {
  switch (metric) {
    case ComparisonMetric::MaxRel: return QObject::tr("max rel");
    case ComparisonMetric::OwnRel: return QObject::tr("own rel");
    case ComparisonMetric::Cosine: return QObject::tr("cosine");
    case ComparisonMetric::Sqnr: return QObject::tr("SQNR");
    case ComparisonMetric::OwnSqnr: return QObject::tr("own SQNR");
    case ComparisonMetric::SensitivityGain: return QObject::tr("sensitivity gain");
  }
  return {};
}

}  // namespace torchir::ui
