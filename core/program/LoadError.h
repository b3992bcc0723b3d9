#pragma once
#include <stdexcept>
#include <string>

namespace torchir {

/// A file that cannot be used: the message is one line naming the file and the problem.
class LoadError : public std::runtime_error {
 public:
  LoadError(const std::string& file, const std::string& problem)
      : std::runtime_error(file + ": " + problem), m_file(file), m_problem(problem) {}
  const std::string& file() const { return m_file; }
  const std::string& problem() const { return m_problem; }

 private:
  std::string m_file;
  std::string m_problem;
};

}  // namespace torchir
