#include "ProgramCache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "MappedFile.h"
#include "ProgramCodec.h"
#include "program/LoadError.h"
#include "program/Program.h"

namespace torchir {
namespace {

namespace fs = std::filesystem;

/// What an entry starts with. Another codec version (bump it when the codec, Program or what the
/// JSON reader builds changes) or another torchir is an entry of someone else's: not read.
const std::string kHeader = std::string("torchir program cache, codec 1, torchir ") + TORCHIR_VERSION + "\n";

struct Trailer {  // after the header: the key, then the body's size and hash
  std::uint64_t jsonBytes, hashHigh, hashLow, bodyBytes, bodyHash;
};

std::string hex(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

/// Why `bytes` is not the entry of `key`, or "" when its header, key and body hash say it is.
std::string entryProblem(std::string_view bytes, const ProgramCache::Key& key, std::string_view& body) {
  if (bytes.size() < kHeader.size() + sizeof(Trailer)) return "shorter than an entry's header";
  if (bytes.substr(0, kHeader.size()) != kHeader) return "written by another version of torchir";
  Trailer t{};
  std::memcpy(&t, bytes.data() + kHeader.size(), sizeof t);
  if (t.jsonBytes != key.jsonBytes || t.hashHigh != key.hashHigh || t.hashLow != key.hashLow)
    return "the entry of another program";
  body = bytes.substr(kHeader.size() + sizeof t);
  if (t.bodyBytes != body.size()) return "holds " + std::to_string(body.size()) + " bytes, not " + std::to_string(t.bodyBytes);
  if (XXH3_64bits(body.data(), body.size()) != t.bodyHash) return "its bytes do not match their hash";
  return "";
}

}  // namespace

ProgramCache::ProgramCache(std::string folder, std::size_t minimumJsonBytes)
    : m_folder(std::move(folder)), m_minimumJsonBytes(minimumJsonBytes) {}

std::string ProgramCache::Key::fileName() const {
  return hex(hashHigh) + hex(hashLow) + "-" + std::to_string(jsonBytes) + ".program";
}

std::optional<ProgramCache::Key> ProgramCache::keyFor(std::string_view json) const {
  if (json.size() < m_minimumJsonBytes || m_folder.empty()) return std::nullopt;
  const XXH128_hash_t h = XXH3_128bits(json.data(), json.size());
  return Key{json.size(), h.high64, h.low64};
}

std::string ProgramCache::pathOf(const Key& key) const { return m_folder + "/" + key.fileName(); }

bool ProgramCache::read(const Key& key, Program& program) {
  const std::string path = pathOf(key);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;  // no entry
  try {
    const auto file = MappedFile::open(path);
    file->advise(MappedFile::Access::Sequential);
    const std::string_view bytes(reinterpret_cast<const char*>(file->data()), file->size());
    std::string_view body;
    if (const std::string problem = entryProblem(bytes, key, body); !problem.empty()) throw LoadError(path, problem);
    decodeProgramGraph(body, path, program);  // leaves `program` as it was when it throws
  } catch (const LoadError& e) {
    note(std::string(e.what()) + "; the program was read from its file and the entry removed");
    std::error_code ignored;
    fs::remove(path, ignored);
    return false;
  }
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // most recently used: dropped last
  ++m_hits;
  return true;
}

bool ProgramCache::store(const Key& key, const Program& program) {
  const auto body = encodeProgramGraph(program);
  if (!body) {
    note(program.source.path + ": not cached (a subgraph holds weights of its own)");
    return false;
  }
  const Trailer t{key.jsonBytes, key.hashHigh, key.hashLow, body->size(), XXH3_64bits(body->data(), body->size())};
  const std::string path = pathOf(key);
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  std::error_code ec;
  fs::create_directories(m_folder, ec);
  bool written = false;
  if (std::FILE* f = std::fopen(temporary.c_str(), "wb")) {
    written = std::fwrite(kHeader.data(), 1, kHeader.size(), f) == kHeader.size() &&
              std::fwrite(&t, sizeof t, 1, f) == 1 && std::fwrite(body->data(), 1, body->size(), f) == body->size();
    written = std::fclose(f) == 0 && written;
  }
  if (written) fs::rename(temporary, path, ec);
  if (!written || ec) {
    fs::remove(temporary, ec);
    note(path + ": could not be written; the program will be read from its file next time too");
    return false;
  }
  dropOldEntries();
  return true;
}

void ProgramCache::dropOldEntries() {
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(m_folder, ec))
    if (e.path().extension() == ".program") entries.emplace_back(e.last_write_time(ec), e.path());
  if (entries.size() <= kMaxEntries) return;
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = kMaxEntries; i < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

std::vector<std::string> ProgramCache::takeNotes() { return std::exchange(m_notes, {}); }

}  // namespace torchir
