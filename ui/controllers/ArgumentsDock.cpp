#include "controllers/ArgumentsDock.h"

#include <QMainWindow>
#include <utility>

#include "panels/ArgumentsModel.h"
#include "panels/ArgumentsPanel.h"
#include "program/TensorValues.h"
#include "session/Selection.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {
namespace {

/// A body's input as the Arguments panel shows it: its dtype and shape, and its elements when few.
torchir::ValueSummary summaryOf(const torchir::TensorData& t) {
  torchir::ValueSummary v;
  v.kind = "Tensor";
  v.dtype = t.dtype;
  v.sizes = t.sizes;
  v.device = "cpu";
  constexpr int64_t kShownElements = 8;
  if (t.hasData() && t.numel() <= kShownElements) {
    QStringList elements;
    try {
      for (int64_t i = 0; i < t.numel(); ++i) elements << QString::number(torchir::elementAsDouble(t, i), 'g', 6);
      v.text = (t.sizes.empty() ? elements.join(QString()) : QStringLiteral("[%1]").arg(elements.join(QStringLiteral(", ")))).toStdString();
    } catch (const std::exception&) {  // a dtype read as no double (complex, float8): its summary alone
    }
  }
  return v;
}

/// The "Body Call" rows of `body`'s call `call`: its iteration, then each input of the body.
std::vector<ArgumentsModel::Row> callRows(const torchir::Program& program, const BodyOrigin& body, std::size_t call) {
  std::vector<ArgumentsModel::Row> rows;
  if (call >= body.calls.size()) return rows;
  const torchir::BodyCall& c = body.calls[call];
  torchir::ValueSummary iteration;
  iteration.kind = "int";
  iteration.text = std::to_string(c.iteration);
  rows.push_back(ArgumentsModel::summaryRow(QStringLiteral("iteration"), QStringLiteral("int"),
                                            QStringLiteral("of %1 calls of %2, from 0").arg(body.calls.size() + body.notKept).arg(body.graph),
                                            iteration));
  std::vector<torchir::ValueId> inputs;
  for (const torchir::InputSpec& s : program.inputs)
    if (s.kind == torchir::InputKind::UserInput) inputs.push_back(s.value);
  for (std::size_t i = 0; i < c.operands.size() && i < inputs.size(); ++i) {
    const int from = i < c.carriedFrom.size() ? c.carriedFrom[i] : -1;
    const QString source = from >= 0 ? QStringLiteral("carried: output %1 of iteration %2").arg(from).arg(c.iteration - 1)
                                     : QStringLiteral("given by %1").arg(body.node);
    ArgumentsModel::Row row = ArgumentsModel::summaryRow(QString::fromStdString(program.value(inputs[i]).name),
                                                         QStringLiteral("Tensor"), source, summaryOf(c.operands[i]));
    row.value = inputs[i];  // the body's placeholder holds it: the tensor dock opens it
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

ArgumentsDock::ArgumentsDock(const StudioContext& studio, ArgumentsPanel* panel)
    : QObject(&studio.window), m_session(&studio.session), m_panel(panel) {
  connect(&studio.selection, &Selection::changed, this, &ArgumentsDock::showNode);
  connect(&studio.selection, &Selection::shownAgain, this, &ArgumentsDock::showNode);
}

void ArgumentsDock::setProgram(LoadedProgramPtr program) {
  m_program = std::move(program);
  m_panel->clear();
}

void ArgumentsDock::showNode(torchir::NodeId node) {
  if (!m_program || node == torchir::kNone) return;
  // the session's records are of the program on screen once it started on it, none before
  const bool ours = m_session->program() == m_program;
  const torchir::Diagnosis& d = m_session->diagnosis();
  if (m_program->body)
    m_panel->model()->setCallRows(callRows(m_program->program, *m_program->body, ours ? m_session->call() : 0));
  m_panel->showNode(m_program->program, node, ours ? m_session->record(node) : nullptr,
                    ours && d.node == node && !d.ok() ? &d : nullptr);
}

}  // namespace torchir::ui
