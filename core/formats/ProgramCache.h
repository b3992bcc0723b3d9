#pragma once
// A folder of program graphs already read from big `.pt2` files, so that opening one again skips
// its JSON. An entry is named by the JSON's size and 128-bit hash, so an edited or replaced file
// finds no entry, and one file under two paths shares one. Entries are files like any other: a
// damaged, foreign or hostile one is decoded with every check (ProgramCodec), and when it fails
// it is removed, noted and the JSON is read instead.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torchir {

struct Program;

class ProgramCache {
 public:
  /// Programs whose JSON is smaller than this open fast enough without an entry.
  static constexpr std::size_t kDefaultMinimumJsonBytes = std::size_t{8} << 20;
  /// The most entries kept; the least recently used go first.
  static constexpr std::size_t kMaxEntries = 8;

  explicit ProgramCache(std::string folder, std::size_t minimumJsonBytes = kDefaultMinimumJsonBytes);

  struct Key {
    std::uint64_t jsonBytes = 0;
    std::uint64_t hashHigh = 0, hashLow = 0;
    std::string fileName() const;  // "<hash>-<size>.program"
    bool operator==(const Key& o) const {
      return jsonBytes == o.jsonBytes && hashHigh == o.hashHigh && hashLow == o.hashLow;
    }
  };
  /// The key of a program's JSON text (xxh3-128: ~10 ms for 139 MB), or nullopt when it is too small
  /// to be worth an entry.
  std::optional<Key> keyFor(std::string_view json) const;

  /// Fills `program`'s graph from the entry for `key`: true when there is one and it decodes.
  /// An entry that does not is removed, and why is noted.
  bool read(const Key& key, Program& program);
  /// Remembers that `key` had no entry, for store() once the program is open.
  void missed(const Key& key) { m_lastMiss = key; }
  /// The key of the last program read from its JSON, whose entry store() would write; cleared.
  std::optional<Key> takeMiss() { return std::exchange(m_lastMiss, std::nullopt); }
  /// Writes the program's graph under `key` (a temporary file renamed into place) and drops the
  /// least recently used entries past kMaxEntries. False, with a note, when it cannot.
  bool store(const Key& key, const Program& program);

  /// What was ignored or could not be written, one line each, oldest first; taking them clears them.
  std::vector<std::string> takeNotes();
  const std::string& folder() const { return m_folder; }
  int hits() const { return m_hits; }

 private:
  std::string pathOf(const Key& key) const;
  void note(std::string line) { m_notes.push_back(std::move(line)); }
  void dropOldEntries();

  std::string m_folder;
  std::size_t m_minimumJsonBytes;
  std::optional<Key> m_lastMiss;
  std::vector<std::string> m_notes;
  int m_hits = 0;
};

}  // namespace torchir
