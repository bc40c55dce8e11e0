// The C API's saved sessions and cancellation (include/edgeq/edgeq.h): edgeq_llm_state_*,
// edgeq_llm_cancel, edgeq_llm_set_abort_callback.
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "c_api/internal.h"
#include "c_api/llm_internal.h"
#include "edgeq/edgeq.h"
#include "llm/state_file.h"

namespace edgeq {
namespace c_api {
namespace {

// The sampler whose state a save writes: the one a load restored if no generate has used it
// since, else the handle's.
class SavedSampler : public llm::TokenSampler {
 public:
  explicit SavedSampler(const edgeq_llm& llm) : llm_(llm) {}
  int Sample(absl::Span<const float>) override { return 0; }
  std::string SaveState() const override {
    return llm_.restored_sampler.empty() ? llm_.sampler.SaveState() : llm_.restored_sampler;
  }

 private:
  const edgeq_llm& llm_;
};

// Keeps a loaded state's sampler bytes for the next generate (which makes its own sampler).
class RestoredSampler : public llm::TokenSampler {
 public:
  int Sample(absl::Span<const float>) override { return 0; }
  absl::Status LoadState(absl::string_view state) override {
    bytes = std::string(state);
    return absl::OkStatus();
  }
  std::string bytes;
};

edgeq_status Prefixed(const char* fn, const absl::Status& st) {
  return FromStatus(absl::Status(st.code(), absl::StrCat(fn, ": ", st.message())));
}

}  // namespace

void InstallAbortCheck(edgeq_llm* llm) {
  llm->session->SetAbortCheck([llm] {
    if (llm->cancel.load(std::memory_order_relaxed)) return true;
    return llm->abort_callback != nullptr && llm->abort_callback(llm->abort_user_data) != 0;
  });
}

}  // namespace c_api
}  // namespace edgeq

using edgeq::c_api::Fail;
using edgeq::c_api::Prefixed;

extern "C" {

edgeq_status edgeq_llm_state_save(edgeq_llm* llm, uint8_t* buffer, size_t capacity, size_t* size) {
  EDGEQ_C_CHECK_ARG(llm != nullptr && size != nullptr, "llm or size is NULL");
  const edgeq::c_api::SavedSampler sampler(*llm);
  auto bytes = edgeq::llm::SaveSessionState(*llm->model, *llm->session, &sampler);
  if (!bytes.ok()) return Prefixed("edgeq_llm_state_save", bytes.status());
  *size = bytes->size();
  if (buffer == nullptr || capacity < bytes->size()) {
    return Fail(EDGEQ_ERROR_BUFFER_TOO_SMALL, absl::StrCat("edgeq_llm_state_save: ", bytes->size(),
                                                           " bytes needed, capacity ", capacity));
  }
  std::memcpy(buffer, bytes->data(), bytes->size());
  return EDGEQ_OK;
}

edgeq_status edgeq_llm_state_load(edgeq_llm* llm, const uint8_t* buffer, size_t size) {
  EDGEQ_C_CHECK_ARG(llm != nullptr, "llm is NULL");
  EDGEQ_C_CHECK_ARG(buffer != nullptr || size == 0, "buffer is NULL");
  edgeq::c_api::RestoredSampler sampler;
  const absl::Status st = edgeq::llm::LoadSessionState(
      absl::string_view(reinterpret_cast<const char*>(buffer), size), *llm->model, *llm->session,
      &sampler, "edgeq_llm_state_load: state");
  if (!st.ok()) return edgeq::c_api::FromStatus(st);
  llm->restored_sampler = std::move(sampler.bytes);
  return EDGEQ_OK;
}

edgeq_status edgeq_llm_state_save_file(edgeq_llm* llm, const char* path) {
  EDGEQ_C_CHECK_ARG(llm != nullptr && path != nullptr, "llm or path is NULL");
  const edgeq::c_api::SavedSampler sampler(*llm);
  const absl::Status st =
      edgeq::llm::SaveSessionStateFile(path, *llm->model, *llm->session, &sampler);
  return st.ok() ? EDGEQ_OK : Prefixed("edgeq_llm_state_save_file", st);
}

edgeq_status edgeq_llm_state_load_file(edgeq_llm* llm, const char* path) {
  EDGEQ_C_CHECK_ARG(llm != nullptr && path != nullptr, "llm or path is NULL");
  edgeq::c_api::RestoredSampler sampler;
  const absl::Status st =
      edgeq::llm::LoadSessionStateFile(path, *llm->model, *llm->session, &sampler);
  if (!st.ok()) return Prefixed("edgeq_llm_state_load_file", st);
  llm->restored_sampler = std::move(sampler.bytes);
  return EDGEQ_OK;
}

void edgeq_llm_cancel(edgeq_llm* llm) {
  if (llm != nullptr) llm->cancel.store(true, std::memory_order_relaxed);
}

void edgeq_llm_set_abort_callback(edgeq_llm* llm, edgeq_abort_callback callback, void* user_data) {
  if (llm == nullptr) return;
  llm->abort_callback = callback;
  llm->abort_user_data = user_data;
}

}  // extern "C"
