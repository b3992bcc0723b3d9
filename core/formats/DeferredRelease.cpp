#include "DeferredRelease.h"

namespace torchir {
namespace {

thread_local std::vector<std::shared_ptr<void>>* t_collector = nullptr;

}  // namespace

void releaseLater(std::shared_ptr<void> scratch) {
  if (t_collector) t_collector->push_back(std::move(scratch));
}

DeferredReleaseScope::DeferredReleaseScope() : m_outer(t_collector) { t_collector = &m_held; }

DeferredReleaseScope::~DeferredReleaseScope() {
  t_collector = m_outer;
  while (!m_held.empty()) m_held.pop_back();
}

}  // namespace torchir
