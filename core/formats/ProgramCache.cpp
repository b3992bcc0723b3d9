#include "ProgramCache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
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
/// JSON reader builds changes) or another torchir is an entry of someone else's: not used.
const std::string kHeader = std::string("torchir program cache, codec 1, torchir ") + TORCHIR_VERSION + "\n";

/// After the header: the key, the body's size and hash, then the file's path and the body.
const char* const kTemporarySuffix = ".tmp";

struct Fixed {
  std::uint64_t fileBytes, jsonBytes, pathBytes, bodyBytes, bodyHash;
  std::int64_t modifiedNs;
  std::uint64_t jsonCrc;
};

std::string hex(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

/// The entry's graph, decoded, or a LoadError naming the entry.
ProgramCache::Lookup readEntry(const std::string& path, const ProgramCache::Key& key) {
  const auto file = MappedFile::open(path);
  file->advise(MappedFile::Access::Sequential);
  const std::string_view bytes(reinterpret_cast<const char*>(file->data()), file->size());
  auto refuse = [&](const std::string& why) { return LoadError(path, why); };
  if (bytes.size() < kHeader.size() + sizeof(Fixed)) throw refuse("shorter than an entry's header");
  if (bytes.substr(0, kHeader.size()) != kHeader) throw refuse("written by another version of torchir");
  Fixed f{};
  std::memcpy(&f, bytes.data() + kHeader.size(), sizeof f);
  std::string_view rest = bytes.substr(kHeader.size() + sizeof f);
  if (f.pathBytes > rest.size() || rest.substr(0, f.pathBytes) != key.file || f.fileBytes != key.fileBytes ||
      f.modifiedNs != key.modifiedNs)
    throw refuse("the entry of another file");
  rest.remove_prefix(f.pathBytes);
  if (f.bodyBytes != rest.size()) throw refuse("holds " + std::to_string(rest.size()) + " bytes, not " + std::to_string(f.bodyBytes));
  if (XXH3_64bits(rest.data(), rest.size()) != f.bodyHash) throw refuse("its bytes do not match their hash");
  if (f.jsonCrc > UINT32_MAX) throw refuse("declares a CRC past 32 bits");
  ProgramCache::Lookup found;
  found.graph = std::make_shared<Program>(decodeProgramGraph(rest, path));
  found.jsonBytes = f.jsonBytes;
  found.jsonCrc = static_cast<std::uint32_t>(f.jsonCrc);
  return found;
}

}  // namespace

ProgramCache::ProgramCache(std::string folder, std::size_t minimumBytes)
    : m_folder(std::move(folder)), m_minimumBytes(minimumBytes) {}

std::string ProgramCache::Key::fileName() const {
  // another torchir's entries are other files: two versions sharing the folder keep theirs
  std::string id = kHeader + file;
  id.push_back('\0');
  id += std::to_string(fileBytes) + "/" + std::to_string(modifiedNs);
  const XXH128_hash_t h = XXH3_128bits(id.data(), id.size());
  return hex(h.high64) + hex(h.low64) + ".program";
}

std::optional<ProgramCache::Key> ProgramCache::keyFor(const std::string& path) const {
  struct stat st {};
  if (m_folder.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::uint64_t>(st.st_size) < m_minimumBytes)
    return std::nullopt;
  Key key;
  if (char* real = ::realpath(path.c_str(), nullptr)) key.file = real, std::free(real);
  else key.file = path;
  key.fileBytes = static_cast<std::uint64_t>(st.st_size);
  key.modifiedNs = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return key;
}

std::string ProgramCache::pathOf(const Key& key) const { return m_folder + "/" + key.fileName(); }

ProgramCache::Lookup ProgramCache::lookUp(const Key& key) const {
  const std::string path = pathOf(key);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};  // no entry
  Lookup failed;
  try {
    return readEntry(path, key);
  } catch (const LoadError& e) {
    failed.problem = e.what();
  } catch (const std::exception& e) {  // memory, most likely: the entry is refused all the same
    failed.problem = path + ": " + e.what();
  }
  return failed;
}

bool ProgramCache::use(Lookup&& found, const Key& key, Program& program) {
  const std::string path = pathOf(key);
  std::string problem = std::move(found.problem);
  if (found.graph && (found.jsonBytes != key.jsonBytes || found.jsonCrc != key.jsonCrc))
    problem = path + ": made from another version of " + key.file + "'s JSON";
  if (!problem.empty()) {
    m_notes.push_back(problem + "; the program was read from its file and the entry removed");
    std::error_code ignored;
    fs::remove(path, ignored);
    return false;
  }
  if (!found.graph) return false;
  Program& graph = *found.graph;
  graph.source.path = std::move(program.source.path);
  graph.source.layout = std::move(program.source.layout);
  graph.weights = std::move(program.weights);
  graph.sampleInputs = std::move(program.sampleInputs);
  program = std::move(graph);
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // most recently used: dropped last
  ++m_hits;
  return true;
}

void ProgramCache::missed(const Key& key) {
  if (key.jsonBytes >= m_minimumBytes) m_lastMiss = key;
}

bool ProgramCache::store(const Key& key, const Program& program) {
  const auto keyOfProgram = keyFor(program.source.path);
  if (!keyOfProgram || keyOfProgram->file != key.file) {
    m_notes.push_back(program.source.path + ": not cached (it is not the file its key names)");
    return false;
  }
  std::optional<std::string> body;
  try {
    body = encodeProgramGraph(program);
  } catch (const std::exception& e) {
    m_notes.push_back(key.file + ": not cached (" + e.what() + ")");
    return false;
  }
  if (!body) {
    m_notes.push_back(key.file + ": not cached (a subgraph holds weights of its own)");
    return false;
  }
  const Fixed f{key.fileBytes, key.jsonBytes, key.file.size(), body->size(), XXH3_64bits(body->data(), body->size()),
                key.modifiedNs, key.jsonCrc};
  const std::string path = pathOf(key);
  // unique to this process and this call: two studios may write one entry at once
  static std::atomic<unsigned> calls{0};
  const std::string temporary = path + "." + std::to_string(::getpid()) + "-" + std::to_string(calls++) + kTemporarySuffix;
  std::error_code ec;
  fs::create_directories(m_folder, ec);
  bool written = false;
  if (std::FILE* out = std::fopen(temporary.c_str(), "wb")) {
    written = std::fwrite(kHeader.data(), 1, kHeader.size(), out) == kHeader.size() &&
              std::fwrite(&f, sizeof f, 1, out) == 1 &&
              std::fwrite(key.file.data(), 1, key.file.size(), out) == key.file.size() &&
              std::fwrite(body->data(), 1, body->size(), out) == body->size();
    written = std::fclose(out) == 0 && written;
  }
  if (written) fs::rename(temporary, path, ec);
  if (!written || ec) {
    fs::remove(temporary, ec);
    m_notes.push_back(path + ": could not be written; the program will be read from its file next time too");
    return false;
  }
  dropOldEntries();
  return true;
}

void ProgramCache::dropOldEntries() {
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(m_folder, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    const auto written = it->last_write_time(ec);
    if (ec) continue;
    if (p.extension() == ".program") entries.emplace_back(written, p);
    // what a writer that died left behind
    else if (p.extension() == kTemporarySuffix && now - written > std::chrono::hours(1)) fs::remove(p, ec);
  }
  if (entries.size() <= kMaxEntries) return;
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = kMaxEntries; i < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

std::vector<std::string> ProgramCache::takeNotes() { return std::exchange(m_notes, {}); }

}  // namespace torchir
