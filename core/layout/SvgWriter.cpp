#include "SvgWriter.h"

#include <cmath>
#include <cstdio>

#include "program/EscapedText.h"

namespace torchir::layout {

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// A label from the program (a module path, an input's name, a target) as XML text: markup stays
/// text, and what XML 1.0 cannot hold (a control character, bytes that are not UTF-8) becomes
/// U+FFFD, so the file always parses (program/EscapedText.h).
std::string escape(const std::string& s) { return xmlEscaped(s); }

struct Style {
  const char* fill;
  const char* stroke;
};

Style styleOf(BoxKind k) {
  switch (k) {
    case BoxKind::Op: return {"#e8f0fe", "#4a6fa5"};
    case BoxKind::Input: return {"#e6f4ea", "#3c8d4f"};
    case BoxKind::Output: return {"#fdefd8", "#c77c12"};
    case BoxKind::Module: return {"#eeeeee", "#555555"};
    case BoxKind::Port: return {"#ffffff", "#777777"};
  }
  return {"#ffffff", "#000000"};
}

}  // namespace

std::string layoutToSvg(const Layout& l, const BoxFill& fillOf) {
  const double m = 10;  // margin around the drawing
  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(l.bounds.w + 2 * m) + "\" height=\"" +
       num(l.bounds.h + 2 * m) + "\" viewBox=\"" + num(l.bounds.x - m) + " " + num(l.bounds.y - m) + " " +
       num(l.bounds.w + 2 * m) + " " + num(l.bounds.h + 2 * m) + "\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"11.6\">\n";
  s += "<rect x=\"" + num(l.bounds.x - m) + "\" y=\"" + num(l.bounds.y - m) + "\" width=\"" + num(l.bounds.w + 2 * m) +
       "\" height=\"" + num(l.bounds.h + 2 * m) + "\" fill=\"white\"/>\n";
  for (const Frame& f : l.frames) {
    s += "<rect x=\"" + num(f.rect.x) + "\" y=\"" + num(f.rect.y) + "\" width=\"" + num(f.rect.w) + "\" height=\"" +
         num(f.rect.h) + "\" rx=\"6\" fill=\"#7f7f7f\" fill-opacity=\"0.06\" stroke=\"#8a8a8a\" stroke-dasharray=\"5,3\"/>\n";
    s += "<text x=\"" + num(f.rect.x + 8) + "\" y=\"" + num(f.rect.y + 15) + "\" fill=\"#444\" font-weight=\"bold\">" +
         escape(f.label) + "</text>\n";
  }
  for (const Edge& e : l.edges) {
    if (e.points.empty()) continue;
    std::string d = "M" + num(e.points[0].x) + "," + num(e.points[0].y);
    for (std::size_t i = 1; i + 2 < e.points.size(); i += 3)
      d += " C" + num(e.points[i].x) + "," + num(e.points[i].y) + " " + num(e.points[i + 1].x) + "," +
           num(e.points[i + 1].y) + " " + num(e.points[i + 2].x) + "," + num(e.points[i + 2].y);
    s += "<path d=\"" + d + (e.quantized ? "\" fill=\"none\" stroke=\"#7b1fa2\" stroke-width=\"1.6\" stroke-dasharray=\"5,3\"/>\n"
                                         : "\" fill=\"none\" stroke=\"#555\" stroke-width=\"1.1\"/>\n");
    // Arrowhead: a triangle from the path's end to the tip on the consumer's border.
    const double dx = e.arrowTip.x - e.arrowBase.x, dy = e.arrowTip.y - e.arrowBase.y;
    const double len = std::hypot(dx, dy);
    if (len > 0.1) {
      const double nx = -dy / len * 3.5, ny = dx / len * 3.5;
      s += "<polygon points=\"" + num(e.arrowTip.x) + "," + num(e.arrowTip.y) + " " + num(e.arrowBase.x + nx) + "," +
           num(e.arrowBase.y + ny) + " " + num(e.arrowBase.x - nx) + "," + num(e.arrowBase.y - ny) + "\" fill=\"#555\"/>\n";
    }
    if (!e.label.empty())
      s += "<text x=\"" + num(e.points[0].x + 4) + "\" y=\"" + num(e.points[0].y + 12) + (e.quantized ? "\" fill=\"#7b1fa2\"" : "\" fill=\"#a33\"") + " font-size=\"10\">" +
           escape(e.label) + "</text>\n";
  }
  for (const Box& b : l.boxes) {
    const Style st = styleOf(b.kind);
    const std::string custom = fillOf ? fillOf(b) : std::string();
    const std::string fill = custom.empty() ? std::string(st.fill) : escape(custom);
    if (b.kind == BoxKind::Port) {
      s += "<circle cx=\"" + num(b.rect.x + b.rect.w / 2) + "\" cy=\"" + num(b.rect.y + b.rect.h / 2) + "\" r=\"" +
           num(b.rect.w / 2) + "\" fill=\"" + fill + "\" stroke=\"" + st.stroke + "\"/>\n";
      continue;
    }
    const bool module = b.kind == BoxKind::Module;
    s += "<rect x=\"" + num(b.rect.x) + "\" y=\"" + num(b.rect.y) + "\" width=\"" + num(b.rect.w) + "\" height=\"" +
         num(b.rect.h) + "\" rx=\"" + (b.kind == BoxKind::Op ? "3" : "8") + "\" fill=\"" + fill + "\" stroke=\"" +
         st.stroke + "\"" + (module ? " stroke-width=\"2\"" : "") + "/>\n";
    double y = b.rect.y + 4 + 11;  // box padding + baseline of a 14-pt line
    for (std::size_t i = 0; i < b.lines.size(); ++i, y += 14)
      s += "<text x=\"" + num(b.rect.x + 8) + "\" y=\"" + num(y) + "\"" + (i == 0 ? " font-weight=\"bold\"" : " fill=\"#333\"") +
           ">" + escape(b.lines[i]) + "</text>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace torchir::layout
