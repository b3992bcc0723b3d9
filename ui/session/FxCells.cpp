#include "session/FxCells.h"

#include <future>
#include <string>
#include <unordered_map>

namespace torchir::ui {
namespace {

/// A cell text that many rows repeat, made once per thread and shared (QString copies share their
/// characters): the four opcodes, the few hundred targets of a program's calls, and the empty args
/// and kwargs of placeholders. At 100k ops that is half the cells' allocations; in a thread's fresh
/// heap arena, every few dozen of them cost a page the kernel must clear.
class RepeatedTexts {
 public:
  const QString& of(const std::string& text) {
    auto it = m_made.find(text);
    if (it == m_made.end()) it = m_made.emplace(text, QString::fromStdString(text)).first;
    return it->second;
  }

 private:
  std::unordered_map<std::string, QString> m_made;
};

/// Args and kwargs are shared only when short: most are as many distinct texts as there are rows.
constexpr std::size_t kLongestSharedArgs = 2;  // "()", "{}"

}  // namespace

FxCells fxCellsOf(const torchir::Program& program) {
  const std::size_t rows = program.nodes.size();
  FxCells cells(rows);
  auto make = [&program, &cells](std::size_t first, std::size_t last) {
    RepeatedTexts repeated;
    auto argsCell = [&repeated](const std::string& text) {
      return text.size() <= kLongestSharedArgs ? repeated.of(text) : QString::fromStdString(text);
    };
    torchir::fxTableRows(program, first, last, [&](std::size_t i, torchir::FxRow&& row) {
      QString name = QString::fromStdString(row.name);
      // a placeholder's or get_attr's target is mostly its own name; a call's, one of a few ops
      QString target = row.target == row.name              ? name
                       : row.opcode.rfind("call_", 0) == 0 ? repeated.of(row.target)
                                                           : QString::fromStdString(row.target);
      cells[i] = {repeated.of(row.opcode), std::move(name), std::move(target), argsCell(row.args),
                  argsCell(row.kwargs)};
    });
  };
  // Below a few thousand rows a thread costs more than it saves.
  constexpr std::size_t kRowsWorthAThread = 4096;
  if (rows < kRowsWorthAThread) {
    make(0, rows);
    return cells;
  }
  auto secondHalf = std::async(std::launch::async, make, rows / 2, rows);
  make(0, rows / 2);
  secondHalf.get();
  return cells;
}

}  // namespace torchir::ui
