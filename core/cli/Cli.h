#pragma once
#include <string>
#include <vector>

#include "formats/ProgramLoader.h"

namespace torchir::cli {

/// Exit codes: 0 success, 1 the program itself is at fault, 2 unusable input or usage.
enum Exit { kOk = 0, kProgramFault = 1, kBadInput = 2 };

/// Parsed `torchir VERB FILE [--flag] [--option VALUE]` words.
struct Args {
  std::string verb;
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> options;  // --name value ("" for flags)
  bool flag(const std::string& name) const;
  std::string option(const std::string& name, const std::string& fallback = "") const;
  /// Every value of a repeatable option, in the order given.
  std::vector<std::string> all(const std::string& name) const;
};

/// The program a command works on (an IR JSON with the weights and constants next to it, as the
/// studio finds them: withCompanionFiles), kept until the process exits: the exit gives its memory back
/// at once, where freeing a large program's nodes one by one costs a tenth of opening it.
const Program& loadForCommand(const std::string& path, const LoadOptions& options = {});

int run(int argc, char** argv);
int infoCommand(const Args& args);
/// `info` of an ExecuTorch program: its plans, operators, delegates, segments and planned memory.
int pteInfoCommand(const Args& args);
int tableCommand(const Args& args);
int convertCommand(const Args& args);
int runCommand(const Args& args);
/// What would stop a run, without running: 0 nothing would, 1 something would, 2 unusable input.
int checkCommand(const Args& args);
/// Two runs in lockstep (compare/PairedRun): 0 nothing diverges, 1 a node diverges or a value is
/// non-finite, 2 unusable input.
int compareCommand(const Args& args);
/// An ETRecord's Edge program against a device's ETDump (compare --etdump): 0 the device agrees,
/// 1 an instruction diverges, 2 unusable input.
int deviceCompareCommand(const Args& args);
/// A node's or module's part of a .pt2 as a repro: OUT.pt2, its inputs and outputs, OUT.py.
int extractCommand(const Args& args);
/// In torchir_layout (Graphviz): binaries that call run() link it.
int layoutCommand(const Args& args);

}  // namespace torchir::cli
