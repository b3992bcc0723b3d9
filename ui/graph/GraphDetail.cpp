#include "GraphDetail.h"

namespace torchir::ui {

Detail detailFor(double scale) {
  // The label font is 12 px at scale 1: below ~4 px glyphs are noise, below ~7 px only a bold title
  // line still reads.
  if (scale < kMiddleScale) return Detail::Far;
  if (scale < kNearScale) return Detail::Middle;
  return Detail::Near;
}

}  // namespace torchir::ui
