#include "CompanionFiles.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <initializer_list>
#include <system_error>

namespace torchir {
namespace {

bool endsWithIgnoringCase(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         });
}

/// `X` of `X.ir.json` / `X.json` (with its folder), or empty for anything else.
std::string irJsonStem(const std::string& path) {
  for (const std::string suffix : {".ir.json", ".json"})
    if (endsWithIgnoringCase(path, suffix)) return path.substr(0, path.size() - suffix.size());
  return {};
}

std::string firstExisting(const std::string& stem, std::initializer_list<const char*> suffixes) {
  for (const char* suffix : suffixes)
    if (auto found = firstRegularFile({stem + suffix}); !found.empty()) return found;
  return {};
}

}  // namespace

std::string firstRegularFile(std::initializer_list<std::string> paths) {
  for (const std::string& path : paths) {
    std::error_code e;
    if (std::filesystem::is_regular_file(path, e)) return path;
  }
  return {};
}

LoadOptions withCompanionFiles(const std::string& programPath, LoadOptions options) {
  const std::string stem = irJsonStem(programPath);
  if (stem.empty()) return options;
  // The order pytorch-ir's users save them in: safetensors first, since it is mapped, not unpickled.
  if (options.weightsPath.empty())
    options.weightsPath = firstExisting(stem, {".weights.safetensors", ".safetensors", ".state_dict.pt", ".pt", ".pth", ".bin"});
  if (options.constantsPath.empty()) options.constantsPath = firstExisting(stem, {".constants.safetensors"});
  return options;
}

}  // namespace torchir
