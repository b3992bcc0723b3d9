#include "PythonModuleHints.h"

#include <algorithm>
#include <set>

namespace torchir {
namespace {

constexpr std::size_t kMaxModuleName = 200;
constexpr int kMaxSubgraphDepth = 16;

bool isIdentifierStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentifierChar(char c) { return isIdentifierStart(c) || (c >= '0' && c <= '9'); }

/// A dotted name of Python identifiers (ASCII: what a crafted text could hide in others is left out).
bool isModuleName(std::string_view s) {
  if (s.empty() || s.size() > kMaxModuleName) return false;
  bool start = true;
  for (char c : s) {
    if (c == '.') {
      if (start) return false;
      start = true;
    } else if (start ? !isIdentifierStart(c) : !isIdentifierChar(c)) {
      return false;
    } else {
      start = false;
    }
  }
  return !start;
}

/// Modules no program's own op is defined in.
bool isLeftOut(std::string_view m) {
  return m == "__main__" || m == "builtins" || m == "torch" || m.rfind("torch.", 0) == 0;
}

/// The files of a stack trace's frames (`  File "PATH", line N, in f`), innermost (last) first.
std::vector<std::string_view> traceFiles(std::string_view trace) {
  std::vector<std::string_view> files;
  constexpr std::string_view kFile = "File \"";
  for (std::size_t at = trace.find(kFile); at != std::string_view::npos; at = trace.find(kFile, at)) {
    at += kFile.size();
    const std::size_t end = trace.find('"', at);
    if (end == std::string_view::npos) break;
    files.push_back(trace.substr(at, end - at));
    at = end;
  }
  std::reverse(files.begin(), files.end());
  return files;
}

struct Hints {
  std::vector<std::string> fromFiles, fromClasses;
  std::set<std::string> seen;
  void add(std::vector<std::string>& to, std::string m) {
    if (isModuleName(m) && !isLeftOut(m) && seen.insert(m).second) to.push_back(std::move(m));
  }
};

void collect(const Program& p, std::string_view target, Hints& hints, int depth) {
  if (depth > kMaxSubgraphDepth) return;
  for (const Node& n : p.nodes) {
    if (n.target != target) continue;
    for (std::string_view file : traceFiles(n.stackTraceText())) hints.add(hints.fromFiles, moduleOfSourceFile(file));
    const ModuleStack& frames = n.moduleFrames();
    for (auto f = frames.rbegin(); f != frames.rend(); ++f) {
      const auto dot = f->type.rfind('.');
      if (dot != std::string::npos) hints.add(hints.fromClasses, f->type.substr(0, dot));
    }
  }
  for (const Subgraph& s : p.subgraphs)
    if (s.graph) collect(*s.graph, target, hints, depth + 1);
}

}  // namespace

bool isPythonModuleName(std::string_view name) { return isModuleName(name); }

std::vector<std::string> libraryPackagesFor(std::string_view target, const std::vector<std::string>& hints) {
  // the op namespaces of libraries known to define ops in Python, and the package holding them
  struct Library {
    std::string_view ns, package;
  };
  static constexpr Library kLibraries[] = {{"torchao", "torchao"},         {"torchvision", "torchvision"},
                                           {"transformers", "transformers"}, {"executorch", "executorch"},
                                           {"llama", "executorch"}};
  std::string_view ns = target.rfind("torch.ops.", 0) == 0 ? target.substr(10) : target;
  ns = ns.substr(0, ns.find('.'));
  std::vector<std::string> packages;
  auto add = [&](std::string_view package) {
    for (const Library& l : kLibraries)
      if (l.package == package && std::find(packages.begin(), packages.end(), package) == packages.end())
        packages.emplace_back(package);
  };
  for (const Library& l : kLibraries)
    if (l.ns == ns) add(l.package);
  for (const std::string& m : hints) add(std::string_view(m).substr(0, m.find('.')));
  return packages;
}

std::string moduleOfSourceFile(std::string_view path) {
  std::size_t from = std::string_view::npos;
  for (std::string_view folder : {"/site-packages/", "/dist-packages/"}) {
    const std::size_t at = path.rfind(folder);
    if (at != std::string_view::npos && (from == std::string_view::npos || at + folder.size() > from))
      from = at + folder.size();
  }
  if (from == std::string_view::npos) return {};
  std::string_view rest = path.substr(from);
  if (rest.size() < 4 || rest.substr(rest.size() - 3) != ".py") return {};
  rest.remove_suffix(3);
  std::string m(rest);
  std::replace(m.begin(), m.end(), '/', '.');
  constexpr std::string_view kInit = ".__init__";
  if (m.size() > kInit.size() && m.compare(m.size() - kInit.size(), kInit.size(), kInit) == 0) m.resize(m.size() - kInit.size());
  return isModuleName(m) ? m : std::string();
}

std::vector<std::string> pythonModulesNamedFor(const Program& p, std::string_view target) {
  Hints hints;
  collect(p, target, hints, 0);
  std::string_view ns = target.rfind("torch.ops.", 0) == 0 ? target.substr(10) : target;
  ns = ns.substr(0, ns.find('.'));
  std::vector<std::string> out = std::move(hints.fromFiles);
  out.insert(out.end(), hints.fromClasses.begin(), hints.fromClasses.end());
  if (isModuleName(ns) && !isLeftOut(ns) && !hints.seen.count(std::string(ns))) out.emplace_back(ns);
  if (out.size() > kMaxModuleHints) out.resize(kMaxModuleHints);
  return out;
}

}  // namespace torchir
