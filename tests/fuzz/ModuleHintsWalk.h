#pragma once
// What a missing op's diagnosis reads of a program: the modules its stack traces, module classes
// and namespaces point to, for each op it calls (at most 32 of them, as a fuzz run's time allows).
#include <set>
#include <string>

#include "program/Program.h"
#include "program/PythonModuleHints.h"

namespace torchir::fuzz {

inline void walkModuleHints(const Program& p) {
  std::set<std::string> targets;
  for (const Node& n : p.nodes)
    if (isOpNode(n) && targets.size() < 32) targets.insert(n.target);
  for (const std::string& target : targets) {
    const std::vector<std::string> hints = pythonModulesNamedFor(p, target);
    for (const std::string& m : hints)
      if (!isPythonModuleName(m)) __builtin_trap();  // only module names are ever suggested
    (void)libraryPackagesFor(target, hints);
  }
}

}  // namespace torchir::fuzz
