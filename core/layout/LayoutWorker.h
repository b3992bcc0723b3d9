#pragma once
// A dedicated layout thread for the GUI: requests carry a generation number, only the newest
// pending request is run (latest wins), and a request that is overtaken while running is abandoned
// between two module layouts. Results are delivered on the worker thread; the caller posts them to
// its own thread and drops any whose generation is not the latest it asked for.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "FoldState.h"
#include "LayoutTypes.h"
#include "ViewGraph.h"

namespace torchir::layout {

class LayoutWorker {
 public:
  using Callback = std::function<void(uint64_t generation, Layout layout)>;

  LayoutWorker(TextMeasure measure, Callback done);
  ~LayoutWorker();  // abandons pending work and joins
  LayoutWorker(const LayoutWorker&) = delete;
  LayoutWorker& operator=(const LayoutWorker&) = delete;

  /// Replaces any request not yet started; a running one is cancelled at its next check. `graph`
  /// keeps its program alive (an aliasing pointer does).
  void request(std::shared_ptr<const ViewGraph> graph, FoldState fold, uint64_t generation);

 private:
  struct Request {
    std::shared_ptr<const ViewGraph> graph;
    FoldState fold;
    uint64_t generation = 0;
  };
  void loop();

  TextMeasure m_measure;
  Callback m_done;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::optional<Request> m_pending;
  bool m_stop = false;
  std::thread m_thread;  // last: starts after everything it uses exists
};

}  // namespace torchir::layout
