#pragma once
// A folder of program graphs already read from big `.pt2` files, so that opening one again skips
// its JSON. An entry is found by the file alone (its real path, size and modification time), so
// it is decoded while the archive's directory is read, and it is used only when the JSON it was
// made from has the size and CRC-32 that the archive's directory now declares. An edited file
// finds no entry or one it refuses. Entries are files like any other: a damaged, foreign or
// hostile one is decoded with every check (ProgramCodec); when it fails it is removed, noted, and
// the JSON is read instead.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torchir {

struct Program;

class ProgramCache {
 public:
  /// Programs whose JSON (or whose whole file) is smaller than this open fast enough without one.
  static constexpr std::size_t kDefaultMinimumBytes = std::size_t{8} << 20;
  /// The most entries kept; the least recently used go first.
  static constexpr std::size_t kMaxEntries = 8;

  explicit ProgramCache(std::string folder, std::size_t minimumBytes = kDefaultMinimumBytes);

  /// A file as the cache knows it; the JSON's part is filled once its archive is open.
  struct Key {
    std::string file;  // its real path
    std::uint64_t fileBytes = 0;
    std::int64_t modifiedNs = 0;
    std::uint64_t jsonBytes = 0;
    std::uint32_t jsonCrc = 0;
    std::string fileName() const;  // "<xxh3-128 of the file's path, size and time>.program"
  };
  /// The key of the file at `path`, or nullopt when it is too small to be worth an entry or cannot
  /// be looked at.
  std::optional<Key> keyFor(const std::string& path) const;

  /// An entry read and decoded: its graph, or why it could not be used.
  struct Lookup {
    std::shared_ptr<Program> graph;
    std::uint64_t jsonBytes = 0;  // of the JSON it was made from
    std::uint32_t jsonCrc = 0;
    std::string problem;  // "" with no entry at all
  };
  /// Reads the entry of `key`'s file (its JSON part not needed yet). Thread-safe: it changes nothing.
  Lookup lookUp(const Key& key) const;
  /// Moves the looked-up graph into `program` when it was made from the JSON `key` now declares
  /// (leaving `program`'s source path and layout, weights and samples): true. Otherwise notes why
  /// and removes the entry.
  bool use(Lookup&& found, const Key& key, Program& program);

  /// Remembers that `key`'s program was read from its JSON, for store() once the program is open.
  void missed(const Key& key);
  /// The key of the last program read from its JSON, whose entry store() would write; cleared.
  std::optional<Key> takeMiss() { return std::exchange(m_lastMiss, std::nullopt); }
  /// Writes the program's graph under `key` (a temporary file renamed into place) and drops the
  /// least recently used entries past kMaxEntries. False, with a note, when it cannot.
  bool store(const Key& key, const Program& program);

  /// What was ignored or could not be written, one line each, oldest first; taking them clears them.
  std::vector<std::string> takeNotes();
  int hits() const { return m_hits; }

 private:
  std::string pathOf(const Key& key) const;
  void dropOldEntries();

  std::string m_folder;
  std::size_t m_minimumBytes;
  std::optional<Key> m_lastMiss;
  std::vector<std::string> m_notes;
  int m_hits = 0;
};

}  // namespace torchir
