// The C API's embeddings (include/edgeq/edgeq.h): edgeq_llm_embed (decoders) and edgeq_embedder_*
// (encoders, batched).
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "c_api/internal.h"
#include "c_api/llm_internal.h"
#include "edgeq/edgeq.h"
#include "llm/embed.h"
#ifndef EDGEQ_NO_ENCODERS
#include "llm/embed_encoder.h"
#endif

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

// ---- encoders (llm/embed_encoder.h) ----

#ifdef EDGEQ_NO_ENCODERS
// --define=edgeq_encoders=off (c_api/BUILD): no encoder models in this build; the functions stay
// exported and fail naming the define.
struct edgeq_embedder {};

extern "C" {

edgeq_status edgeq_embedder_load(const char*, int32_t, edgeq_embedder** out) {
  if (out != nullptr) *out = nullptr;
  return edgeq::c_api::Fail(EDGEQ_ERROR_FAILED_PRECONDITION,
                            "edgeq_embedder_load: encoder models are not in this build "
                            "(--define=edgeq_encoders=off)");
}
void edgeq_embedder_free(edgeq_embedder* embedder) { delete embedder; }
int32_t edgeq_embedder_dim(const edgeq_embedder*) { return 0; }
edgeq_status edgeq_embedder_embed_batch(edgeq_embedder*, const char* const*, size_t, const char*,
                                        int32_t, float*, size_t, size_t* n_floats) {
  if (n_floats != nullptr) *n_floats = 0;
  return edgeq::c_api::Fail(EDGEQ_ERROR_FAILED_PRECONDITION,
                            "edgeq_embedder_embed_batch: encoder models are not in this build "
                            "(--define=edgeq_encoders=off)");
}

}  // extern "C"
#else
struct edgeq_embedder {
  std::unique_ptr<edgeq::llm::Encoder> encoder;
};

extern "C" {

edgeq_status edgeq_embedder_load(const char* path, int32_t num_threads, edgeq_embedder** out) {
  using edgeq::c_api::Fail;
  EDGEQ_C_CHECK_ARG(path != nullptr && out != nullptr, "path or out is NULL");
  *out = nullptr;
  edgeq::llm::EncoderOptions o;
  o.num_threads = num_threads <= 0 ? 1 : num_threads;
  auto e = edgeq::llm::Encoder::Load(path, o);
  if (!e.ok()) {
    return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                absl::StrCat("edgeq_embedder_load: ", e.status().message()));
  }
  *out = new edgeq_embedder{*std::move(e)};
  return EDGEQ_OK;
}

void edgeq_embedder_free(edgeq_embedder* embedder) { delete embedder; }

int32_t edgeq_embedder_dim(const edgeq_embedder* embedder) {
  return embedder == nullptr ? 0 : static_cast<int32_t>(embedder->encoder->config().dim);
}

edgeq_status edgeq_embedder_embed_batch(edgeq_embedder* embedder, const char* const* texts,
                                        size_t n_texts, const char* pooling, int32_t normalize,
                                        float* out, size_t capacity, size_t* n_floats) {
  using edgeq::c_api::Fail;
  using edgeq::c_api::FromStatus;
  EDGEQ_C_CHECK_ARG(embedder != nullptr && texts != nullptr && n_floats != nullptr,
                    "embedder, texts or n_floats is NULL");
  EDGEQ_C_CHECK_ARG(n_texts > 0, "n_texts is 0");
  edgeq::llm::Encoder& enc = *embedder->encoder;
  edgeq::llm::Pooling p = enc.default_pooling();
  if (pooling != nullptr) {
    auto parsed = edgeq::llm::ParsePooling(pooling);
    if (!parsed.ok() || *parsed == edgeq::llm::Pooling::kNone) {
      return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                  absl::StrCat("edgeq_embedder_embed_batch: pooling '", pooling,
                               "'; expected mean, cls, last or NULL (the file's)"));
    }
    p = *parsed;
  }
  std::vector<std::string> t;
  for (size_t i = 0; i < n_texts; ++i) {
    EDGEQ_C_CHECK_ARG(texts[i] != nullptr, "a text is NULL");
    t.emplace_back(texts[i]);
  }
  const size_t dim = static_cast<size_t>(enc.config().dim);
  *n_floats = n_texts * dim;
  auto ids = enc.Tokenize(t);
  absl::StatusOr<std::vector<std::vector<float> > > v =
      ids.ok() ? enc.EmbedBatch(*ids, p, normalize) : ids.status();
  if (!v.ok()) {
    return FromStatus(absl::Status(
        v.status().code(), absl::StrCat("edgeq_embedder_embed_batch: ", v.status().message())));
  }
  if (out == nullptr || capacity < *n_floats) {
    return Fail(
        EDGEQ_ERROR_BUFFER_TOO_SMALL,
        absl::StrCat("edgeq_embedder_embed_batch: ", *n_floats, " floats, capacity ", capacity));
  }
  for (size_t i = 0; i < n_texts; ++i) std::memcpy(out + i * dim, (*v)[i].data(), dim * 4);
  return EDGEQ_OK;
}

}  // extern "C"
#endif  // EDGEQ_NO_ENCODERS
