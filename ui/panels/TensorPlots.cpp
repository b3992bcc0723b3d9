#include "panels/TensorPlots.h"

#include <QPainter>
#include <QPaintEvent>
#include <algorithm>
#include <cmath>

#include "panels/ShapeText.h"
#include "panels/TensorSliceModel.h"

namespace torchir::ui {

namespace {

// Beyond this many pixels per side the slice is subsampled: a screen shows no more anyway.
constexpr int kMaxImageSide = 2048;
constexpr int kLegendHeight = 22;


QRgb mix(QColor a, QColor b, double t) {
  t = std::clamp(t, 0.0, 1.0);
  return qRgb(int(a.red() + (b.red() - a.red()) * t), int(a.green() + (b.green() - a.green()) * t),
              int(a.blue() + (b.blue() - a.blue()) * t));
}

}  // namespace

HeatmapScale::HeatmapScale(double min, double max)
    : m_min(min), m_max(max), m_absMax(std::max(std::abs(min), std::abs(max))), m_diverging(min < 0) {}

QRgb HeatmapScale::color(double v) const {
  static const QColor blue(0x2c, 0x5a, 0xa0), white(0xff, 0xff, 0xff), red(0xb2, 0x18, 0x2b), dark(0x08, 0x30, 0x6b);
  if (std::isnan(v)) return qRgb(0x9e, 0x9e, 0x9e);
  if (m_diverging) {
    // Symmetric around 0, so equal magnitudes get equal strength on both sides.
    if (m_absMax <= 0) return white.rgb();
    const double t = std::clamp(v / m_absMax, -1.0, 1.0);
    return t < 0 ? mix(white, blue, -t) : mix(white, red, t);
  }
  if (m_max <= m_min) return mix(white, dark, 0.5);
  return mix(white, dark, (v - m_min) / (m_max - m_min));
}

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent) { setMinimumSize(120, 80); }

void HeatmapWidget::showSlice(const TensorSliceModel& slice) {
  const int rows = slice.rowCount(), cols = slice.columnCount();
  if (rows == 0 || cols == 0) {
    clear();
    return;
  }
  const int stepR = (rows + kMaxImageSide - 1) / kMaxImageSide, stepC = (cols + kMaxImageSide - 1) / kMaxImageSide;
  const int h = (rows + stepR - 1) / stepR, w = (cols + stepC - 1) / stepC;
  std::vector<double> values(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
  double lo = INFINITY, hi = -INFINITY;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double v = slice.value(y * stepR, x * stepC);
      values[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)] = v;
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
  if (!std::isfinite(lo)) lo = hi = 0;
  const HeatmapScale scale(lo, hi);
  m_image = QImage(w, h, QImage::Format_RGB32);
  for (int y = 0; y < h; ++y) {
    auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(y));
    for (int x = 0; x < w; ++x) {
      double v = values[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)];
      if (std::isinf(v)) v = v > 0 ? hi : lo;  // the ends of the scale
      line[x] = scale.color(v);
    }
  }
  m_min = lo;
  m_max = hi;
  m_diverging = scale.diverging();
  update();
}

void HeatmapWidget::clear() {
  m_image = QImage();
  m_min = m_max = 0;
  update();
}

void HeatmapWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().window());
  if (m_image.isNull()) return;
  const QRect area = rect().adjusted(4, 4, -4, -kLegendHeight - 4);
  // Nearest-neighbour scaling: every element stays a sharp block.
  const QSize size = m_image.size().scaled(area.size(), Qt::KeepAspectRatio);
  const QRect target(area.topLeft() + QPoint((area.width() - size.width()) / 2, 0), size);
  p.drawImage(target, m_image);

  const QRect legend(4, height() - kLegendHeight, std::min(200, width() - 8), 10);
  const HeatmapScale scale(m_min, m_max);
  for (int x = 0; x < legend.width(); ++x) {
    const double t = legend.width() > 1 ? double(x) / (legend.width() - 1) : 0;
    p.setPen(QColor(scale.color(m_min + (m_max - m_min) * t)));
    p.drawLine(legend.left() + x, legend.top(), legend.left() + x, legend.bottom());
  }
  p.setPen(palette().windowText().color());
  p.drawRect(legend.adjusted(0, 0, -1, -1));
  p.drawText(QPoint(legend.right() + 6, legend.bottom()),
             QStringLiteral("min %1   max %2%3")
                 .arg(numberText(m_min), numberText(m_max), m_diverging ? QStringLiteral("   (0 is white)") : QString()));
}

HistogramWidget::HistogramWidget(QWidget* parent) : QWidget(parent) { setMinimumSize(120, 80); }

void HistogramWidget::setData(std::vector<int64_t> bins, double lo, double hi, int64_t nanCount, int64_t infCount) {
  m_bins = std::move(bins);
  m_lo = lo;
  m_hi = hi;
  m_nan = nanCount;
  m_inf = infCount;
  update();
}

void HistogramWidget::clear() { setData({}, 0, 0, 0, 0); }

QString HistogramWidget::note() const {
  QString text = QStringLiteral("%1 … %2").arg(numberText(m_lo), numberText(m_hi));
  if (m_nan) text += QStringLiteral("   NaN: %1").arg(m_nan);
  if (m_inf) text += QStringLiteral("   Inf: %1").arg(m_inf);
  return text;
}

void HistogramWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (m_bins.empty()) return;
  const QRect area = rect().adjusted(6, 6, -6, -kLegendHeight - 4);
  const int64_t peak = std::max<int64_t>(1, *std::max_element(m_bins.begin(), m_bins.end()));
  const double barWidth = double(area.width()) / double(m_bins.size());
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(0x2c, 0x5a, 0xa0));
  for (std::size_t i = 0; i < m_bins.size(); ++i) {
    const double h = double(area.height()) * double(m_bins[i]) / double(peak);
    p.drawRect(QRectF(area.left() + barWidth * double(i), area.bottom() - h, std::max(1.0, barWidth - 1), h));
  }
  p.setPen(palette().text().color());
  p.drawText(QRect(6, height() - kLegendHeight, width() - 12, kLegendHeight), Qt::AlignLeft | Qt::AlignVCenter,
             note() + QStringLiteral("   peak %1").arg(peak));
}

}  // namespace torchir::ui
