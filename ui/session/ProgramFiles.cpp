#include "session/ProgramFiles.h"

#include <QFileInfo>
#include <QStringList>

namespace torchir::ui {

namespace {

/// `X` of `X.ir.json` / `X.json` (with its folder), or empty for anything else.
QString irJsonStem(const QString& path) {
  for (const QLatin1String suffix : {QLatin1String(".ir.json"), QLatin1String(".json")})
    if (path.endsWith(suffix, Qt::CaseInsensitive) && path.size() > suffix.size())
      return path.chopped(suffix.size());
  return {};
}

QString firstExisting(const QString& stem, const QStringList& suffixes) {
  for (const QString& suffix : suffixes) {
    const QFileInfo candidate(stem + suffix);
    if (candidate.isFile()) return candidate.filePath();
  }
  return {};
}

}  // namespace

OpenRequest completeRequest(OpenRequest request) {
  const QString stem = irJsonStem(request.path);
  if (stem.isEmpty()) return request;
  // The order pytorch-ir's users save them in: safetensors first, since it is mapped, not unpickled.
  if (request.weightsPath.isEmpty())
    request.weightsPath = firstExisting(stem, {QStringLiteral(".weights.safetensors"), QStringLiteral(".safetensors"),
                                               QStringLiteral(".state_dict.pt"), QStringLiteral(".pt"),
                                               QStringLiteral(".pth"), QStringLiteral(".bin")});
  if (request.constantsPath.isEmpty())
    request.constantsPath = firstExisting(stem, {QStringLiteral(".constants.safetensors")});
  return request;
}

}  // namespace torchir::ui
