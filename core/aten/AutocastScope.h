#pragma once
// torch.autocast's __enter__ and __exit__ as a scope: what wrap_with_autocast runs its body under,
// and what a body run again as a program of its own runs under (SessionOptions::autocast).
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <optional>

#include "exec/ExecTypes.h"

namespace torchir {

class AutocastScope {
 public:
  /// Sets the state on entry (enabled, the fast dtype, the cache), counts the nesting; on exit
  /// drops the cast cache when the outermost region ends and puts everything back, also when
  /// what ran inside threw.
  AutocastScope(c10::DeviceType device, bool enabled, c10::ScalarType dtype, bool cache);
  /// The region `region` names; none: the scope does nothing.
  explicit AutocastScope(const std::optional<AutocastRegion>& region);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  void enter(c10::DeviceType device, bool enabled, c10::ScalarType dtype, bool cache);
  bool m_entered = false;
  c10::DeviceType m_device = c10::DeviceType::CPU;
  bool m_wasEnabled = false;
  c10::ScalarType m_wasDtype = c10::ScalarType::Undefined;
  bool m_wasCache = true;
};

/// The autocast region in force on this thread for `device`, if autocast is on there.
std::optional<AutocastRegion> autocastInForce(c10::DeviceType device);

}  // namespace torchir
