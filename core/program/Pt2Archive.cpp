#include "Pt2Archive.h"

#include <c10/util/Exception.h>
#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "LoadError.h"
#include "MappedFile.h"

namespace torchir {

struct Pt2Archive::Impl {
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> reader;
  // The whole zip in memory (a file's map, or a range of an outer archive's map) and its owner.
  const std::byte* data = nullptr;
  std::size_t size = 0;
  std::shared_ptr<const void> owner;
  std::vector<std::string> records;
};

namespace {
/// libtorch's zip errors run to several sentences: keep the first, without the reader's name.
std::string firstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  const std::string noise = "PytorchStreamReader failed reading zip archive: ";
  if (line.rfind(noise, 0) == 0) line.erase(0, noise.size());
  line = line.substr(0, line.find(". "));
  return line.empty() ? "unreadable archive" : line;
}

// Lets libtorch's zip reader read a zip that lies in memory (nested in a .pt2) without a copy.
class MemoryReadAdapter : public caffe2::serialize::ReadAdapterInterface {
 public:
  MemoryReadAdapter(const std::byte* data, std::size_t size) : m_data(data), m_size(size) {}
  size_t size() const override { return m_size; }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    if (pos >= m_size) return 0;
    n = std::min<std::size_t>(n, m_size - pos);
    std::memcpy(buf, m_data + pos, n);
    return n;
  }

 private:
  const std::byte* m_data;
  std::size_t m_size;
};
}  // namespace

Pt2Archive::Pt2Archive(const std::string& path) : m_path(path), m_impl(std::make_unique<Impl>()) {
  auto file = MappedFile::open(path);  // also reports a missing file clearly
  m_impl->data = file->data();
  m_impl->size = file->size();
  m_impl->owner = file;
  if (m_impl->size < 22) throw LoadError(path, "not a zip archive (file too short)");
  try {
    m_impl->reader = std::make_unique<caffe2::serialize::PyTorchStreamReader>(path);
    m_impl->records = m_impl->reader->getAllRecords();
  } catch (const c10::Error& e) {
    throw LoadError(path, "not a readable zip archive (truncated or corrupt?): " + firstLine(e.what_without_backtrace()));
  }
}

Pt2Archive::Pt2Archive(std::shared_ptr<const Storage> bytes)
    : m_path(bytes ? bytes->origin : std::string("<no bytes>")), m_impl(std::make_unique<Impl>()) {
  if (!bytes || !bytes->data || bytes->nbytes < 22) throw LoadError(m_path, "not a zip archive (too short)");
  m_impl->data = bytes->data;
  m_impl->size = bytes->nbytes;
  m_impl->owner = bytes;  // keeps the outer map alive through the Storage's own owner
  try {
    m_impl->reader = std::make_unique<caffe2::serialize::PyTorchStreamReader>(
        std::make_shared<MemoryReadAdapter>(m_impl->data, m_impl->size));
    m_impl->records = m_impl->reader->getAllRecords();
  } catch (const c10::Error& e) {
    throw LoadError(m_path, "not a readable zip archive (truncated or corrupt?): " + firstLine(e.what_without_backtrace()));
  }
}

Pt2Archive::~Pt2Archive() = default;

std::vector<std::string> Pt2Archive::records() const { return m_impl->records; }

bool Pt2Archive::has(const std::string& record) const {
  try {
    return m_impl->reader->hasRecord(record);
  } catch (const c10::Error&) {
    return false;
  }
}

std::string Pt2Archive::text(const std::string& record) const {
  try {
    auto [data, size] = m_impl->reader->getRecord(record);
    return std::string(static_cast<const char*>(data.get()), size);
  } catch (const c10::Error& e) {
    throw LoadError(m_path, "cannot read record " + record + ": " + firstLine(e.what_without_backtrace()));
  }
}

std::shared_ptr<const Storage> Pt2Archive::storage(const std::string& record) const {
  try {
    const std::size_t size = m_impl->reader->getRecordSize(record);
    const std::size_t offset = m_impl->reader->getRecordOffset(record);
    if (offset > m_impl->size || size > m_impl->size - offset)
      throw LoadError(m_path, "record " + record + " lies outside the file (truncated?)");
    return std::make_shared<Storage>(
        Storage{size ? m_impl->data + offset : nullptr, size, m_impl->owner, m_path + ":" + record});
  } catch (const c10::Error& e) {
    throw LoadError(m_path, "cannot read record " + record + ": " + firstLine(e.what_without_backtrace()));
  }
}

}  // namespace torchir
