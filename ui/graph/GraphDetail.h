#pragma once
// How much of a box the graph view paints at a given zoom: text is unreadable (and costly) long
// before the boxes themselves are, so far views paint plain rectangles.
namespace torchir::ui {

enum class Detail { Far, Middle, Near };

/// `scale`: scene points to device pixels (QStyleOptionGraphicsItem::levelOfDetailFromTransform).
/// Far: filled rectangles only; Middle: the title line; Near: every line.
Detail detailFor(double scale);
/// The smallest scales that show titles (Middle) and every line of a box (Near).
constexpr double kMiddleScale = 0.35;
constexpr double kNearScale = 0.6;

}  // namespace torchir::ui
