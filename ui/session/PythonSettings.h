#pragma once
// Preferences › Python: the Python that runs ops defined in Python, remembered in the settings.
// Read on the engine's thread each time a program opens; TORCHIR_PYTHON stands in when none is set.
#include "pyhost/PythonHostOptions.h"

namespace torchir::ui {

/// What the settings say (python empty: none set), without the environment.
PythonHostOptions savedPythonHost();
void savePythonHost(const PythonHostOptions& options);
/// The options a session uses: the saved ones, else TORCHIR_PYTHON (with the saved modules).
PythonHostOptions effectivePythonHost();

}  // namespace torchir::ui
