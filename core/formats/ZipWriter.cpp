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
  ++m_records;
}

void ZipWriter::close() {
  if (!m_zip) return;
  void* zip = m_zip;
  m_zip = nullptr;
  if (zipClose(zip, nullptr) != ZIP_OK) fail("the zip's directory");
  if (m_records >= 0xffff) addZip64Directory();
}

namespace {

void putLE(std::vector<unsigned char>& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

std::uint64_t getLE(const unsigned char* at, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | at[i];
  return v;
}

}  // namespace

/// minizip writes zip64's end records only when the directory starts past 4 GiB; an archive of
/// 65535 records or more below that gets 0xffff for its count and nothing to say the real one,
/// and readers (torch's miniz, minizip, unzip) see 65535 records. The 22-byte end record it wrote
/// is replaced by zip64's end record, its locator and an end record that points to them.
void ZipWriter::addZip64Directory() const {
  std::FILE* f = std::fopen(m_path.c_str(), "r+b");
  if (!f) fail("the zip64 directory");
  unsigned char tail[42];
  bool ok = fseeko(f, -static_cast<off_t>(sizeof tail), SEEK_END) == 0 && std::fread(tail, 1, sizeof tail, f) == sizeof tail;
  const unsigned char* end = tail + 20;
  ok = ok && getLE(end, 4) == 0x06054b50 && getLE(end + 20, 2) == 0;  // the end record, no comment
  if (ok && getLE(tail, 4) == 0x07064b50) {  // zip64's locator is there already: nothing to add
    std::fclose(f);
    return;
  }
  const std::uint64_t directorySize = ok ? getLE(end + 12, 4) : 0, directoryStart = ok ? getLE(end + 16, 4) : 0;
  const off_t endAt = ok ? ftello(f) - 22 : -1;
  ok = ok && directoryStart != 0xffffffffu && directoryStart + directorySize == static_cast<std::uint64_t>(endAt);
  std::vector<unsigned char> records;
  putLE(records, 0x06064b50, 4);  // zip64 end of central directory
  putLE(records, 44, 8);          // its size past this field
  putLE(records, 45, 2);          // made by: version 4.5
  putLE(records, 45, 2);          // needed: 4.5
  putLE(records, 0, 4);
  putLE(records, 0, 4);
  putLE(records, m_records, 8);
  putLE(records, m_records, 8);
  putLE(records, directorySize, 8);
  putLE(records, directoryStart, 8);
  putLE(records, 0x07064b50, 4);  // its locator
  putLE(records, 0, 4);
  putLE(records, static_cast<std::uint64_t>(endAt), 8);
  putLE(records, 1, 4);
  records.insert(records.end(), end, end + 22);  // the end record, its counts 0xffff: "see zip64"
  ok = ok && fseeko(f, endAt, SEEK_SET) == 0 && std::fwrite(records.data(), 1, records.size(), f) == records.size();
  if (std::fclose(f) != 0 || !ok) fail("the zip64 directory");
}

}  // namespace torchir
