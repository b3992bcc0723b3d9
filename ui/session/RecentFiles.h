#pragma once
#include <QString>
#include <QStringList>

namespace torchir::ui {

/// The most recently opened programs, newest first, kept in QSettings across runs.
class RecentFiles {
 public:
  static constexpr int kMaxEntries = 10;

  QStringList paths() const;
  /// Moves `path` to the front, dropping the oldest entry beyond kMaxEntries.
  void add(const QString& path);
  void clear();
};

}  // namespace torchir::ui
