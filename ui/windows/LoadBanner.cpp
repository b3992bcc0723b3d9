#include "windows/LoadBanner.h"

#include <QFileInfo>
#include <QStringList>


namespace torchir::ui {

LoadBanner::LoadBanner(QWidget* parent) : QLabel(parent) {
  setObjectName(QStringLiteral("loadErrorLabel"));
  setTextFormat(Qt::RichText);
  setWordWrap(true);  // shown whole: a long message wraps at the window's width
  setStyleSheet(
      QStringLiteral("QLabel { background: #fdecea; color: #8a1c14; border: 1px solid #f5c2bd; border-radius: 3px;"
                     " padding: 4px 8px; }"));
  // Ignored across: a long message must wrap, not widen the window to fit itself; its height is
  // what the wrapped text needs at the window's width.
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  hide();
  connect(this, &QLabel::linkActivated, this, &QWidget::hide);
}

void LoadBanner::showLoadError(const QString& path, const QString& problem) {
  const QString message = tr("Could not open %1: %2").arg(QFileInfo(path).fileName(), problem);
  setText(QStringLiteral("%1 &nbsp;<a href=\"dismiss\">Dismiss</a>").arg(message.toHtmlEscaped()));
  setToolTip(tr("%1: %2").arg(path, problem));
  show();
}

QString LoadBanner::showDataProblems(const LoadedProgram& loaded) {
  hide();
  setToolTip({});
  if (const auto& missing = loaded.missingData; !missing.empty()) {
    QStringList names;
    for (std::size_t i = 0; i < missing.size() && i < 4; ++i) names << QString::fromStdString(missing[i]);
    if (missing.size() > 4) names << tr("… %1 more").arg(missing.size() - 4);
    setText(tr("No data for %1 weight(s): %2 &nbsp;<a href=\"weights\">Supply weights…</a> &nbsp;"
               "<a href=\"dismiss\">Dismiss</a>")
                .arg(missing.size())
                .arg(names.join(QStringLiteral(", ")).toHtmlEscaped()));
    show();
    return {};
  }
  const auto& other = loaded.weightsOfOtherDtype;
  if (other.empty()) return {};
  const QString text = QString::fromStdString(torchir::describeWeightsOfOtherDtype(other));
  if (loaded.request.castWeights) return tr("%1: cast to the export's dtypes").arg(text);
  setText(tr("%1 &nbsp;<a href=\"cast\">Cast to the export's dtypes</a> &nbsp;<a href=\"dismiss\">Dismiss</a>")
              .arg(text.toHtmlEscaped()));
  show();
  return {};
}

void LoadBanner::showNote(const QString& note) {
  if (!isHidden()) return;
  setText(QStringLiteral("%1 &nbsp;<a href=\"dismiss\">Dismiss</a>").arg(note.toHtmlEscaped()));
  setToolTip(note);
  show();
}

}  // namespace torchir::ui
