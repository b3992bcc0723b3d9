#pragma once
// Names to dense ids for the readers of big programs: an open-addressed table of ids whose keys
// are the named things' own names, read through `NameOf`. An entry is 8 bytes and no allocation:
// a 30k-value program's index costs no string copies, and finding a name is one probe run.
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace torchir {

/// `NameOf`: `std::string_view operator()(int32_t id) const`, the name of an inserted id.
template <class NameOf>
class NameIndex {
 public:
  explicit NameIndex(NameOf nameOf) : m_nameOf(std::move(nameOf)) {}

  /// The id last inserted under `name`, or -1.
  int32_t find(std::string_view name) const {
    if (m_slots.empty()) return -1;
    const std::uint32_t h = hashOf(name);
    for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
      const Slot& s = m_slots[i];
      if (s.id < 0) return -1;
      if (s.hash == h && m_nameOf(s.id) == name) return s.id;
    }
  }

  /// Files `id` (>= 0) under its name; an id inserted before under the same name is found no more
  /// (and the call returns false).
  bool insert(int32_t id) {
    if (2 * (m_count + 1) > m_slots.size()) grow();
    return place(hashOf(m_nameOf(id)), id, true);
  }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    int32_t id = -1;
  };

  static std::uint32_t hashOf(std::string_view name) {
    return static_cast<std::uint32_t>(std::hash<std::string_view>{}(name));
  }
  std::size_t mask() const { return m_slots.size() - 1; }

  bool place(std::uint32_t h, int32_t id, bool mayReplace) {
    for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
      Slot& s = m_slots[i];
      if (s.id < 0) {
        s = {h, id};
        ++m_count;
        return true;
      }
      if (mayReplace && s.hash == h && m_nameOf(s.id) == m_nameOf(id)) {
        s.id = id;
        return false;
      }
    }
  }

  void grow() {
    std::vector<Slot> old(m_slots.empty() ? 64 : 2 * m_slots.size());
    old.swap(m_slots);
    m_count = 0;
    for (const Slot& s : old)
      if (s.id >= 0) place(s.hash, s.id, false);  // names in the old table are distinct
  }

  NameOf m_nameOf;
  std::vector<Slot> m_slots;  // a power of two long, at most half full
  std::size_t m_count = 0;
};

}  // namespace torchir
