#pragma once
// What a reader copies out of a verified FlatBuffer, bounded. The verifier bounds the tables a
// buffer has, but tables may share one vector or string: a file of a few KB could name the same
// megabyte a million times. Copies are charged here, and a file that asks for more than a real one
// could hold is refused.
#include <cstddef>
#include <cstring>
#include <type_traits>
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
  /// The vector's elements, copied as bytes: the verifier checks a vector's length for alignment
  /// but not its elements, and a crafted file may put an int64 vector at any 4-byte boundary.
  /// (Both formats are little-endian, as the machines this builds for.)
  template <typename T>
  std::vector<T> vector(const flatbuffers::Vector<T>* v) {
    static_assert(std::is_arithmetic_v<T>);
    if (!v) return {};
    charge(v->size() * sizeof(T));
    std::vector<T> out(v->size());
    if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
    return out;
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
