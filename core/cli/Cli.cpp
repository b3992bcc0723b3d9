#include "Cli.h"

#include <iostream>
#include <set>
#include <vector>

#include "program/CompanionFiles.h"
#include "program/LoadError.h"

namespace torchir::cli {
namespace {

const char* kUsage =
    "usage: torchir info FILE [--json] [--weights F] [--constants F]\n"
    "       torchir table FILE [--json]\n"
    "       torchir convert FILE.pt2 -o IR.json\n"
    "       torchir run FILE [--weights F] [--constants F] [--inputs F.safetensors] [--random-inputs SEED]\n"
    "                   [--executors LIB.so] [--threads N] [--cast-weights]\n"
    "                   [--save-outputs F.safetensors] [--trace] [--stop-on nan|dtype|shape] [--json] [--verbose]\n"
    "       torchir compare A [B] [--against float64|float32|float16|bfloat16|cuda] [--weights F] [--weights-b F]\n"
    "                       [--inputs F | --random-inputs SEED] [--inputs-b F] [--tolerance T] [--json] [--csv F] [--threads N]\n"
    "                       [--cast-weights]\n"
    "       torchir layout FILE [--format svg|json|dot] [-o OUT] [--expand all|DEPTH|MODULE[,MODULE...]]\n"
    "                      [--weights-as-nodes (dot only)]\n";

// Options that take a value; everything else starting with -- is a flag.
const std::set<std::string> kValued = {"--weights", "--constants", "-o", "--output", "--inputs", "--random-inputs",
                                      "--save-outputs", "--stop-on", "--executors", "--threads", "--format",
                                      "--expand", "--against", "--weights-b", "--inputs-b", "--tolerance", "--csv"};

}  // namespace

bool Args::flag(const std::string& name) const {
  for (const auto& [k, v] : options)
    if (k == name) return true;
  return false;
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
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return kOk;
    }
    if (a.rfind("-", 0) == 0 && a.size() > 1) {
      if (kValued.count(a)) {
        if (i + 1 >= argc) {
          std::cerr << "error: " << a << " needs a value\n" << kUsage;
          return kBadInput;
        }
        args.options.emplace_back(a, argv[++i]);
      } else {
        args.options.emplace_back(a, "");
      }
    } else if (args.verb.empty()) {
      args.verb = a;
    } else {
      args.positional.push_back(a);
    }
  }
  if (args.positional.empty() || args.positional.size() > (args.verb == "compare" ? 2u : 1u)) {
    std::cerr << kUsage;
    return kBadInput;
  }
  try {
    if (args.verb == "info") return infoCommand(args);
    if (args.verb == "table") return tableCommand(args);
    if (args.verb == "convert") return convertCommand(args);
    if (args.verb == "run") return runCommand(args);
    if (args.verb == "compare") return compareCommand(args);
    if (args.verb == "layout") return layoutCommand(args);
  } catch (const LoadError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    // libtorch's c10::Error goes on for lines of context and a backtrace: --verbose shows them
    std::cerr << "error: " << oneLine(args.positional.front()) << ": "
              << (args.flag("--verbose") ? std::string(e.what()) : firstLine(e.what())) << "\n";
    return kBadInput;
  }
  std::cerr << "error: unknown command '" << args.verb << "'\n" << kUsage;
  return kBadInput;
}

}  // namespace torchir::cli
