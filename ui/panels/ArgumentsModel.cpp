#include "panels/ArgumentsModel.h"

#include <QBrush>
#include <QColor>
#include <QStringList>
#include <algorithm>
#include <set>

#include "panels/ExportedArgument.h"
#include "panels/ShapeText.h"

namespace torchir::ui {

namespace {

// Group rows carry id 0; children carry their group's row + 1, so parent() needs no lookup.
constexpr quintptr kGroupId = 0;
constexpr int kTooltipThreshold = 40;

QString dtypeText(torchir::DType t) {
  return t == torchir::DType::Unknown ? QString() : QString::fromLatin1(torchir::dtypeName(t).data());
}


QString sourceText(const torchir::ArgumentRecord& a) {
  const QString source = QString::fromLatin1(torchir::argSourceName(a.source).data());
  const QString detail = QString::fromStdString(a.sourceDetail);
  // "default" with detail "schema default" says the same thing twice.
  if (detail.isEmpty() || detail.contains(source)) return detail.isEmpty() ? source : detail;
  return QStringLiteral("%1 (%2)").arg(source, detail);
}

ArgumentsModel::Row rowFromSummary(const QString& name, const QString& type, const QString& source,
                                   const torchir::ValueSummary& v) {
  ArgumentsModel::Row row;
  row.tensor = v.kind == "Tensor" && v.dtype != torchir::DType::Unknown;
  row.dtype = row.tensor ? v.dtype : torchir::DType::Unknown;
  row.cells[ArgumentsModel::Name] = name;
  row.cells[ArgumentsModel::Type] = type;
  row.cells[ArgumentsModel::Source] = source;
  row.cells[ArgumentsModel::Value] = valueSummaryText(v);
  row.cells[ArgumentsModel::DType] = dtypeText(row.dtype);
  if (row.tensor) {
    row.cells[ArgumentsModel::Shape] = sizesText(v.sizes);
    row.cells[ArgumentsModel::Strides] = sizesText(v.strides);
  }
  row.cells[ArgumentsModel::Device] = QString::fromStdString(v.device);
  return row;
}

// The graph value an argument named `name` passes as a single tensor, if the node has one.
std::optional<torchir::ValueId> inputValue(const torchir::Program& p, const torchir::Node& node,
                                           const torchir::ArgumentRecord* record, const std::string& name) {
  for (const torchir::NodeArgument& a : node.inputs) {
    if (a.name != name || a.values.size() != 1) continue;
    if (p.value(a.values.front()).kind == torchir::ValueKind::Tensor) return a.values.front();
  }
  // pytorch-ir's flat inputs are not named by schema: the engine recorded which value it placed.
  if (record && (record->source == torchir::ArgSource::Input || record->source == torchir::ArgSource::Inferred)) {
    if (auto v = p.findValue(record->sourceDetail); v && p.value(*v).kind == torchir::ValueKind::Tensor) return v;
  }
  return std::nullopt;
}

std::vector<ArgumentsModel::Row> argumentRows(const torchir::Program& p, const torchir::Node& node,
                                              const std::vector<torchir::ArgumentRecord>& args) {
  std::vector<ArgumentsModel::Row> rows;
  for (const torchir::ArgumentRecord& a : args) {
    ArgumentsModel::Row row = rowFromSummary(QString::fromStdString(a.name), QString::fromStdString(a.declaredType),
                                             sourceText(a), a.value);
    if (row.tensor) row.value = inputValue(p, node, &a, a.name);
    rows.push_back(std::move(row));
  }
  return rows;
}

ArgumentsModel::Row exportedValueRow(const QString& name, const QString& type, const QString& source,
                                     const QString& value, const torchir::Value* v) {
  ArgumentsModel::Row row;
  row.cells[ArgumentsModel::Name] = name;
  row.cells[ArgumentsModel::Type] = type;
  row.cells[ArgumentsModel::Source] = source;
  row.cells[ArgumentsModel::Value] = value;
  if (v && v->kind == torchir::ValueKind::Tensor) {
    row.tensor = true;
    row.dtype = v->dtype;
    row.value = v->id;
    row.cells[ArgumentsModel::DType] = dtypeText(v->dtype);
    row.cells[ArgumentsModel::Shape] = exportedShapeText(*v);
    if (!v->strides.empty()) row.cells[ArgumentsModel::Strides] = sizesText(v->strides);
    row.cells[ArgumentsModel::Device] = QString::fromStdString(v->device);
  }
  return row;
}

std::vector<ArgumentsModel::Row> exportedOutputRows(const torchir::Program& p, const torchir::Node& node,
                                                    const QString& source) {
  static const char* kKinds[] = {"Tensor", "SymInt", "SymFloat", "SymBool", "object", "token", "None"};
  std::vector<ArgumentsModel::Row> rows;
  for (torchir::ValueId id : node.outputs) {
    const torchir::Value& v = p.value(id);
    const QString name = QString::fromStdString(v.name);
    const QString value = v.kind == torchir::ValueKind::Tensor
                              ? dtypeText(v.dtype) + exportedShapeText(v)
                              : name;
    rows.push_back(exportedValueRow(name, QLatin1String(kKinds[static_cast<int>(v.kind)]), source, value, &v));
  }
  return rows;
}

// Ops want their floating tensors in one dtype and all tensors on one device: when a call mixes
// them, every tensor taking part in the mix is marked, since either side may be the one to change.
void markOddOnes(std::vector<ArgumentsModel::Row>& rows) {
  std::set<torchir::DType> floating;
  std::set<QString> devices;
  for (const auto& r : rows) {
    if (!r.tensor) continue;
    if (torchir::isFloating(r.dtype)) floating.insert(r.dtype);
    if (!r.cells[ArgumentsModel::Device].isEmpty()) devices.insert(r.cells[ArgumentsModel::Device]);
  }
  for (auto& r : rows) {
    if (!r.tensor) continue;
    QStringList why;
    if (floating.size() > 1 && torchir::isFloating(r.dtype)) {
      QStringList others;
      for (torchir::DType t : floating)
        if (t != r.dtype) others << dtypeText(t);
      why << QStringLiteral("'%1' is %2 while other floating tensor arguments of this call are %3: "
                            "the op needs one dtype, so cast one side.")
                 .arg(r.cells[ArgumentsModel::Name], dtypeText(r.dtype), others.join(QStringLiteral(", ")));
    }
    if (devices.size() > 1 && !r.cells[ArgumentsModel::Device].isEmpty()) {
      QStringList others;
      for (const QString& d : devices)
        if (d != r.cells[ArgumentsModel::Device]) others << d;
      why << QStringLiteral("'%1' is on %2 while other tensor arguments are on %3: move them to one device.")
                 .arg(r.cells[ArgumentsModel::Name], r.cells[ArgumentsModel::Device], others.join(QStringLiteral(", ")));
    }
    r.highlight = why.join(QLatin1Char('\n'));
  }
}

}  // namespace

ArgumentsModel::ArgumentsModel(QObject* parent) : QAbstractItemModel(parent) {}

void ArgumentsModel::setNode(const torchir::Program& program, torchir::NodeId nodeId,
                             const torchir::NodeRecord* record, const torchir::Diagnosis* failure) {
  beginResetModel();
  for (int g = 0; g < CallGroup; ++g) m_groups[static_cast<std::size_t>(g)].clear();
  m_hasNode = nodeId >= 0 && static_cast<std::size_t>(nodeId) < program.nodes.size();
  if (m_hasNode) {
    const torchir::Node& node = program.node(nodeId);
    auto& args = m_groups[ArgumentsGroup];
    auto& outs = m_groups[OutputsGroup];
    if (record) {
      args = argumentRows(program, node, record->arguments);
      for (std::size_t i = 0; i < record->outputs.size(); ++i) {
        const bool named = i < node.outputs.size();
        const QString name = named ? QString::fromStdString(program.value(node.outputs[i]).name)
                                   : QStringLiteral("output %1").arg(i);
        Row row = rowFromSummary(name, QString::fromStdString(record->outputs[i].kind), QStringLiteral("result"),
                                 record->outputs[i]);
        if (row.tensor && named) row.value = node.outputs[i];
        outs.push_back(std::move(row));
      }
      // A subgraph's values live in its own frame: their rows show summaries, nothing to open.
      for (const torchir::InnerRecord& in : record->inner) {
        const torchir::ValueSummary first = in.record.outputs.empty() ? torchir::ValueSummary{} : in.record.outputs.front();
        Row row = rowFromSummary(QString::fromStdString(in.name), QString::fromStdString(in.target),
                                 QString::fromStdString(in.graph), first);
        QStringList outputs;
        for (const auto& o : in.record.outputs) outputs << valueSummaryText(o);
        row.cells[Value] = outputs.join(QStringLiteral(", "));
        m_groups[InsideGroup].push_back(std::move(row));
      }
    } else if (failure && failure->node == nodeId) {
      args = argumentRows(program, node, failure->arguments);
      outs = exportedOutputRows(program, node, QStringLiteral("not produced (failed)"));
      // The failed call's outputs do not exist: there is nothing to open.
      for (Row& r : outs) r.value.reset();
    } else {
      const QString notRun = QStringLiteral("not run yet");
      const torchir::ArgumentText python(program);
      for (const torchir::NodeArgument& a : node.inputs) {
        const ExportedArgumentText text = exportedArgumentText(python, a);
        const torchir::Value* v = a.values.size() == 1 ? &program.value(a.values.front()) : nullptr;
        args.push_back(exportedValueRow(QString::fromStdString(a.name), text.type, notRun, text.value, v));
      }
      outs = exportedOutputRows(program, node, notRun);
    }
    markOddOnes(args);
  }
  showGroups();
  endResetModel();
}

void ArgumentsModel::clear() {
  beginResetModel();
  m_hasNode = false;
  for (auto& g : m_groups) g.clear();
  showGroups();
  endResetModel();
}

ArgumentsModel::Row ArgumentsModel::summaryRow(const QString& name, const QString& type, const QString& source,
                                               const torchir::ValueSummary& v) {
  return rowFromSummary(name, type, source, v);
}

void ArgumentsModel::setCallRows(std::vector<Row> rows) {
  beginResetModel();
  m_groups[CallGroup] = std::move(rows);
  showGroups();
  endResetModel();
}

void ArgumentsModel::showGroups() {
  m_shown.clear();
  if (!m_hasNode) return;
  for (int g = 0; g < GroupCount; ++g)
    if (g == ArgumentsGroup || g == OutputsGroup || !m_groups[static_cast<std::size_t>(g)].empty()) m_shown.push_back(g);
}

const ArgumentsModel::Row* ArgumentsModel::rowAt(const QModelIndex& index) const {
  if (!index.isValid() || index.model() != this || index.internalId() == kGroupId) return nullptr;
  const auto& group = m_groups[static_cast<std::size_t>(index.internalId() - 1)];
  return index.row() < static_cast<int>(group.size()) ? &group[static_cast<std::size_t>(index.row())] : nullptr;
}

std::optional<torchir::ValueId> ArgumentsModel::valueAt(const QModelIndex& index) const {
  const Row* row = rowAt(index);
  return row ? row->value : std::nullopt;
}

QString ArgumentsModel::highlightReason(const QModelIndex& index) const {
  const Row* row = rowAt(index);
  return row ? row->highlight : QString();
}

QModelIndex ArgumentsModel::index(int row, int column, const QModelIndex& parent) const {
  if (column < 0 || column >= ColumnCount || row < 0) return {};
  const int groups = static_cast<int>(m_shown.size());
  if (!parent.isValid()) return row < groups ? createIndex(row, column, kGroupId) : QModelIndex();
  if (parent.internalId() != kGroupId || parent.column() != 0 || parent.row() >= groups) return {};
  const int group = m_shown[static_cast<std::size_t>(parent.row())];
  if (row >= static_cast<int>(m_groups[static_cast<std::size_t>(group)].size())) return {};
  return createIndex(row, column, static_cast<quintptr>(group + 1));
}

QModelIndex ArgumentsModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kGroupId) return {};
  const int group = static_cast<int>(child.internalId() - 1);
  const auto at = std::find(m_shown.begin(), m_shown.end(), group);
  return at == m_shown.end() ? QModelIndex() : createIndex(static_cast<int>(at - m_shown.begin()), 0, kGroupId);
}

int ArgumentsModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(m_shown.size());
  if (parent.internalId() != kGroupId || parent.column() != 0 || parent.row() >= static_cast<int>(m_shown.size())) return 0;
  return static_cast<int>(m_groups[static_cast<std::size_t>(m_shown[static_cast<std::size_t>(parent.row())])].size());
}

int ArgumentsModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant ArgumentsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  if (index.internalId() == kGroupId) {
    if (role != Qt::DisplayRole || index.column() != Name) return {};
    switch (index.row() < static_cast<int>(m_shown.size()) ? m_shown[static_cast<std::size_t>(index.row())] : -1) {
      case ArgumentsGroup: return QStringLiteral("Arguments");
      case OutputsGroup: return QStringLiteral("Outputs");
      case InsideGroup: return QStringLiteral("Inside");
      default: return QStringLiteral("Body Call");
    }
  }
  const Row* row = rowAt(index);
  if (!row) return {};
  const QString& cell = row->cells[static_cast<std::size_t>(index.column())];
  switch (role) {
    case Qt::DisplayRole:
      return cell;
    case Qt::ToolTipRole:
      if (!row->highlight.isEmpty()) return row->highlight;
      return cell.size() > kTooltipThreshold ? QVariant(cell) : QVariant();
    case Qt::BackgroundRole:
      return row->highlight.isEmpty() ? QVariant() : QVariant(QBrush(QColor(0xff, 0xdd, 0xa8)));
    default:
      return {};
  }
}

QVariant ArgumentsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"Name", "Type", "Source", "Value", "DType", "Shape", "Strides", "Device"};
  return section >= 0 && section < ColumnCount ? QVariant(QLatin1String(kNames[section])) : QVariant();
}

}  // namespace torchir::ui
