#pragma once
#include <QCoreApplication>
#include <QString>

namespace torchir::ui {

// QSettings() without arguments reads these, so the app and its tests share one settings file.
inline const QString kOrganizationName = QStringLiteral("torchir");
inline const QString kApplicationName = QStringLiteral("torchir-studio");

inline void applyApplicationIdentity() {
  QCoreApplication::setOrganizationName(kOrganizationName);
  QCoreApplication::setApplicationName(kApplicationName);
}

}  // namespace torchir::ui
