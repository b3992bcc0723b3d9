#pragma once
#include <memory>
#include <string>
#include <vector>

#include "TensorData.h"

namespace torchir {

class MappedFile;

/// The zip container of a `.pt2` (or a `torch.save` file): record names relative to the archive's
/// root folder, record text, and records as storages pointing into a memory map of the file.
/// Only this class touches libtorch's zip reader; it keeps torch headers out of everyone else.
class Pt2Archive {
 public:
  /// Throws LoadError (not a zip, truncated, no root folder, ...).
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
  std::string text(const std::string& record) const;
  /// The record's bytes in place (stored zip entries are not compressed); throws if compressed.
  std::shared_ptr<const Storage> storage(const std::string& record) const;

 private:
  struct Impl;
  std::string m_path;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace torchir
