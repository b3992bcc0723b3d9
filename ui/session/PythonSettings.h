#pragma once
// Preferences › Python: the Python that runs ops defined in Python, remembered in the settings.
// Read on the engine's thread each time a program opens; TORCHIR_PYTHON stands in when none is set.
#include <QString>
#include <QStringList>

#include "pyhost/PythonHostOptions.h"

namespace torchir::ui {

/// What the settings say (python empty: none set), without the environment.
PythonHostOptions savedPythonHost();
void savePythonHost(const PythonHostOptions& options);
/// The options a session of the program at `programPath` uses: the saved ones, else
/// TORCHIR_PYTHON (with the saved modules), the modules chosen for that program, and those
/// TORCHIR_PYTHON_IMPORTS names for this launch (comma-separated: torchir_studio.open passes
/// the modules of its caller that define the program's ops).
PythonHostOptions effectivePythonHost(const QString& programPath = {});
/// The modules the user chose to import for the program at `path` (the diagnosis's Import button):
/// the program's own, beside Preferences' modules, which every program imports.
QStringList programImports(const QString& path);
void rememberProgramImport(const QString& path, const QString& module);

}  // namespace torchir::ui
