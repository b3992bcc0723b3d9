#pragma once
// What a reader copies out of a verified FlatBuffer, bounded. The verifier bounds the tables a
// buffer has, but tables may share one vector or string: a file of a few KB could name the same
// megabyte a million times. Copies are charged here, and a file that asks for more than a real one
// could hold is refused.
#include <cstddef>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include "program/LoadError.h"

namespace torchir {

class CopyBudget {
 public:
  CopyBudget(std::size_t bufferBytes, std::string file)
      : m_left(kPerBufferByte * bufferBytes + kFloor), m_file(std::move(file)) {}

  void charge(std::size_t bytes) {
    if (bytes > m_left)
      throw LoadError(m_file, "names the same data more often than a file of its size can (crafted or corrupt)");
    m_left -= bytes;
  }
  template <typename T>
  std::vector<T> vector(const flatbuffers::Vector<T>* v) {
    if (!v) return {};
    charge(v->size() * sizeof(T));
    return std::vector<T>(v->begin(), v->end());
  }
  std::string string(const flatbuffers::String* s) {
    if (!s) return {};
    charge(s->size());
    return s->str();
  }

 private:
  // A table entry read here becomes a struct of a few dozen bytes: 16 per buffer byte leaves room
  // for every real file's entries while a shared vector named a million times runs out.
  static constexpr std::size_t kPerBufferByte = 16;
  static constexpr std::size_t kFloor = std::size_t{1} << 20;
  std::size_t m_left;
  std::string m_file;
};

}  // namespace torchir
