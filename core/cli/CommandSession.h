#pragma once
// What the commands that run a program share: --threads, --executors, the Python, and the inputs.
#include "Cli.h"
#include "exec/Session.h"

namespace torchir::cli {

/// --threads N, --executors LIB.so|FILE.py and the Python that runs ops defined in Python
/// (--python, --python-import, --python-timeout), applied to the backend; false (the error
/// printed) when one cannot be.
bool applyBackendOptions(const Args& args);

/// The run's inputs: --random-inputs SEED, else --inputs F (by input name or input_<i>), else the
/// archive's sample inputs. False, the error printed, when there are none or the session refuses them.
bool setCommandInputs(Session& session, const Program& program, const Args& args);

}  // namespace torchir::cli
