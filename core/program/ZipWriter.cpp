#include "ZipWriter.h"

#include <minizip/zip.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace torchir {

namespace {

// The stream is the FILE itself; `opaque` is where the writer keeps it, so it can tell where the
// next local header starts.
voidpf openStream(voidpf opaque, const void* filename, int /*mode*/) {
  auto** file = static_cast<std::FILE**>(opaque);
  *file = std::fopen(static_cast<const char*>(filename), "wb");
  return *file;
}
uLong readStream(voidpf, voidpf, void*, uLong) { return 0; }
uLong writeStream(voidpf, voidpf stream, const void* buf, uLong size) {
  return std::fwrite(buf, 1, size, static_cast<std::FILE*>(stream));
}
ZPOS64_T tellStream(voidpf, voidpf stream) {
  return static_cast<ZPOS64_T>(ftello(static_cast<std::FILE*>(stream)));
}
long seekStream(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
  const int whence = origin == ZLIB_FILEFUNC_SEEK_SET ? SEEK_SET : origin == ZLIB_FILEFUNC_SEEK_END ? SEEK_END : SEEK_CUR;
  return fseeko(static_cast<std::FILE*>(stream), static_cast<off_t>(offset), whence);
}
int closeStream(voidpf opaque, voidpf stream) {
  *static_cast<std::FILE**>(opaque) = nullptr;
  return std::fclose(static_cast<std::FILE*>(stream));
}
int errorStream(voidpf, voidpf stream) { return std::ferror(static_cast<std::FILE*>(stream)); }

// minizip's local header: 30 bytes, the name, the extra field, and a zip64 block of 20 bytes when
// the record is written as zip64 (zip.c's Write_LocalFileHeader).
constexpr std::uint64_t kLocalHeader = 30;
constexpr std::uint64_t kZip64Block = 20;
constexpr std::uint64_t kZip64Threshold = 0xffffffffu;
constexpr std::uint64_t kExtraHeader = 4;  // id and length of the padding field
constexpr std::size_t kChunk = std::size_t{1} << 30;

}  // namespace

ZipWriter::ZipWriter(const std::string& path) : m_path(path) {
  zlib_filefunc64_def io{};
  io.zopen64_file = openStream;
  io.zread_file = readStream;
  io.zwrite_file = writeStream;
  io.ztell64_file = tellStream;
  io.zseek64_file = seekStream;
  io.zclose_file = closeStream;
  io.zerror_file = errorStream;
  io.opaque = &m_file;
  m_zip = zipOpen2_64(path.c_str(), APPEND_STATUS_CREATE, nullptr, &io);
  if (!m_zip) {
    const std::string why = std::strerror(errno);
    throw std::runtime_error(path + ": cannot write: " + why);
  }
}

ZipWriter::~ZipWriter() {
  if (m_zip) zipClose(m_zip, nullptr);
}

void ZipWriter::fail(const std::string& what) const { throw std::runtime_error(m_path + ": cannot write " + what); }

void ZipWriter::add(const std::string& name, std::string_view bytes) {
  if (!m_zip) fail("'" + name + "': the archive is closed");
  const bool zip64 = bytes.size() >= kZip64Threshold;
  const auto header = static_cast<std::uint64_t>(ftello(m_file));
  const std::uint64_t unpadded = header + kLocalHeader + name.size() + kExtraHeader + (zip64 ? kZip64Block : 0);
  const std::uint64_t padding = (kAlignment - unpadded % kAlignment) % kAlignment;
  // miniz's padding field: id "FB", its length, then that many 'Z's
  std::vector<char> extra(kExtraHeader + padding, 'Z');
  extra[0] = 'F';
  extra[1] = 'B';
  extra[2] = static_cast<char>(padding & 0xff);
  extra[3] = static_cast<char>(padding >> 8);
  zip_fileinfo info{};
  if (zipOpenNewFileInZip64(m_zip, name.c_str(), &info, extra.data(), static_cast<uInt>(extra.size()), nullptr, 0,
                            nullptr, 0 /* stored */, 0, zip64 ? 1 : 0) != ZIP_OK)
    fail("'" + name + "'");
  for (std::size_t at = 0; at < bytes.size(); at += kChunk) {
    const std::size_t n = std::min(kChunk, bytes.size() - at);
    if (zipWriteInFileInZip(m_zip, bytes.data() + at, static_cast<unsigned>(n)) != ZIP_OK) fail("'" + name + "'");
  }
  if (zipCloseFileInZip(m_zip) != ZIP_OK) fail("'" + name + "'");
}

void ZipWriter::close() {
  if (!m_zip) return;
  void* zip = m_zip;
  m_zip = nullptr;
  if (zipClose(zip, nullptr) != ZIP_OK) fail("the zip's directory");
}

}  // namespace torchir
