#pragma once
#include <QString>
#include <QWidget>
#include <cstdint>
#include <vector>

#include "panels/TensorStats.h"
#include "program/QuantOps.h"
#include "program/TensorData.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;
class QWidget;

namespace torchir::ui {

class HeatmapWidget;
class HistogramWidget;
class TensorSliceModel;

/// One tensor: its statistics, and a 2-D slice of it as a grid, a heatmap and a histogram.
/// Statistics are computed off the GUI thread; when tensors arrive faster, the latest one wins.
class TensorViewer : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kHistogramBins = 64;

  explicit TensorViewer(QWidget* parent = nullptr);

  /// `dequantization`: the qparams of an integer tensor of codes (a quantized value): the grid shows
  /// each code with its real number, the histogram the codes over the quant range, and the
  /// statistics how many sit at quant_min and quant_max (clipped).
  void setTensor(const QString& title, const torchir::TensorData& tensor,
                 std::optional<torchir::Dequantization> dequantization = {});
  /// A compared node's output: this run's, the reference's and this run's minus the reference's
  /// (float64), with a choice between them; the difference first, its heatmap showing where they part.
  /// `dequantization`: the qparams of a quantized output, whose codes each side then shows with
  /// the real numbers they stand for (a device's int8 values and the program's).
  void setCompared(const QString& title, const torchir::TensorData& run, const torchir::TensorData& reference,
                   const torchir::TensorData& difference, std::optional<torchir::Dequantization> dequantization = {});
  enum ComparedSide { ThisRun, Reference, Difference };
  /// The side shown, or -1 for a tensor of its own.
  int comparedSide() const;
  /// No tensor to show, and why (released by the memory budget, not run yet, not a tensor).
  void setUnavailable(const QString& why);
  void clear();
  /// Writes the tensor to a `.safetensors` file under its title.
  bool saveTo(const QString& path, QString* error);
  /// The current slice as TSV on the clipboard.
  void copySlice();

  QString title() const { return m_titleText; }
  bool hasTensor() const { return m_hasTensor; }
  TensorSliceModel* sliceModel() const { return m_slice; }
  /// The statistics of the tensor shown, once the worker has delivered them.
  bool statsReady() const { return m_statsReady; }
  const TensorStats& stats() const { return m_stats; }

 Q_SIGNALS:
  /// The statistics of the current tensor arrived (for tests and status bars).
  void statsComputed(const QString& title);

 private:
  struct StatsResult {
    TensorStats stats;
    std::vector<int64_t> histogram;
    double histogramLo = 0, histogramHi = 0;
    int64_t atQuantMin = 0, atQuantMax = 0;  // with qparams: codes clamped to the range's ends
    QString error;
  };
  static StatsResult computeStats(const torchir::TensorData& tensor, std::optional<torchir::Dequantization> dequantization);

  void rebuildAxes();
  void axesChosen();
  void indexChosen();
  void sliceChanged();
  void refreshHeatmap();
  void applyStats(quint64 generation, const StatsResult& result);
  void saveWithDialog();
  void display(const QString& title, const torchir::TensorData& tensor,
               std::optional<torchir::Dequantization> dequantization = {});
  void sideChosen();

  TensorSliceModel* m_slice = nullptr;
  QLabel* m_title = nullptr;
  QLabel* m_statsLabel = nullptr;
  QComboBox* m_rowAxis = nullptr;
  QComboBox* m_colAxis = nullptr;
  QWidget* m_indexBar = nullptr;
  std::vector<QSpinBox*> m_indexSpins;  // by dim; nullptr for the row/column dims
  QTabWidget* m_tabs = nullptr;
  QTableView* m_grid = nullptr;
  HeatmapWidget* m_heatmap = nullptr;
  HistogramWidget* m_histogram = nullptr;
  QPushButton* m_copy = nullptr;
  QPushButton* m_save = nullptr;
  QComboBox* m_side = nullptr;  // shown with a comparison only
  QString m_comparedTitle;
  std::vector<torchir::TensorData> m_compared;  // by ComparedSide
  std::optional<torchir::Dequantization> m_comparedDequantization;  // of the run and reference sides

  QString m_titleText;
  bool m_hasTensor = false;
  bool m_heatmapDirty = true;
  bool m_statsReady = false;
  TensorStats m_stats;
  QLabel* m_quantLabel = nullptr;  // a quantized tensor's codes: how many clipped, the qparams
  std::optional<torchir::Dequantization> m_dequantization;  // of the tensor shown
  quint64 m_generation = 0;  // bumps with each tensor; late results of older ones are dropped
};

}  // namespace torchir::ui
