#pragma once
// What the commands that run a program share: --threads, --executors, the Python, and the debugger's target.
#include "Cli.h"
#include "debug/Debugger.h"

namespace torchir::cli {

/// --threads N, --executors LIB.so|FILE.py and the Python that runs ops defined in Python
/// (--python, --python-import, --python-timeout), applied to the backend; false (the error
/// printed) when one cannot be. `--python-import auto` imports the modules `programs` point to
/// whose source defines an op they lack.
bool applyBackendOptions(const Args& args, const std::vector<const Program*>& programs = {});

/// A program loadForCommand keeps for the whole command, shared without ownership.
std::shared_ptr<const Program> keptProgram(const Program& program);

/// What a verb's debugger runs: `program`, the inputs --random-inputs SEED, else --inputs F (by
/// input name or input_<i>), else the archive's samples (else random ones of seed 0 where
/// `randomWhenNone`, else a LoadError), and --cast-weights.
DebugTarget commandTarget(const Program& program, const Args& args, bool randomWhenNone);

}  // namespace torchir::cli
