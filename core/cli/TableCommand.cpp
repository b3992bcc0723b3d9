#include <algorithm>
#include <array>
#include <iostream>
#include <nlohmann/json.hpp>

#include "Cli.h"
#include "program/EscapedText.h"
#include "program/FxTable.h"
#include "formats/ProgramLoader.h"

namespace torchir::cli {

int tableCommand(const Args& args) {
  const Program& program = loadForCommand(args.positional.front());
  const auto rows = fxTable(program);
  if (args.flag("--json")) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& r : rows)
      out.push_back({{"opcode", r.opcode}, {"name", r.name}, {"target", r.target}, {"args", r.args}, {"kwargs", r.kwargs}});
    std::cout << jsonText(out, 1) << "\n";  // names that are not UTF-8 as U+FFFD, never an exception
    return kOk;
  }
  // print_tabular's layout: columns padded to their widest cell, dashes under the header.
  std::vector<std::array<std::string, 5>> cells{{"opcode", "name", "target", "args", "kwargs"}};
  for (const auto& r : rows) cells.push_back({r.opcode, r.name, r.target, r.args, r.kwargs});
  std::array<std::size_t, 5> width{};
  for (const auto& c : cells)
    for (std::size_t i = 0; i < 5; ++i) width[i] = std::max(width[i], c[i].size());
  auto print = [&](const std::array<std::string, 5>& c) {
    std::string line;
    for (std::size_t i = 0; i < 5; ++i) line += c[i] + std::string(width[i] - c[i].size() + 2, ' ');
    line.erase(line.find_last_not_of(' ') + 1);
    std::cout << line << "\n";
  };
  print(cells.front());
  std::array<std::string, 5> dashes;
  for (std::size_t i = 0; i < 5; ++i) dashes[i] = std::string(width[i], '-');
  print(dashes);
  for (std::size_t i = 1; i < cells.size(); ++i) print(cells[i]);
  return kOk;
}

}  // namespace torchir::cli
