#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "program/TensorData.h"

namespace torchir {

class MappedFile;

/// The zip container of a `.pt2` (or a `torch.save` file): record names relative to the archive's
/// root folder, record text, and records as storages pointing into a memory map of the file.
/// A `.pt2` written by torch >= 2.8 has every record under one root folder (`model/`); an archive
/// whose entries are not all under one folder (torch 2.6/2.7's flat `.pt2`) keeps full names.
/// Read with minizip from one read-only memory map; no libtorch.
class Pt2Archive {
 public:
  /// Throws LoadError (not a zip, truncated, corrupt directory, ...).
  explicit Pt2Archive(const std::string& path);
  /// A zip held inside another file's bytes, e.g. the stored (uncompressed) torch.save record
  /// `data/sample_inputs/model.pt` of a `.pt2`: read in place, `bytes->owner` keeps them alive.
  /// path() is `bytes->origin`.
  explicit Pt2Archive(std::shared_ptr<const Storage> bytes);
  ~Pt2Archive();
  Pt2Archive(const Pt2Archive&) = delete;
  Pt2Archive& operator=(const Pt2Archive&) = delete;

  const std::string& path() const { return m_path; }
  /// Record names, relative to the archive's root folder (`model/` for `model.pt2`).
  std::vector<std::string> records() const;
  bool has(const std::string& record) const;
  /// What the directory says a record holds, unchecked: its size and CRC-32 (a missing record: 0, 0).
  struct Declared {
    std::uint64_t bytes = 0;
    std::uint32_t crc = 0;
  };
  Declared declared(const std::string& record) const;
  /// The record's bytes (inflated if compressed, CRC checked), at most kMaxTextBytes. Throws LoadError.
  /// The record's bytes, CRC checked, with at least kTextPadding bytes of capacity past its end
  /// (readable by parsers that load past the last byte, as simdjson does).
  std::string text(const std::string& record) const;
  static constexpr std::size_t kTextPadding = 64;
  /// Calls `use(text, readable)` on the record's text, CRC checked, where `readable` bytes from
  /// the text's start may be read (at least kTextPadding past its end, as simdjson loads). A stored
  /// record followed by kTextPadding bytes of the file is used in place in the map, a large one
  /// while its CRC is checked on a second thread; a failed check is thrown in place of whatever
  /// `use` threw. Any other record is a padded copy, checked first.
  void withText(const std::string& record, const std::function<void(std::string_view text, std::size_t readable)>& use) const;
  /// Stored (uncompressed) records point into the map in place; compressed ones are inflated into
  /// a buffer the Storage owns, only as far as the `needed` bytes the caller's tensors reach (a
  /// record that declares more is cut there, unchecked by CRC). Throws LoadError for a missing or
  /// unreadable record, or when inflating would pass the archive's budget.
  std::shared_ptr<const Storage> storage(const std::string& record, std::uint64_t needed = kUnbounded) const;

  static constexpr std::uint64_t kUnbounded = ~std::uint64_t{0};
  /// A JSON or pickle record; a 25k-op program's model.json is about 40 MB.
  static constexpr std::uint64_t kMaxTextBytes = std::uint64_t{1} << 30;
  /// Everything inflated from one archive together: a fixed allowance plus a multiple of the
  /// archive's size that real files (weights barely compress, JSON about 10:1) stay far below.
  static constexpr std::uint64_t kInflateAllowance = std::uint64_t{256} << 20;
  static constexpr std::uint64_t kInflateRatio = 64;

 private:
  struct Impl;
  std::string m_path;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace torchir
