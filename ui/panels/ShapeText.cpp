#include "panels/ShapeText.h"

#include <QStringList>

namespace torchir::ui {

namespace {

QString bracketed(const QStringList& items) { return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']'); }

}  // namespace

QString sizesText(const std::vector<int64_t>& sizes) {
  QStringList dims;
  for (int64_t s : sizes) dims << QString::number(s);
  return bracketed(dims);
}

QString exportedShapeText(const torchir::Value& value) {
  QStringList dims;
  for (const torchir::Dim& d : value.shape)
    dims << (d.isSymbolic() ? QString::fromStdString(d.expr) : QString::number(d.hint));
  return bracketed(dims);
}

QString valueSummaryText(const torchir::ValueSummary& value) {
  if (value.kind != "Tensor" || value.dtype == torchir::DType::Unknown) return QString::fromStdString(value.text);
  return QString::fromLatin1(torchir::dtypeName(value.dtype).data()) + sizesText(value.sizes);
}

QString numberText(double v) { return QString::asprintf("%.6g", v); }

}  // namespace torchir::ui
