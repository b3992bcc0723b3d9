#include "GraphStyle.h"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

namespace torchir::ui::graphstyle {

QFont labelFont() {
  static const QFont font = [] {
    QFont f(QStringLiteral("DejaVu Sans Mono"));
    f.setStyleHint(QFont::Monospace);
    f.setPixelSize(12);
    return f;
  }();
  return font;
}

QFont edgeLabelFont() {
  static const QFont font = [] {
    QFont f = labelFont();
    f.setPixelSize(10);
    return f;
  }();
  return font;
}

QFont titleFont() {
  static const QFont font = [] {
    QFont f = labelFont();
    f.setBold(true);
    return f;
  }();
  return font;
}

// Cached: read on every paint. GUI thread only (the layout thread has textMeasure()'s own metrics).
double lineHeight() {
  static const double h = QFontMetricsF(labelFont()).lineSpacing();
  return h;
}

double ascent() {
  static const double a = QFontMetricsF(titleFont()).ascent();
  return a;
}

layout::TextMeasure textMeasure() {
  struct Metrics {
    QFont regular = labelFont(), bold = titleFont();  // copied here, on the GUI thread
    std::optional<QFontMetricsF> r, b;                 // made on the layout thread
  };
  auto m = std::make_shared<Metrics>();
  return [m](const std::string& text) -> layout::Size {
    if (!m->r) {
      m->r.emplace(m->regular);
      m->b.emplace(m->bold);
    }
    const QString s = QString::fromStdString(text);
    // The metric does not know which line is the bold title: the wider of the two always fits.
    const double w = std::max(m->r->horizontalAdvance(s), m->b->horizontalAdvance(s));
    return {std::ceil(w), m->r->lineSpacing()};
  };
}

QColor fill(layout::BoxKind kind) {
  switch (kind) {
    case layout::BoxKind::Op: return QColor(0xe8, 0xf0, 0xfe);
    case layout::BoxKind::Input: return QColor(0xe6, 0xf4, 0xea);
    case layout::BoxKind::Output: return QColor(0xfd, 0xef, 0xd8);
    case layout::BoxKind::Module: return QColor(0xee, 0xee, 0xee);
    case layout::BoxKind::Port: return QColor(Qt::white);
  }
  return QColor(Qt::white);
}

QColor stroke(layout::BoxKind kind) {
  switch (kind) {
    case layout::BoxKind::Op: return QColor(0x4a, 0x6f, 0xa5);
    case layout::BoxKind::Input: return QColor(0x3c, 0x8d, 0x4f);
    case layout::BoxKind::Output: return QColor(0xc7, 0x7c, 0x12);
    case layout::BoxKind::Module: return QColor(0x55, 0x55, 0x55);
    case layout::BoxKind::Port: return QColor(0x77, 0x77, 0x77);
  }
  return QColor(Qt::black);
}

QColor quantizedColor() { return QColor(0x7b, 0x1f, 0xa2); }

}  // namespace torchir::ui::graphstyle
