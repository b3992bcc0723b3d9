#include "Pt2Archive.h"

#include <minizip/unzip.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "Crc32.h"
#include "program/LoadError.h"
#include "MappedFile.h"

// minizip 1.1 reads the zip directory through custom I/O over memory (the file is mapped once) and
// finds where each record's data starts; libdeflate checks CRCs, zlib inflates compressed records; stored
// records are handed out in place. libtorch's PyTorchStreamReader did this job before, but linking
// it cost every process ~0.3 s of libtorch start-up before the first record was read.
// Debian's minizip (zlib 1.2.8's contrib) does not apply zip64 extra fields on 64-bit Linux, so
// sizes and offsets past 4 GiB (large .pt2 files) are taken from the raw extra field here.

namespace torchir {

namespace {

/// The bytes minizip reads: a file's map or a range of an outer archive's map.
struct MemorySource {
  const std::byte* data = nullptr;
  std::size_t size = 0;
};

/// One open "file" on a MemorySource: minizip opens it once per unzOpen2_64.
struct MemoryStream {
  const MemorySource* source = nullptr;
  std::uint64_t pos = 0;
};

voidpf ZCALLBACK memOpen(voidpf opaque, const void* /*filename*/, int mode) {
  if ((mode & ZLIB_FILEFUNC_MODE_READWRITEFILTER) != ZLIB_FILEFUNC_MODE_READ) return nullptr;
  auto* stream = new (std::nothrow) MemoryStream;
  if (stream) stream->source = static_cast<const MemorySource*>(opaque);
  return stream;
}

/// A text record this large is checked alongside its use: the check costs as much as a tenth of
/// parsing it, and a second thread is cheap next to that.
constexpr std::size_t kCheckAlongsideBytes = std::size_t{1} << 20;

uLong ZCALLBACK memRead(voidpf /*opaque*/, voidpf s, void* buf, uLong n) {
  auto* stream = static_cast<MemoryStream*>(s);
  const std::size_t size = stream->source->size;
  if (stream->pos >= size) return 0;
  const std::size_t count = std::min<std::uint64_t>(n, size - stream->pos);
  std::memcpy(buf, stream->source->data + stream->pos, count);
  stream->pos += count;
  return static_cast<uLong>(count);
}

uLong ZCALLBACK memWrite(voidpf, voidpf, const void*, uLong) { return 0; }  // read-only

ZPOS64_T ZCALLBACK memTell(voidpf /*opaque*/, voidpf s) { return static_cast<MemoryStream*>(s)->pos; }

long ZCALLBACK memSeek(voidpf /*opaque*/, voidpf s, ZPOS64_T offset, int origin) {
  auto* stream = static_cast<MemoryStream*>(s);
  const std::uint64_t size = stream->source->size;
  // Relative seeks may go back: minizip passes them as unsigned, as fseeko would take them signed.
  const auto delta = static_cast<std::int64_t>(offset);
  std::uint64_t base = 0;
  switch (origin) {
    case ZLIB_FILEFUNC_SEEK_SET:
      if (offset > size) return -1;
      stream->pos = offset;
      return 0;
    case ZLIB_FILEFUNC_SEEK_CUR:
      base = stream->pos;
      break;
    case ZLIB_FILEFUNC_SEEK_END:
      base = size;
      break;
    default:
      return -1;
  }
  // Positions outside the bytes are refused (fseek would allow past the end; nothing valid lies there).
  if (delta < 0 ? static_cast<std::uint64_t>(-(delta + 1)) + 1 > base : static_cast<std::uint64_t>(delta) > size - base)
    return -1;
  stream->pos = delta < 0 ? base - (static_cast<std::uint64_t>(-(delta + 1)) + 1) : base + static_cast<std::uint64_t>(delta);
  return 0;
}

int ZCALLBACK memClose(voidpf /*opaque*/, voidpf s) {
  delete static_cast<MemoryStream*>(s);
  return 0;
}

int ZCALLBACK memError(voidpf, voidpf) { return 0; }

/// One central directory entry, as read from the map, zip64 values in place.
struct Entry {
  unz64_file_pos pos{};  // for minizip, when the local header does not check out
  std::uint16_t flag = 0, method = 0, nameLength = 0;
  std::uint32_t crc = 0;
  std::uint64_t csize = 0, usize = 0, localHeader = 0;
};

/// Where an entry's bytes are and what they should be.
struct Record {
  std::uint64_t offset = 0;  // of the (compressed) data in the zip's bytes
  std::uint64_t csize = 0;
  std::uint64_t usize = 0;
  std::uint32_t crc = 0;
  int method = 0;
};

std::uint64_t readLE(const std::uint8_t* p, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

constexpr std::uint64_t kMax32 = 0xffffffffu;

/// The 8-byte fields of the zip64 extra block (id 1) of a central directory entry, as many as
/// fit `out`; how many were there.
std::size_t zip64Fields(const std::uint8_t* extra, std::size_t size, std::uint64_t (&out)[3]) {
  std::size_t at = 0;
  while (at + 4 <= size) {
    const auto id = readLE(extra + at, 2);
    const auto length = readLE(extra + at + 2, 2);
    if (at + 4 + length > size) break;
    if (id == 1) {
      std::size_t n = 0;
      for (; n < 3 && 8 * (n + 1) <= length; ++n) out[n] = readLE(extra + at + 4 + 8 * n, 8);
      return n;
    }
    at += 4 + length;
  }
  return 0;
}

}  // namespace

struct Pt2Archive::Impl {
  // The whole zip in memory (a file's map, or a range of an outer archive's map) and its owner.
  MemorySource source;
  std::shared_ptr<const void> owner;
  std::shared_ptr<const MappedFile> file;  // when the archive is a file of its own
  int fileDescriptor = -1;                 // the file the zip's bytes lie in, from fileOffset
  std::size_t fileOffset = 0;
  unzFile zip = nullptr;
  // Names are views of the central directory in the map, which lives as long as the archive (70k
  // records of a 100k-op program were as many strings made, moved and hashed).
  std::vector<std::string_view> records;  // the entries' names, in directory order
  std::unordered_map<std::string_view, Entry> entries;
  std::mutex mutex;
  std::uint64_t inflated = 0;  // bytes inflated so far, under `mutex`
  // Data ranges of the records located so far (start -> end, record), under `mutex`: a crafted
  // directory can point two records at the same bytes, or one into another's data.
  std::map<std::uint64_t, std::pair<std::uint64_t, std::string>> ranges;

  ~Impl() {
    if (zip) unzClose(zip);
  }

  void open(const std::string& path);
  /// Where `record`'s bytes lie; throws LoadError when it is missing, unreadable or outside the file.
  Record locate(const std::string& path, const std::string& record);
  /// The central directory from the map, after minizip has found it: its entries by full name,
  /// in order. Throws LoadError for a record that does not check out (signature, bounds).
  std::vector<std::pair<std::string_view, Entry>> directory(const std::string& path) const;
  /// Where an entry's data starts, read from its local header in the map (checked: signature,
  /// bounds, the name's length); nullopt when it does not check out, and minizip is asked instead.
  std::optional<std::uint64_t> dataOffset(const Entry& e) const;
  Record textRecord(const std::string& path, const std::string& record);
  /// A stored record's bytes in the map, after their CRC check.
  const char* checkedStored(const std::string& path, const std::string& record, const Record& r) const;
  Record locked(const std::string& path, const std::string& record) {
    std::lock_guard lock(mutex);  // minizip's cursor: one record at a time
    return locate(path, record);
  }
  /// The record's bytes, inflated if need be, CRC checked; a compressed record is inflated only up
  /// to `limit` bytes (then unchecked by CRC), charged to the archive's budget.
  std::vector<std::byte> read(const std::string& path, const std::string& record, const Record& r,
                              std::uint64_t limit);
  /// Takes `bytes` out of the inflation budget; throws when it would be exceeded.
  void charge(const std::string& path, const std::string& record, std::uint64_t bytes);
};

void Pt2Archive::Impl::open(const std::string& path) {
  if (source.size < 22) throw LoadError(path, "not a zip archive (too short)");
  zlib_filefunc64_def io{};
  io.zopen64_file = memOpen;
  io.zread_file = memRead;
  io.zwrite_file = memWrite;
  io.ztell64_file = memTell;
  io.zseek64_file = memSeek;
  io.zclose_file = memClose;
  io.zerror_file = memError;
  io.opaque = &source;
  zip = unzOpen2_64(path.c_str(), &io);
  if (!zip) {
    const bool localHeader = std::memcmp(source.data, "PK\x03\x04", 4) == 0;
    throw LoadError(path, localHeader ? "truncated or corrupt zip archive (no readable central directory)"
                                      : "not a zip archive");
  }

  auto all = directory(path);

  // PyTorchStreamReader's convention: every entry sits under one root folder, named by the first
  // entry, and records are named relative to it. Archives without one (torch 2.6/2.7's flat .pt2)
  // keep full names.
  std::string_view prefix;
  if (!all.empty()) {
    const auto slash = all.front().first.find('/');
    if (slash != std::string_view::npos && slash > 0) prefix = all.front().first.substr(0, slash + 1);
  }
  const bool rooted = !prefix.empty() &&
                      std::all_of(all.begin(), all.end(), [&](const auto& a) { return a.first.rfind(prefix, 0) == 0; });
  entries.reserve(all.size());  // bounded by the directory read above: never rehashed
  records.reserve(all.size());
  for (auto& [name, e] : all) {
    if (rooted) name.remove_prefix(prefix.size());
    if (name.empty() || name.back() == '/') continue;  // folder entries hold nothing
    if (entries.try_emplace(name, e).second) records.push_back(name);  // the first one wins
  }
}

std::vector<std::pair<std::string_view, Entry>> Pt2Archive::Impl::directory(const std::string& path) const {
  std::vector<std::pair<std::string_view, Entry>> all;
  unz_global_info64 global{};
  unz64_file_pos first{};
  if (unzGetGlobalInfo64(zip, &global) != UNZ_OK) throw LoadError(path, "corrupt zip directory (truncated?)");
  if (global.number_entry == 0) return all;
  if (unzGoToFirstFile(zip) != UNZ_OK || unzGetFilePos64(zip, &first) != UNZ_OK)
    throw LoadError(path, "corrupt zip directory (truncated?)");
  // Each record is checked before it is used: a count or a length in it may be anything.
  all.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(global.number_entry, source.size / 46)));
  std::uint64_t at = first.pos_in_zip_directory;
  // read through once, as a JSON record is (6 MB for 70k records)
  if (file && at < source.size) file->advise(MappedFile::Access::Sequential, at, source.size - at);
  for (std::uint64_t i = 0; i < global.number_entry; ++i) {
    if (at > source.size || source.size - at < 46) throw LoadError(path, "corrupt zip directory (truncated?)");
    const auto* c = reinterpret_cast<const std::uint8_t*>(source.data + at);
    const std::uint64_t nameLength = readLE(c + 28, 2), extraLength = readLE(c + 30, 2), commentLength = readLE(c + 32, 2);
    if (readLE(c, 4) != 0x02014b50 || source.size - at - 46 < nameLength + extraLength + commentLength)
      throw LoadError(path, "corrupt zip directory (truncated?)");
    Entry e;
    e.pos = {at, i};
    e.flag = static_cast<std::uint16_t>(readLE(c + 8, 2));
    e.method = static_cast<std::uint16_t>(readLE(c + 10, 2));
    e.crc = static_cast<std::uint32_t>(readLE(c + 16, 4));
    e.csize = readLE(c + 20, 4);
    e.usize = readLE(c + 24, 4);
    e.nameLength = static_cast<std::uint16_t>(nameLength);
    e.localHeader = readLE(c + 42, 4);
    // Values at 0xffffffff are in the zip64 block, in the spec's order.
    std::uint64_t zip64[3];
    const std::size_t fields = zip64Fields(c + 46 + nameLength, extraLength, zip64);
    std::size_t next = 0;
    if (e.usize == kMax32 && next < fields) e.usize = zip64[next++];
    if (e.csize == kMax32 && next < fields) e.csize = zip64[next++];
    if (e.localHeader == kMax32 && next < fields) e.localHeader = zip64[next++];
    all.emplace_back(std::string_view(reinterpret_cast<const char*>(c + 46), nameLength), e);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return all;
}

std::optional<std::uint64_t> Pt2Archive::Impl::dataOffset(const Entry& e) const {
  const std::uint64_t header = e.localHeader;
  if (header > source.size || source.size - header < 30) return std::nullopt;
  const auto* h = reinterpret_cast<const std::uint8_t*>(source.data + header);
  if (readLE(h, 4) != 0x04034b50 || readLE(h + 26, 2) != e.nameLength) return std::nullopt;
  return header + 30 + readLE(h + 26, 2) + readLE(h + 28, 2);
}

Record Pt2Archive::Impl::locate(const std::string& path, const std::string& record) {
  const auto it = entries.find(record);
  if (it == entries.end()) throw LoadError(path, "no record " + record);
  const Entry& e = it->second;
  auto bad = [&](const std::string& why) { return LoadError(path, "record " + record + " " + why); };
  if (e.flag & 1) throw bad("is encrypted");
  if (e.method != 0 && e.method != Z_DEFLATED) throw bad("uses unsupported compression method " + std::to_string(e.method));

  Record r;
  r.method = e.method;
  r.crc = e.crc;
  r.usize = e.usize;
  r.csize = e.csize;
  auto pos = e.pos;
  if (const auto offset = dataOffset(e)) {
    r.offset = *offset;  // from the local header in the map, without minizip's buffers
  } else if (unzGoToFilePos64(zip, &pos) != UNZ_OK) {
    throw bad("is unreadable (corrupt zip directory?)");
  } else if (unzOpenCurrentFile(zip) == UNZ_OK) {
    r.offset = unzGetCurrentFileZStreamPos64(zip);
    unzCloseCurrentFile(zip);
  } else {
    throw bad("is unreadable (truncated or corrupt archive?)");
  }
  if (r.offset > source.size || r.csize > source.size - r.offset) throw bad("lies outside the file (truncated?)");
  if (r.method == 0 && r.csize != r.usize) throw bad("is stored with two different sizes (corrupt archive)");
  if (r.csize > 0) {
    const std::uint64_t end = r.offset + r.csize;
    auto next = ranges.lower_bound(r.offset);
    const bool same = next != ranges.end() && next->first == r.offset && next->second.second == record;
    if (!same) {
      const std::string* other = nullptr;
      if (next != ranges.end() && next->first < end) other = &next->second.second;
      if (next != ranges.begin() && std::prev(next)->second.first > r.offset) other = &std::prev(next)->second.second;
      if (other) throw bad("shares its bytes with record " + *other + " (corrupt or crafted archive)");
      ranges.emplace(r.offset, std::make_pair(end, record));
    }
  }
  return r;
}

void Pt2Archive::Impl::charge(const std::string& path, const std::string& record, std::uint64_t bytes) {
  std::lock_guard lock(mutex);
  const std::uint64_t budget = kInflateAllowance + std::min<std::uint64_t>(source.size, kUnbounded / kInflateRatio) * kInflateRatio;
  if (bytes > budget - inflated)
    throw LoadError(path, "record " + record + " inflates to " + std::to_string(bytes) + " bytes, past the " +
                              std::to_string(budget) + " this " + std::to_string(source.size) +
                              "-byte archive may inflate to (a zip bomb?)");
  inflated += bytes;
}

std::vector<std::byte> Pt2Archive::Impl::read(const std::string& path, const std::string& record,
                                              const Record& r, std::uint64_t limit) {
  auto bad = [&](const std::string& why) { return LoadError(path, "record " + record + " " + why); };
  const auto* in = reinterpret_cast<const Bytef*>(source.data + r.offset);
  std::vector<std::byte> out;
  if (r.method == 0) {
    out.assign(source.data + r.offset, source.data + r.offset + r.csize);
  } else {
    // The declared size is only a claim: deflate cannot expand more than 1032:1.
    if (r.usize / 1032 > r.csize + 1) throw bad("declares an impossible size (corrupt archive?)");
    const std::uint64_t want = std::min(r.usize, limit);
    charge(path, record, want);
    out.resize(want);
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw bad("cannot be inflated (zlib failed)");
    std::uint64_t inLeft = r.csize, outLeft = want;
    Bytef empty = 0;  // zlib refuses a null output pointer, even for no output
    z.next_in = const_cast<Bytef*>(in);
    z.next_out = out.empty() ? &empty : reinterpret_cast<Bytef*>(out.data());
    int rc = Z_OK;
    while (rc == Z_OK) {
      constexpr std::uint64_t kChunk = 1u << 30;  // zlib counts in 32 bits
      if (z.avail_in == 0) {
        z.avail_in = static_cast<uInt>(std::min(inLeft, kChunk));
        inLeft -= z.avail_in;
      }
      if (z.avail_out == 0) {
        z.avail_out = static_cast<uInt>(std::min(outLeft, kChunk));
        outLeft -= z.avail_out;
      }
      rc = inflate(&z, Z_NO_FLUSH);
      // no progress for want of a buffer: go on only while there is more of it to give
      if (rc == Z_BUF_ERROR && ((z.avail_in == 0 && inLeft > 0) || (z.avail_out == 0 && outLeft > 0))) rc = Z_OK;
      if (want < r.usize && rc == Z_OK && z.avail_out == 0 && outLeft == 0) break;  // as far as needed
    }
    const std::uint64_t produced = want - outLeft - z.avail_out;
    inflateEnd(&z);
    if (want < r.usize) {
      if (produced != want) throw bad("cannot be inflated (corrupt or truncated data)");
      return out;  // a prefix: the CRC covers the whole record
    }
    if (rc != Z_STREAM_END) throw bad("cannot be inflated (corrupt or truncated data)");
    if (produced != r.usize) throw bad("inflates to another size than declared (corrupt archive)");
  }
  if (crc32Of(out.data(), out.size()) != r.crc) throw bad("fails its CRC check (corrupt archive)");
  return out;
}

Pt2Archive::Pt2Archive(const std::string& path) : m_path(path), m_impl(std::make_unique<Impl>()) {
  auto file = MappedFile::open(path);  // also reports a missing file clearly
  file->advise(MappedFile::Access::Scattered);  // reading visits headers; weights are read later
  m_impl->source = {file->data(), file->size()};
  m_impl->owner = file;
  m_impl->file = file;
  m_impl->fileDescriptor = file->descriptor();
  m_impl->open(m_path);
}

Pt2Archive::Pt2Archive(std::shared_ptr<const Storage> bytes)
    : m_path(bytes ? bytes->origin : std::string("<no bytes>")), m_impl(std::make_unique<Impl>()) {
  if (!bytes || !bytes->data) throw LoadError(m_path, "not a zip archive (too short)");
  m_impl->source = {bytes->data, bytes->nbytes};
  m_impl->owner = bytes;  // keeps the outer map alive through the Storage's own owner
  m_impl->fileDescriptor = bytes->fileDescriptor;
  m_impl->fileOffset = bytes->fileOffset;
  m_impl->open(m_path);
}

Pt2Archive::~Pt2Archive() {
  // the map outlives the archive where weights point into it: a run reads those in order
  if (m_impl && m_impl->file) m_impl->file->advise(MappedFile::Access::Normal);
}

std::vector<std::string> Pt2Archive::records() const {
  std::vector<std::string> names;
  names.reserve(m_impl->records.size());
  for (const std::string_view name : m_impl->records) names.emplace_back(name);
  return names;
}

bool Pt2Archive::has(const std::string& record) const { return m_impl->entries.count(record) > 0; }

Pt2Archive::Declared Pt2Archive::declared(const std::string& record) const {
  const auto it = m_impl->entries.find(record);
  return it == m_impl->entries.end() ? Declared{} : Declared{it->second.usize, it->second.crc};
}

/// A record read as text: located, and no larger than a text record may be.
Record Pt2Archive::Impl::textRecord(const std::string& path, const std::string& record) {
  const Record r = locked(path, record);
  if (r.usize > kMaxTextBytes)
    throw LoadError(path, "record " + record + " declares " + std::to_string(r.usize) + " bytes, more than the " +
                              std::to_string(kMaxTextBytes) + " a text record may have");
  return r;
}

const char* Pt2Archive::Impl::checkedStored(const std::string& path, const std::string& record, const Record& r) const {
  const char* bytes = reinterpret_cast<const char*>(source.data + r.offset);
  if (crc32Of(bytes, r.csize) != r.crc)
    throw LoadError(path, "record " + record + " fails its CRC check (corrupt archive)");
  return bytes;
}

std::string Pt2Archive::text(const std::string& record) const {
  const Record r = m_impl->textRecord(m_path, record);
  std::string text;
  if (r.method == 0) {  // stored: one copy out of the map
    text.reserve(r.csize + kTextPadding);
    text.assign(m_impl->checkedStored(m_path, record, r), r.csize);
    return text;
  }
  const auto bytes = m_impl->read(m_path, record, r, kUnbounded);  // CRC checked
  text.reserve(bytes.size() + kTextPadding);
  text.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return text;
}

void Pt2Archive::withText(const std::string& record,
                          const std::function<void(std::string_view, std::size_t)>& use) const {
  const Record r = m_impl->textRecord(m_path, record);
  // Read from start to end once, unlike the rest of the archive: with read-ahead, opening a
  // 100k-op program out of the page cache (a 139 MB model.json) took 1.9-2.2 s, not 3.9-4.1 s.
  if (m_impl->file) m_impl->file->advise(MappedFile::Access::Sequential, r.offset, r.csize);
  const bool inPlace = r.method == 0 && r.offset + r.csize + kTextPadding <= m_impl->source.size;  // bounds checked by locate
  if (!inPlace || r.csize < kCheckAlongsideBytes) {
    if (inPlace) return use({m_impl->checkedStored(m_path, record, r), r.csize}, r.csize + kTextPadding);
    const std::string copy = text(record);
    return use(copy, copy.capacity());
  }
  const char* bytes = reinterpret_cast<const char*>(m_impl->source.data + r.offset);
  auto checked = std::async(std::launch::async, [bytes, r] { return crc32Of(bytes, r.csize) == r.crc; });
  std::exception_ptr failure;
  try {
    use({bytes, r.csize}, r.csize + kTextPadding);
  } catch (...) {
    failure = std::current_exception();
  }
  if (!checked.get()) throw LoadError(m_path, "record " + record + " fails its CRC check (corrupt archive)");
  if (failure) std::rethrow_exception(failure);
}

std::shared_ptr<const Storage> Pt2Archive::storage(const std::string& record, std::uint64_t needed) const {
  const Record r = m_impl->locked(m_path, record);
  const std::string origin = m_path + ":" + record;
  if (r.method == 0) {
    // Stored: the bytes are in the map already; no CRC pass over (possibly) gigabytes of weights.
    const std::size_t size = r.csize;
    auto stored = std::make_shared<Storage>(Storage{size ? m_impl->source.data + r.offset : nullptr, size, m_impl->owner, origin});
    if (m_impl->fileDescriptor >= 0) {
      stored->fileDescriptor = m_impl->fileDescriptor;
      stored->fileOffset = m_impl->fileOffset + r.offset;
    }
    return stored;
  }
  auto buffer = std::make_shared<std::vector<std::byte>>(m_impl->read(m_path, record, r, needed));
  const std::byte* data = buffer->empty() ? nullptr : buffer->data();
  return std::make_shared<Storage>(Storage{data, buffer->size(), std::move(buffer), origin});
}

}  // namespace torchir
