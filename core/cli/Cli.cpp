// The command line: each command and its options declared once (kCommands), parsed by CLI11,
// handed to the command as Args.
#include "Cli.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <vector>

#include "formats/CompanionFiles.h"
#include "program/LoadError.h"
#include "program/OneLine.h"

namespace torchir::cli {
namespace {

struct OptionSpec {
  const char* names;  // CLI11's "-o,--output"; the last name is the one commands ask for
  const char* value;  // what it takes ("F.safetensors"); nullptr for a flag
  const char* help;
  bool repeatable = false;
};

struct CommandSpec {
  const char* verb;
  const char* help;
  const char* files;  // what the positional files are, as help shows them
  int maxFiles;
  int (*run)(const Args&);
  std::vector<OptionSpec> options;
};

const char* kProgramFile = "the program: a .pt2, or an IR JSON (its weights found next to it)";
const OptionSpec kWeights{"--weights", "F", "weights: a .safetensors file or a torch.save state dict"};
const OptionSpec kConstants{"--constants", "F", "lifted tensor constants (.safetensors)"};
const OptionSpec kInputs{"--inputs", "F.safetensors", "inputs, by input name or as input_0, input_1, ..."};
const OptionSpec kRandomInputs{"--random-inputs", "SEED", "random inputs of the exported shapes and dtypes"};
const OptionSpec kThreads{"--threads", "N", "intra-op threads (eager's bits at eager's count)"};
const OptionSpec kCastWeights{"--cast-weights", nullptr, "cast weights of another dtype to the export's"};
const OptionSpec kJson{"--json", nullptr, "machine-readable output"};
const OptionSpec kExecutors{"--executors", "LIB.so|FILE.py",
                            "executors for custom ops: a library (TORCHIR_REGISTER_EXECUTOR) or a pytorch-ir executor "
                            "file run in --python (repeatable)", true};
const OptionSpec kPython{"--python", "PATH",
                         "the Python that runs ops defined in Python (default: $TORCHIR_PYTHON; none: no Python runs)"};
const OptionSpec kPythonImport{"--python-import", "MODULE",
                               "a module that Python imports first, to define its ops (repeatable); auto: the modules the "
                               "program points to whose source defines an op it lacks",
                               true};
const OptionSpec kPythonTimeout{"--python-timeout", "SECONDS", "the longest one call in Python may take (default 600)"};

const std::vector<CommandSpec> kCommands = {
    {"info", "format, versions, counts, parameters, op histogram, weights without data", kProgramFile, 1, infoCommand,
     {kJson, kWeights, kConstants}},
    {"table", "the FX table (opcode, name, target, args, kwargs) as print_tabular prints it", kProgramFile, 1,
     tableCommand, {kJson}},
    {"convert", "the IR JSON pytorch-ir writes for the same program", "the program (.pt2)", 1, convertCommand,
     {{"-o,--output", "IR.json", "where to write it"}, kPython, kPythonImport}},
    {"check", "what would stop a run, found without running it (exit 1 when something would)", kProgramFile, 1,
     checkCommand,
     {kWeights, kConstants, {"--inputs", "F.safetensors", "inputs to check against the export (dtype, shape, ranges)"},
      kExecutors, kPython, kPythonImport, kJson}},
    {"run", "run the program node by node; a failing node prints its diagnosis (exit 1)", kProgramFile, 1, runCommand,
     {kWeights, kConstants, kInputs, kRandomInputs,
      kExecutors, kPython, kPythonImport, kPythonTimeout,
      kThreads, kCastWeights,
      {"--save-outputs", "F.safetensors", "save the outputs as output_0, output_1, ..."},
      {"--expect", "F.safetensors", "check the outputs against output_<i> of F bit for bit (exit 1 when one differs)"},
      {"--trace", nullptr, "each node's output dtype, shape and time"},
      {"--stop-on", "nan|dtype|shape", "stop at the first NaN/Inf, or dtype or shape that differs from the export"},
      kJson,
      {"--verbose", nullptr, "libtorch's whole message where a node fails"}}},
    {"compare", "run A in lockstep with a reference; the first divergence, the first NaN/Inf, the worst nodes",
     "the program, then the reference program if it is another (an older export, say); or an ExecuTorch ETRecord with "
     "--etdump",
     2, compareCommand,
     {{"--etdump", "F.etdp", "compare an ExecuTorch device run (the program is its ETRecord) with the Edge program"},
      {"--debug-buffer", "F", "the debug buffer the ETDump's values are in (default: NAME.debug.bin beside it)"},
      {"--pte", "F.pte", "the ExecuTorch program that ran (default: NAME.pte beside the ETRecord)"},
      {"--method", "NAME", "the ETRecord's method (default forward)"},
      {"--against", "float64|float32|float16|bfloat16|cuda", "the reference (default float64)"},
      kWeights,
      {"--weights-b", "F", "other weights for the reference"},
      kConstants, kInputs, kRandomInputs,
      {"--inputs-b", "F.safetensors", "other inputs for the reference"},
      {"--tolerance", "T", "max rel past which a node diverges"},
      kJson,
      {"--csv", "F", "write the per-node table"},
      {"--report", "F.html",
       "write one self-contained HTML page: the worst layers, the sensitivity chart, the graph coloured by SQNR, "
       "every node"},
      {"--sensitivity", nullptr, "keep each quantized layer in float alone; rank layers by the output's SQNR gained"},
      kExecutors, kPython, kPythonImport, kPythonTimeout, kThreads, kCastWeights}},
    {"extract", "a node's or module's part as a .pt2 torch.export.load runs, with the inputs it got in a run",
     kProgramFile, 1, extractCommand,
     {{"--node", "NAME", "the node to cut out (a getitem stands for its op)"},
      {"--module", "PATH", "the module to cut out, as nn_module_stack names it (layer1.0)"},
      {"-o,--output", "OUT.pt2", "the repro (its inputs as example inputs); OUT.outputs.safetensors and OUT.py go beside it"},
      kWeights, kConstants, kInputs, kRandomInputs,
      kExecutors, kPython, kPythonImport, kPythonTimeout, kThreads, kCastWeights}},
    {"layout", "the graph laid out with Graphviz", kProgramFile, 1, layoutCommand,
     {{"--format", "svg|json|dot", "what to write (default svg)"},
      {"-o,--output", "OUT", "where to write it (default: standard output)"},
      {"--expand", "all|DEPTH|MODULE[,MODULE...]", "modules to show open (repeatable)", true},
      {"--weights-as-nodes", nullptr, "weights as nodes of their own (dot only)"}}},
};

const char* kFooter =
    "Exit codes: 0 success, 1 the program itself is at fault, 2 unusable input or usage.\n"
    "FILE is a .pt2 or an IR JSON (its weights and constants found next to it).\n"
    "torchir help COMMAND (or torchir COMMAND --help) shows a command's options.";

/// The option's name as commands ask for it: the last of its names ("--output" of "-o,--output").
std::string canonicalName(const char* names) {
  const std::string all = names;
  return all.substr(all.rfind(',') + 1);
}

/// The commands, their options bound to `values` (one list per option, in kCommands order).
void declare(CLI::App& app, std::vector<std::vector<std::string>>& files,
             std::vector<std::vector<std::vector<std::string>>>& values, std::vector<std::vector<bool>>& flags) {
  app.set_version_flag("--version", std::string("torchir ") + TORCHIR_VERSION + " (libtorch " + TORCHIR_TORCH_VERSION + ")");
  app.footer(kFooter);
  app.require_subcommand(0, 1);
  files.resize(kCommands.size());
  values.resize(kCommands.size());
  flags.resize(kCommands.size());
  for (std::size_t c = 0; c < kCommands.size(); ++c) {
    const CommandSpec& spec = kCommands[c];
    CLI::App* sub = app.add_subcommand(spec.verb, spec.help);
    sub->footer(kFooter);
    sub->add_option(spec.maxFiles > 1 ? "FILES" : "FILE", files[c], spec.files)
        ->required()
        ->expected(1, spec.maxFiles)
        ->type_name("");
    values[c].resize(spec.options.size());
    flags[c].resize(spec.options.size());
    for (std::size_t o = 0; o < spec.options.size(); ++o) {
      const OptionSpec& option = spec.options[o];
      if (!option.value) {
        sub->add_flag_function(
            option.names, [&flags, c, o](std::int64_t) { flags[c][o] = true; }, option.help);
        continue;
      }
      CLI::Option* added = sub->add_option(option.names, values[c][o], option.help)->type_name(option.value);
      if (!option.repeatable) added->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
  }
}

}  // namespace

bool Args::flag(const std::string& name) const {
  for (const auto& [k, v] : options)
    if (k == name) return true;
  return false;
}

std::vector<std::string> Args::all(const std::string& name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : options)
    if (k == name) out.push_back(v);
  return out;
}

std::string Args::option(const std::string& name, const std::string& fallback) const {
  for (const auto& [k, v] : options)
    if (k == name) return v;
  return fallback;
}

const Program& loadForCommand(const std::string& path, const LoadOptions& options) {
  // Every program a command loads (compare loads two), held by a list that is never freed: leak
  // checkers find them through the static pointer, and the exit frees them all at once.
  static auto* const kept = new std::vector<const Program*>();
  kept->push_back(new Program(loadProgram(path, withCompanionFiles(path, options))));
  return *kept->back();
}

int run(int argc, char** argv) {
  CLI::App app{"torchir: inspect, run and compare PyTorch exported programs (.pt2, pytorch-ir JSON)", "torchir"};
  std::vector<std::vector<std::string>> files;
  std::vector<std::vector<std::vector<std::string>>> values;
  std::vector<std::vector<bool>> flags;
  declare(app, files, values, flags);
  std::vector<std::string> topic;
  app.add_subcommand("help", "a command's options: torchir help COMMAND")
      ->add_option("command", topic, "the command")
      ->expected(0, 1)
      ->type_name("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version: printed, success
    std::cerr << "error: " << e.what() << "\n";
    for (const CLI::App* sub : app.get_subcommands())
      std::cerr << "usage: see torchir help " << sub->get_name() << "\n";
    if (app.get_subcommands().empty()) std::cerr << "usage: see torchir --help\n";
    return kBadInput;
  }

  if (CLI::App* help = app.get_subcommand("help"); help->parsed()) {
    if (topic.empty()) {
      std::cout << app.help();
      return kOk;
    }
    try {
      std::cout << app.get_subcommand(topic.front())->help("torchir");
      return kOk;
    } catch (const CLI::OptionNotFound&) {
      std::cerr << "error: no command '" << topic.front() << "' (torchir --help lists them)\n";
      return kBadInput;
    }
  }
  Args args;
  const CommandSpec* command = nullptr;
  for (std::size_t c = 0; c < kCommands.size(); ++c) {
    if (!app.get_subcommand(kCommands[c].verb)->parsed()) continue;
    command = &kCommands[c];
    args.verb = command->verb;
    args.positional = files[c];
    for (std::size_t o = 0; o < command->options.size(); ++o) {
      const std::string name = canonicalName(command->options[o].names);
      if (flags[c][o]) args.options.emplace_back(name, "");
      for (const std::string& v : values[c][o]) args.options.emplace_back(name, v);
    }
  }
  if (!command) {
    std::cerr << app.help();
    return kBadInput;
  }
  try {
    return command->run(args);
  } catch (const LoadError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    // libtorch's c10::Error goes on for lines of context and a backtrace: --verbose shows them
    std::cerr << "error: " << oneLine(args.positional.front()) << ": "
              << (args.flag("--verbose") ? std::string(e.what()) : firstLine(e.what())) << "\n";
    return kBadInput;
  }
}

}  // namespace torchir::cli
