#include "session/ProgramFiles.h"

#include <QFile>

#include "formats/CompanionFiles.h"

namespace torchir::ui {

OpenRequest completeRequest(OpenRequest request) {
  const torchir::LoadOptions given{QFile::encodeName(request.weightsPath).toStdString(),
                                   QFile::encodeName(request.constantsPath).toStdString()};
  const torchir::LoadOptions found = torchir::withCompanionFiles(QFile::encodeName(request.path).toStdString(), given);
  if (request.weightsPath.isEmpty()) request.weightsPath = QFile::decodeName(found.weightsPath.c_str());
  if (request.constantsPath.isEmpty()) request.constantsPath = QFile::decodeName(found.constantsPath.c_str());
  return request;
}

}  // namespace torchir::ui
