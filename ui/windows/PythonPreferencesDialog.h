#pragma once
// Preferences › Python: which Python runs the ops a program defines in Python, the modules it
// imports first, pytorch-ir executor files, and how long one call may take.
#include <QDialog>

#include "pyhost/PythonHostOptions.h"

class QDoubleSpinBox;
class QLineEdit;
class QPlainTextEdit;

namespace torchir::ui {

class PythonPreferencesDialog : public QDialog {
  Q_OBJECT
 public:
  explicit PythonPreferencesDialog(const PythonHostOptions& options, QWidget* parent = nullptr);
  PythonHostOptions options() const;

 private:
  QLineEdit* m_python = nullptr;
  QPlainTextEdit* m_imports = nullptr;
  QPlainTextEdit* m_executors = nullptr;
  QDoubleSpinBox* m_timeout = nullptr;
};

}  // namespace torchir::ui
