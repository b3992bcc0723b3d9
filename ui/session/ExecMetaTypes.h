#pragma once
// The engine's plain types as Qt meta types, so they cross threads in queued signals.
#include <QMetaType>
#include <memory>

#include "check/ProgramCheck.h"
#include "exec/ExecTypes.h"
#include "exec/Session.h"
#include "program/TensorData.h"

Q_DECLARE_METATYPE(torchir::Diagnosis)
Q_DECLARE_METATYPE(torchir::TensorData)
Q_DECLARE_METATYPE(torchir::StopReason)
Q_DECLARE_METATYPE(std::vector<torchir::Problem>)
Q_DECLARE_METATYPE(torchir::PatchTrial)
Q_DECLARE_METATYPE(std::vector<torchir::ArgumentPatch>)
