#pragma once
// Layer sensitivity as a bar chart: one bar per quantized layer, the output's SQNR it gives back
// when kept in float alone (dB), ranked; a click selects the layer.
#include <QWidget>
#include <memory>

#include "quant/LayerSensitivity.h"
#include "program/Program.h"

namespace torchir::ui {

class SensitivityChart : public QWidget {
  Q_OBJECT

 public:
  explicit SensitivityChart(QWidget* parent = nullptr);
  /// Shows `result` for `program`'s nodes; null clears the chart.
  void setResult(std::shared_ptr<const torchir::Program> program, std::shared_ptr<const torchir::SensitivityResult> result);
  const torchir::SensitivityResult* result() const { return m_result.get(); }
  QSize sizeHint() const override;

 Q_SIGNALS:
  void nodeActivated(torchir::NodeId node);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  QString labelOf(const torchir::LayerSensitivity& l) const;
  int rowAt(int y) const;

  std::shared_ptr<const torchir::Program> m_program;
  std::shared_ptr<const torchir::SensitivityResult> m_result;
};

}  // namespace torchir::ui
