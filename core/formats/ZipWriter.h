#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace torchir {

/// Writes a zip as torch's PyTorchStreamWriter does: every record stored (uncompressed), its data
/// 64-byte aligned (a padding extra field, as miniz writes it), so readers can map records in
/// place. minizip does the format; this adds the alignment. Throws std::runtime_error naming the
/// file when a write fails; the file is complete only after close().
class ZipWriter {
 public:
  explicit ZipWriter(const std::string& path);
  ~ZipWriter();
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  void add(const std::string& name, std::string_view bytes);
  void close();

  static constexpr std::uint64_t kAlignment = 64;

 private:
  void fail(const std::string& what) const;
  void addZip64Directory() const;

  std::string m_path;
  std::FILE* m_file = nullptr;  // opened and closed by minizip, through its I/O callbacks
  void* m_zip = nullptr;
  std::uint64_t m_records = 0;
};

}  // namespace torchir
