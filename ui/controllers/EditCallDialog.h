#pragma once
#include <QDialog>
#include <optional>
#include <string>
#include <vector>

#include "controllers/TensorFiles.h"
#include "exec/Patch.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace torchir::ui {

class SessionController;

/// Edit and continue at the next node: its call's arguments, each with what to change (a number;
/// a tensor cast to a dtype, filled with a value or replaced from a .safetensors file). The rows
/// start from the changes the node has; Try runs the call with the rows' changes beside the call as
/// it is, Apply and Continue makes them the run's.
class EditCallDialog : public QDialog {
  Q_OBJECT

 public:
  EditCallDialog(SessionController* session, torchir::NodeId node, QWidget* parent = nullptr);

  /// The node's whole list of changes as the rows say them: each change it had stays unless its
  /// row was changed again (the new change replaces it) or cleared (it goes). Throws
  /// std::invalid_argument naming a row that says something that is not a change (a value that is
  /// no number, a file without the tensor, a file not read yet).
  std::vector<torchir::ArgumentPatch> patches() const;
  /// A .safetensors file a row names is being read; Try and Apply wait for it.
  bool isReading() const { return m_reading; }

 Q_SIGNALS:
  /// A trial's outputs, for the tensor viewer: with the change, as it is, and what differs.
  void trialShown(torchir::NodeId node, const torchir::PatchTrial& trial);

 private:
  /// One argument of the call. What the row showed first stands for the change the node had: a
  /// row that still shows it keeps that change as it is (a tensor from a file is not read again).
  struct Row {
    std::string name;
    std::optional<torchir::ArgumentPatch> had;
    QComboBox* change = nullptr;  // a tensor's
    QLineEdit* with = nullptr;    // a tensor's or a number's; null for an argument that cannot change
    int shownChoice = 0;
    QString shownText;
  };

  /// The node's call with and without `patches`, tried on the engine thread; shown when it comes.
  void tryPatches(const std::vector<torchir::ArgumentPatch>& patches);
  void showArguments(const std::vector<torchir::ArgumentRecord>& arguments);
  void addTensorRow(int row, const torchir::ArgumentRecord& argument, Row& state);
  void addNumberRow(int row, const torchir::ArgumentRecord& argument, Row& state);
  bool isTouched(const Row& row) const;
  /// The change the row says; nullopt: as exported.
  std::optional<torchir::ArgumentPatch> changeOf(const Row& row) const;
  void showTrial(const torchir::PatchTrial& trial);
  /// Reads the .safetensors files the rows name on a worker thread, the dialog answering meanwhile,
  /// then calls `then`; a file that cannot be read is said in the result line instead.
  void readFilesThen(void (EditCallDialog::*then)());
  void sendTrial();
  void sendChanges();

  SessionController* m_session;
  torchir::NodeId m_node;
  std::vector<torchir::ArgumentPatch> m_had;  // the node's changes when the dialog opened
  std::vector<Row> m_rows;
  TensorFileReads m_files;  // the files the rows name, as last read
  QTableWidget* m_table = nullptr;
  QLabel* m_result = nullptr;
  QPushButton* m_try = nullptr;
  QPushButton* m_apply = nullptr;
  bool m_argumentsShown = false;
  bool m_reading = false;
};

}  // namespace torchir::ui
