#pragma once
#include <stdexcept>
#include <string>

#include "OneLine.h"

namespace torchir {

/// A file that cannot be used: the message is one line naming the file and the problem.
class LoadError : public std::runtime_error {
 public:
  /// Text from the file in `problem` (names) is made one line here: control characters escaped,
  /// long runs cut.
  LoadError(const std::string& file, const std::string& problem)
      : std::runtime_error(oneLine(file, 1000) + ": " + oneLine(problem)), m_file(file), m_problem(oneLine(problem)) {}
  const std::string& file() const { return m_file; }
  const std::string& problem() const { return m_problem; }

 private:
  std::string m_file;
  std::string m_problem;
};

}  // namespace torchir
