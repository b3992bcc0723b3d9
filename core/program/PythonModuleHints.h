#pragma once
// The Python modules a program points to for an op the dispatcher lacks (an op defined in
// Python): read from the program alone, never imported. A suggestion for the user, who decides
// what the worker imports; a crafted program names whatever it likes here.
#include <string>
#include <string_view>
#include <vector>

#include "Program.h"

namespace torchir {

/// At most this many modules are named for one op.
constexpr std::size_t kMaxModuleHints = 12;

/// The modules the nodes of `target` ("ns.name.overload", FX's form) point to, nearest first:
/// - the files of their stack traces under a site-packages or dist-packages folder, as module
///   names, innermost frame first (`.../site-packages/transformers/integrations/moe.py` is
///   `transformers.integrations.moe`);
/// - the modules of their `nn_module_stack` classes, innermost first
///   (`transformers.models.mixtral.modeling_mixtral` for `...modeling_mixtral.MixtralExperts`);
/// - the op's namespace, where it is a module name (`transformers`, `torchao`).
/// Only dotted Python identifiers of at most 200 characters; torch's own modules, `__main__` and
/// `builtins` are left out. Nodes of subgraphs count too.
std::vector<std::string> pythonModulesNamedFor(const Program& p, std::string_view target);

/// The installed libraries whose modules define ops of `target`'s namespace (torchao, torchvision,
/// transformers, executorch), and those of the modules in `hints`: the worker reads their
/// sources for the op's registration.
std::vector<std::string> libraryPackagesFor(std::string_view target, const std::vector<std::string>& hints);

/// A dotted name of Python identifiers, at most 200 characters.
bool isPythonModuleName(std::string_view name);

/// `path` (a stack trace's file) as a module name, or "" when it is not under a site-packages or
/// dist-packages folder or is no module.
std::string moduleOfSourceFile(std::string_view path);

}  // namespace torchir
