#include "session/CaptureMapping.h"

namespace torchir::ui {

std::shared_ptr<torchir::Capture> captureOf(const CapturedRun& run, const torchir::Program& p) {
  auto capture = std::make_shared<torchir::Capture>();
  for (torchir::NodeId n : run.marks.breakpoints) capture->breakpoints.push_back(p.node(n).name);
  for (const auto& [n, patches] : run.patches) capture->patches[p.node(n).name] = patches;
  capture->next = run.marks.current == torchir::kNone ? std::string() : p.node(run.marks.current).name;
  for (std::size_t n = 0; n < run.records.size(); ++n)
    if (run.records[n] && run.marks.executed[n]) capture->records.emplace_back(p.nodes[n].name, *run.records[n]);
  capture->diagnosis = run.diagnosis;
  for (const auto& [node, slot] : run.marks.bookmarks) capture->bookmarks[slot] = p.node(node).name;
  for (const auto& [node, text] : run.notes) capture->notes[p.node(node).name] = text.toStdString();
  if (run.comparison) capture->comparison = torchir::namedComparison(*run.comparison, p);
  return capture;
}

void showCaptured(const torchir::Capture& c, std::shared_ptr<const torchir::Program> program, CapturedRun& run) {
  const torchir::Program& p = *program;
  for (const auto& [name, record] : c.records)
    if (const auto n = p.findNode(name)) {
      run.records[static_cast<std::size_t>(*n)] = std::make_shared<const torchir::NodeRecord>(record);
      run.marks.executed[static_cast<std::size_t>(*n)] = true;
    }
  const auto next = c.next.empty() ? std::nullopt : p.findNode(c.next);
  run.marks.current = next ? *next : torchir::kNone;
  run.marks.breakpoints.clear();  // the capture's, not those stored for the file
  for (const auto& name : c.breakpoints)
    if (const auto n = p.findNode(name)) run.marks.breakpoints.insert(*n);
  for (const auto& [slot, name] : c.bookmarks)
    if (const auto n = p.findNode(name)) run.marks.bookmarks[*n] = slot;
  for (const auto& [name, text] : c.notes)
    if (const auto n = p.findNode(name)) run.notes[*n] = QString::fromStdString(text), run.marks.noted.insert(*n);
  for (const auto& [name, tensor] : c.pinned)
    if (const auto v = p.findValue(name)) run.pinned.insert(*v);
  for (const auto& [name, patches] : c.patches)
    if (const auto n = p.findNode(name)) run.patches[*n] = patches, run.marks.patched.insert(*n);
  if (c.comparison)  // the table's metric columns and the graph's colours, as they were
    run.comparison = std::make_shared<const ComparisonResult>(torchir::comparisonFromNames(*c.comparison, program));
  run.diagnosis = c.diagnosis;
  if (!run.diagnosis.ok()) {
    const auto failed = p.findNode(run.diagnosis.nodeName);
    run.diagnosis.node = failed ? *failed : torchir::kNone;
    run.marks.failed = run.diagnosis.node;
  }
}

}  // namespace torchir::ui
