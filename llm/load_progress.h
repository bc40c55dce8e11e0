// Model::Load's progress reports (ModelOptions::on_progress): the fraction of the weight bytes
// prepared (copied or repacked by their kernels), 0 first and 1 last; the callback returns false
// to cancel the load, which then ends with Cancelled when the graph being prepared is done.
#ifndef EDGEQ_LLM_LOAD_PROGRESS_H_
#define EDGEQ_LLM_LOAD_PROGRESS_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>

#include "absl/status/status.h"

namespace edgeq {
namespace llm {

class LoadProgress {
 public:
  LoadProgress(std::function<bool(float)> callback, uint64_t total_bytes)
      : callback_(std::move(callback)), total_(std::max<uint64_t>(total_bytes, 1)) {}
  // A weight's bytes were prepared: reports min(0.99, prepared / total).
  void Add(uint64_t bytes) {
    done_ += bytes;
    Report(std::min(0.99f, static_cast<float>(static_cast<double>(done_) / total_)));
  }
  void Report(float fraction) {
    if (callback_ && !cancelled_ && !callback_(fraction)) cancelled_ = true;
  }
  // Reports 1 and stops calling the callback (graphs built later prepare weights too).
  void Finish() {
    Report(1.0f);
    callback_ = nullptr;
  }
  absl::Status status() const {
    return cancelled_ ? absl::CancelledError("model load cancelled by the progress callback")
                      : absl::OkStatus();
  }

 private:
  std::function<bool(float)> callback_;
  uint64_t total_;
  uint64_t done_ = 0;
  bool cancelled_ = false;
};

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_LOAD_PROGRESS_H_
