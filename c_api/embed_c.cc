// The C API's embeddings (include/edgeq/edgeq.h): edgeq_llm_embed.
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "c_api/internal.h"
#include "c_api/llm_internal.h"
#include "edgeq/edgeq.h"
#include "llm/embed.h"

extern "C" {

edgeq_status edgeq_llm_embed(edgeq_llm* llm, const int32_t* tokens, size_t n_tokens,
                             const char* pooling, int32_t normalize, float* out, size_t capacity,
                             size_t* n_floats) {
  using edgeq::c_api::Fail;
  using edgeq::c_api::FromStatus;
  EDGEQ_C_CHECK_ARG(
      llm != nullptr && tokens != nullptr && pooling != nullptr && n_floats != nullptr,
      "llm, tokens, pooling or n_floats is NULL");
  EDGEQ_C_CHECK_ARG(n_tokens > 0, "n_tokens is 0");
  auto p = edgeq::llm::ParsePooling(pooling);
  if (!p.ok())
    return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                absl::StrCat("edgeq_llm_embed: ", p.status().message()));
  const int vocab = llm->model->config().vocab_size;
  const size_t ctx = static_cast<size_t>(llm->model->context_length());
  if (n_tokens > ctx) {
    return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                absl::StrCat("edgeq_llm_embed: ", n_tokens, " tokens; the context holds ", ctx));
  }
  for (size_t i = 0; i < n_tokens; ++i) {
    if (tokens[i] < 0 || tokens[i] >= vocab) {
      return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                  absl::StrCat("edgeq_llm_embed: tokens[", i, "] is ", tokens[i],
                               "; expected a token id in [0, ", vocab, ")"));
    }
  }
  llm->session->Reset();
  llm->restored_sampler.clear();
  const std::vector<int> ids(tokens, tokens + n_tokens);
  auto v = edgeq::llm::Embed(*llm->model, ids, *p, normalize);
  if (!v.ok()) {
    return FromStatus(
        absl::Status(v.status().code(), absl::StrCat("edgeq_llm_embed: ", v.status().message())));
  }
  *n_floats = v->size();
  if (out == nullptr || capacity < v->size()) {
    return Fail(EDGEQ_ERROR_BUFFER_TOO_SMALL,
                absl::StrCat("edgeq_llm_embed: ", v->size(), " floats, capacity ", capacity));
  }
  std::memcpy(out, v->data(), v->size() * sizeof(float));
  return EDGEQ_OK;
}

}  // extern "C"
