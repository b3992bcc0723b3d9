#pragma once
// The graph's font and colours, shared by the items that paint and the metric the layout sizes
// boxes with, so every label fits its box. Colours are those of the command line's SVG
// (core/layout/SvgWriter.cpp), so a saved drawing and the window look alike.
#include <QColor>
#include <QFont>

#include "layout/LayoutTypes.h"

namespace torchir::ui::graphstyle {

/// The label font: a monospace face at a fixed pixel size, so scene units are the same on screen,
/// in SVG and in PNG whatever the device's DPI.
QFont labelFont();
QFont titleFont();  // bold
QFont edgeLabelFont();  // smaller, for the output index on an edge
/// Height of one label line in scene units; the layout gets the same from the metric.
double lineHeight();
/// Baseline of a line below its top, in scene units.
double ascent();
/// A thread-safe metric over labelFont() for LayoutWorker: its QFontMetricsF is made on the first
/// call, i.e. on the layout thread.
layout::TextMeasure textMeasure();

constexpr double kBoxPadX = 8;  // as LayoutEngine places the text
constexpr double kBoxPadY = 4;

QColor fill(layout::BoxKind kind);
/// Quantized edges (a folded quantize/dequantize pair) and their labels: #7b1fa2, as in the SVG.
QColor quantizedColor();
QColor stroke(layout::BoxKind kind);

}  // namespace torchir::ui::graphstyle
