#pragma once
// How much memory this process may use: the machine's, or less where a memory cgroup (v1 or v2,
// this process's or one above it) sets a lower limit. A run in a container or a `systemd-run -p
// MemoryMax=` scope sizes its budgets by the limit it will be killed at, not by the host's RAM.
#include <cstddef>
#include <optional>
#include <string>

namespace torchir {

/// The physical memory, or the lowest memory-cgroup limit on this process's path, if lower.
std::size_t usableMemory();

/// The lowest limit that `/proc/self/cgroup`'s text `cgroupFile` sets through the cgroup
/// hierarchies mounted at `root` (`/sys/fs/cgroup`), or nullopt where none does. Split out so that
/// a test can give it a hierarchy of its own.
std::optional<std::size_t> cgroupMemoryLimit(const std::string& cgroupFile, const std::string& root);

}  // namespace torchir
