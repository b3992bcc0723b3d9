#include "AutocastScope.h"

#include <ATen/autocast_mode.h>
#include <c10/core/Device.h>

namespace torchir {

AutocastScope::AutocastScope(c10::DeviceType device, bool enabled, c10::ScalarType dtype, bool cache) {
  enter(device, enabled, dtype, cache);
}

AutocastScope::AutocastScope(const std::optional<AutocastRegion>& region) {
  if (!region) return;
  const c10::DeviceType device = c10::Device(region->device).type();
  const c10::ScalarType dtype = region->dtype == DType::Unknown ? at::autocast::get_autocast_dtype(device)
                                                                : static_cast<c10::ScalarType>(region->dtype);
  enter(device, true, dtype, region->cache);
}

void AutocastScope::enter(c10::DeviceType device, bool enabled, c10::ScalarType dtype, bool cache) {
  m_entered = true;
  m_device = device;
  m_wasEnabled = at::autocast::is_autocast_enabled(device);
  m_wasDtype = at::autocast::get_autocast_dtype(device);
  m_wasCache = at::autocast::is_autocast_cache_enabled();
  at::autocast::set_autocast_enabled(device, enabled);
  at::autocast::set_autocast_dtype(device, dtype);
  at::autocast::increment_nesting();
  at::autocast::set_autocast_cache_enabled(cache);
}

AutocastScope::~AutocastScope() {
  if (!m_entered) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(m_device, m_wasEnabled);
  at::autocast::set_autocast_dtype(m_device, m_wasDtype);
  at::autocast::set_autocast_cache_enabled(m_wasCache);
}

std::optional<AutocastRegion> autocastInForce(c10::DeviceType device) {
  if (!at::autocast::is_autocast_enabled(device)) return std::nullopt;
  AutocastRegion region;
  region.device = c10::DeviceTypeName(device, /*lower_case=*/true);
  region.dtype = static_cast<DType>(at::autocast::get_autocast_dtype(device));
  region.cache = at::autocast::is_autocast_cache_enabled();
  return region;
}

}  // namespace torchir
