#include "panels/SensitivityChart.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "compare/TensorMetrics.h"

namespace torchir::ui {
namespace {

constexpr int kRowHeight = 18;
constexpr int kHeader = 22;
constexpr int kLabelWidth = 230;
constexpr int kValueWidth = 64;

}  // namespace

SensitivityChart::SensitivityChart(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("sensitivityChart"));
  setMouseTracking(false);
  setToolTip(tr("Each quantized layer kept in float alone: the output's SQNR it gives back (dB). Click a bar to select the layer."));
}

void SensitivityChart::setResult(std::shared_ptr<const torchir::Program> program,
                                 std::shared_ptr<const torchir::SensitivityResult> result) {
  m_program = std::move(program);
  m_result = std::move(result);
  updateGeometry();
  setMinimumHeight(sizeHint().height());
  update();
}

QSize SensitivityChart::sizeHint() const {
  const int rows = m_result ? static_cast<int>(m_result->layers.size()) : 0;
  return {kLabelWidth + kValueWidth + 200, kHeader + rows * kRowHeight + 6};
}

QString SensitivityChart::labelOf(const torchir::LayerSensitivity& l) const {
  if (!m_program || l.node < 0 || static_cast<std::size_t>(l.node) >= m_program->nodes.size()) return {};
  const torchir::Node& n = m_program->node(l.node);
  const auto& frames = n.moduleFrames();
  const QString module = frames.empty() ? QString() : QString::fromStdString(frames.back().path);
  return module.isEmpty() ? QString::fromStdString(n.name) : QStringLiteral("%1  (%2)").arg(module, QString::fromStdString(n.name));
}

void SensitivityChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (!m_result) {
    p.drawText(rect(), Qt::AlignCenter, tr("Compare › Layer Sensitivity ranks the quantized layers here."));
    return;
  }
  p.drawText(QRect(4, 0, width() - 8, kHeader), Qt::AlignVCenter | Qt::AlignLeft,
             tr("Output SQNR %1 dB; kept in float alone, each layer gives back:")
                 .arg(QString::fromStdString(torchir::metricText(m_result->baselineSqnrDb))));
  double most = 0.1;  // the scale: the largest |gain|
  for (const auto& l : m_result->layers)
    if (l.problem.empty() && std::isfinite(l.gainDb)) most = std::max(most, std::abs(l.gainDb));
  const int barLeft = kLabelWidth, barWidth = std::max(40, width() - kLabelWidth - kValueWidth - 8);
  const bool negatives = std::any_of(m_result->layers.begin(), m_result->layers.end(),
                                     [](const auto& l) { return l.problem.empty() && l.gainDb < 0; });
  const int zero = barLeft + (negatives ? barWidth / 4 : 0);
  const double perDb = (barLeft + barWidth - zero) / most;
  for (std::size_t i = 0; i < m_result->layers.size(); ++i) {
    const auto& l = m_result->layers[i];
    const int y = kHeader + static_cast<int>(i) * kRowHeight;
    p.setPen(palette().text().color());
    p.drawText(QRect(4, y, kLabelWidth - 8, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft | Qt::TextSingleLine,
               p.fontMetrics().elidedText(labelOf(l), Qt::ElideMiddle, kLabelWidth - 8));
    if (!l.problem.empty() || !std::isfinite(l.gainDb)) {
      p.drawText(QRect(barLeft, y, barWidth, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft, tr("not measured"));
      continue;
    }
    const int length = static_cast<int>(std::lround(std::max(-most, l.gainDb) * perDb));
    const QRect bar = length >= 0 ? QRect(zero, y + 3, std::max(1, length), kRowHeight - 6)
                                  : QRect(zero + std::max(length, barLeft - zero), y + 3, -std::max(length, barLeft - zero), kRowHeight - 6);
    // the same scale as the graph's colours by sensitivity gain
    const QColor colour = l.gainDb > 6 ? QColor(0xf4, 0x8c, 0x78) : l.gainDb > 1 ? QColor(0xff, 0xd0, 0x8a)
                          : l.gainDb > 0.1 ? QColor(0xff, 0xf3, 0xb0) : QColor(0xd4, 0xed, 0xda);
    p.fillRect(bar, colour);
    p.setPen(QColor(0x88, 0x88, 0x88));
    p.drawRect(bar);
    p.setPen(palette().text().color());
    p.drawText(QRect(barLeft + barWidth + 4, y, kValueWidth, kRowHeight), Qt::AlignVCenter | Qt::AlignRight,
               QStringLiteral("%1 dB").arg(QString::fromStdString(torchir::metricText(l.gainDb))));
  }
  p.setPen(QColor(0x55, 0x55, 0x55));
  p.drawLine(zero, kHeader, zero, kHeader + static_cast<int>(m_result->layers.size()) * kRowHeight);
}

int SensitivityChart::rowAt(int y) const {
  if (!m_result || y < kHeader) return -1;
  const int row = (y - kHeader) / kRowHeight;
  return row < static_cast<int>(m_result->layers.size()) ? row : -1;
}

void SensitivityChart::mousePressEvent(QMouseEvent* event) {
  const int row = rowAt(static_cast<int>(event->position().y()));
  if (row >= 0) Q_EMIT nodeActivated(m_result->layers[static_cast<std::size_t>(row)].node);
  QWidget::mousePressEvent(event);
}

}  // namespace torchir::ui
