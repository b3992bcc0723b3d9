#pragma once
#include <QLabel>
#include <QString>

#include "session/LoadedProgram.h"

namespace torchir::ui {

/// The banner above the graph: a file that could not be opened, or what the program shown lacks,
/// with links that fix it ("weights": supply weights, "cast": reopen with the weights cast) and
/// one that dismisses it. Inline rather than a message box: a bad file must not interrupt whoever
/// is reading the graph. Any link hides it; linkActivated() says which.
class LoadBanner : public QLabel {
  Q_OBJECT

 public:
  explicit LoadBanner(QWidget* parent);

  /// The file's name and the problem, the path in the tooltip.
  void showLoadError(const QString& path, const QString& problem);
  /// Weights without data, else weights of another dtype than the export's; hidden when neither.
  /// Weights cast to the export's dtypes on opening (request.castWeights) are no problem: their
  /// note is returned instead, for the status bar.
  QString showDataProblems(const LoadedProgram& loaded);
  /// A note on how the program was read (a program cache entry refused), unless a problem of the
  /// program is shown: that one matters more.
  void showNote(const QString& note);
};

}  // namespace torchir::ui
