// torchir check: what would stop a run, found without running it.
#include <iostream>
#include <nlohmann/json.hpp>

#include "Cli.h"
#include "CommandSession.h"
#include "check/ProgramCheck.h"
#include "program/EscapedText.h"
#include "formats/InputsFile.h"

namespace torchir::cli {

int checkCommand(const Args& args) {
  const Program& program = loadForCommand(args.positional.front(), {args.option("--weights"), args.option("--constants")});
  if (!applyBackendOptions(args, {&program})) return kBadInput;
  std::vector<TensorData> inputs;
  if (args.flag("--inputs")) inputs = readInputsFile(program, args.option("--inputs"));
  const std::vector<Problem> problems = checkBeforeRunning(program, args.flag("--inputs") ? &inputs : nullptr);
  const bool stops = stopsARun(problems);

  if (args.flag("--json")) {
    nlohmann::ordered_json out = {{"file", program.source.path}, {"stops_a_run", stops}};
    out["problems"] = nlohmann::ordered_json::array();
    for (const Problem& p : problems)
      out["problems"].push_back({{"severity", std::string(severityName(p.severity))}, {"kind", p.kind},
                                 {"node", p.nodeName}, {"message", p.message}});
    // jsonText: the file's name (and so a message naming it) may hold bytes that are not UTF-8,
    // on which dump() throws; they are written as U+FFFD
    std::cout << jsonText(out, 2) << "\n";
  } else {
    int counts[3] = {0, 0, 0};
    for (const Problem& p : problems) {
      ++counts[static_cast<int>(p.severity)];
      std::cout << severityName(p.severity) << ": " << (p.nodeName.empty() ? "" : "node '" + p.nodeName + "': ")
                << p.kind << ": " << p.message << "\n";
    }
    std::cout << program.source.path << ": " << counts[0] << " error(s), " << counts[1] << " warning(s), " << counts[2]
              << " note(s): " << (stops ? "a run would stop" : "nothing would stop a run") << "\n";
  }
  return stops ? kProgramFault : kOk;
}

}  // namespace torchir::cli
