#include "session/ComparisonResult.h"

#include <QFile>

namespace torchir::ui {

torchir::ReferenceSpec referenceSpec(const CompareRequest& request) {
  torchir::ReferenceSpec spec;
  spec.kind = request.kind == CompareRequest::File      ? torchir::ReferenceSpec::Kind::File
              : request.kind == CompareRequest::Weights ? torchir::ReferenceSpec::Kind::Weights
                                                        : torchir::ReferenceSpec::Kind::Shadow;
  if (request.kind == CompareRequest::Dtype) spec.floatingAs = request.dtype;
  spec.path = QFile::encodeName(request.path).toStdString();
  spec.options.tolerance = request.tolerance;
  return spec;
}

}  // namespace torchir::ui
