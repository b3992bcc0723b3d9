#pragma once
// The tensor viewer's two pictures of a slice: a heatmap and a histogram, drawn with QPainter.
#include <QImage>
#include <QString>
#include <QWidget>
#include <cstdint>
#include <vector>

namespace torchir::ui {

class TensorSliceModel;

/// Values to colours: diverging (blue, white, red) around 0 when the range crosses 0, sequential
/// (white to dark blue) when every value is >= 0. NaN is grey.
class HeatmapScale {
 public:
  HeatmapScale(double min, double max);
  QRgb color(double v) const;
  bool diverging() const { return m_diverging; }

 private:
  double m_min, m_max, m_absMax;
  bool m_diverging;
};

/// One pixel per element of the slice (subsampled beyond a few thousand per side), scaled to the
/// widget, with a legend of the range.
class HeatmapWidget : public QWidget {
  Q_OBJECT

 public:
  explicit HeatmapWidget(QWidget* parent = nullptr);
  void showSlice(const TensorSliceModel& slice);
  void clear();
  const QImage& image() const { return m_image; }
  double minimum() const { return m_min; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QImage m_image;
  double m_min = 0, m_max = 0;
  bool m_diverging = false;
};

/// Counts of finite values in equal bins, with NaN and Inf counts noted under the bars.
class HistogramWidget : public QWidget {
  Q_OBJECT

 public:
  explicit HistogramWidget(QWidget* parent = nullptr);
  void setData(std::vector<int64_t> bins, double lo, double hi, int64_t nanCount, int64_t infCount);
  void clear();
  const std::vector<int64_t>& bins() const { return m_bins; }
  QString note() const;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::vector<int64_t> m_bins;
  double m_lo = 0, m_hi = 0;
  int64_t m_nan = 0, m_inf = 0;
};

}  // namespace torchir::ui
