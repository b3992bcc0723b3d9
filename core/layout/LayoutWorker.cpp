#include "LayoutWorker.h"

#include "LayoutEngine.h"
#include "exec/ThreadPriority.h"

namespace torchir::layout {

LayoutWorker::LayoutWorker(TextMeasure measure, Callback done)
    : m_measure(std::move(measure)), m_done(std::move(done)), m_thread([this] { loop(); }) {}

LayoutWorker::~LayoutWorker() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
    m_pending.reset();
  }
  m_wake.notify_all();
  m_thread.join();
}

void LayoutWorker::request(std::shared_ptr<const ViewGraph> graph, FoldState fold, uint64_t generation) {
  {
    std::lock_guard lock(m_mutex);
    m_pending = Request{std::move(graph), std::move(fold), generation};
  }
  m_wake.notify_all();
}

void LayoutWorker::loop() {
  lowerThisThreadPriority();
  // The engine (and with it Graphviz) lives and dies on this thread.
  LayoutEngine engine(m_measure);
  std::shared_ptr<const ViewGraph> current;  // keeps the engine's graph (and its program) alive
  for (;;) {
    Request req;
    {
      std::unique_lock lock(m_mutex);
      m_wake.wait(lock, [&] { return m_stop || m_pending.has_value(); });
      if (m_stop) return;
      req = std::move(*m_pending);
      m_pending.reset();
    }
    if (req.graph != current) {
      current = req.graph;
      if (current) engine.setGraph(current);
    }
    if (!current) continue;
    auto overtaken = [this] {
      std::lock_guard lock(m_mutex);
      return m_stop || m_pending.has_value();
    };
    auto result = engine.layout(req.fold, overtaken);
    if (result) m_done(req.generation, std::move(*result));
  }
}

}  // namespace torchir::layout
