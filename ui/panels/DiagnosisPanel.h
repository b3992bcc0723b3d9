#pragma once
#include <QHash>
#include <QString>
#include <QWidget>

#include "exec/ExecTypes.h"

class QLabel;
class QPushButton;
class QScrollArea;

namespace torchir::ui {

/// Why the run stopped at a node: the class of problem, libtorch's own words, what to change, the
/// call as it was made, and the user's source line that made it.
class DiagnosisPanel : public QWidget {
  Q_OBJECT

 public:
  explicit DiagnosisPanel(QWidget* parent = nullptr);

  void setDiagnosis(const torchir::Diagnosis& diagnosis);
  /// The button of the fix the diagnosis suggests ("Cast input to float32 and continue"); empty
  /// hides it. fixRequested says it was pressed.
  void setFix(const QString& text);
  /// The module whose source defines the op the dispatcher lacks, offered as "Import MODULE and
  /// run"; empty hides it. importRequested says it was pressed.
  void setImport(const QString& module);
  void clear();

  /// The first frame of an export stack trace: the user's `File "...", line N, in f` and its code.
  static QString firstFrame(const std::string& stackTrace);
  /// "name: type = value (source)", one line per argument.
  static QString argumentLines(const std::vector<torchir::ArgumentRecord>& arguments);

 Q_SIGNALS:
  void nodeActivated(torchir::NodeId node);
  void fixRequested();
  void importRequested(const QString& module);

 private:
  QLabel* section(const QString& caption, const char* objectName, bool monospace);

  QLabel* m_class = nullptr;
  QLabel* m_node = nullptr;
  QPushButton* m_goTo = nullptr;
  QPushButton* m_fix = nullptr;
  QPushButton* m_import = nullptr;
  QString m_importModule;
  QLabel* m_message = nullptr;
  QLabel* m_explanation = nullptr;
  QLabel* m_schema = nullptr;
  QLabel* m_arguments = nullptr;
  QLabel* m_source = nullptr;
  QLabel* m_traceback = nullptr;  // an op run in Python: where it raised
  QWidget* m_body = nullptr;
  QScrollArea* m_scroll = nullptr;
  QHash<QLabel*, QLabel*> m_headings;  // section text -> its heading
  QLabel* m_empty = nullptr;
  torchir::NodeId m_nodeId = torchir::kNone;
};

}  // namespace torchir::ui
