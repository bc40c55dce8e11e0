// The C API (include/edgeq/edgeq.h) over edgeq's C++ libraries. Every entry point catches
// nothing (edgeq does not throw) and turns absl::Status into an edgeq_status plus a per-thread
// message.
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "c_api/internal.h"
#include "c_api/llm_internal.h"
#include "checkpoint/formats.h"
#include "core/dtype.h"
#include "core/tensor.h"
#include "edgeq/edgeq.h"
#include "grammar/gbnf.h"
#ifndef EDGEQ_NO_GRAMMAR
#include "grammar/json_schema.h"
#endif
#ifndef EDGEQ_NO_CHAT_TEMPLATES
#include "llm/chat_template.h"
#endif
#include "llm/model.h"
#include "llm/open.h"
#include "llm/sampler.h"
#include "llm/session.h"
#include "quantization/encoding.h"
#include "runtime/kernels/qmatmul.h"
#include "runtime/session.h"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace c_api {

namespace {
// Internal linkage: gold (libedgeq.so is linked with it for --icf) leaves a TLS symbol of
// namespace scope exported despite the version script's `local: *`.
thread_local std::string g_last_error;
}  // namespace

edgeq_status Fail(edgeq_status code, std::string message) {
  g_last_error = std::move(message);
  return code;
}

edgeq_status FromStatus(const absl::Status& status) {
  if (status.ok()) return EDGEQ_OK;
  edgeq_status code = EDGEQ_ERROR_INTERNAL;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      code = EDGEQ_ERROR_INVALID_ARGUMENT;
      break;
    case absl::StatusCode::kNotFound:
      code = EDGEQ_ERROR_NOT_FOUND;
      break;
    case absl::StatusCode::kOutOfRange:
      code = EDGEQ_ERROR_OUT_OF_RANGE;
      break;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
      code = EDGEQ_ERROR_FAILED_PRECONDITION;
      break;
    case absl::StatusCode::kCancelled:
      code = EDGEQ_CANCELLED;
      break;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kDataLoss:
      code = EDGEQ_ERROR_IO;
      break;
    default:
      break;
  }
  return Fail(code, std::string(status.message()));
}

absl::StatusOr<const QuantizationEncoding*> Encoding(const char* name) {
  if (name == nullptr) return absl::InvalidArgumentError("encoding name is NULL");
  return FindEncoding(name);
}

}  // namespace c_api
}  // namespace edgeq

namespace {

using edgeq::c_api::Encoding;
using edgeq::c_api::Fail;
using edgeq::c_api::FromStatus;

// Checks rows/k against the encoding and returns the bytes of rows x k values.
absl::StatusOr<size_t> QuantizedBytes(const edgeq::QuantizationEncoding& enc, int64_t rows,
                                      int64_t k) {
  const edgeq::BlockParameters p = enc.block_parameters();
  if (rows <= 0 || k <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("rows and k must be positive, got rows ", rows, ", k ", k));
  }
  if (k % p.elements_per_block != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "k = ", k, " is not a multiple of ", p.elements_per_block, " (encoding ", enc.name(), ")"));
  }
  const int64_t row_bytes = k / p.elements_per_block * p.block_size;
  if (rows > INT64_MAX / row_bytes) return absl::InvalidArgumentError("rows x k overflows");
  return static_cast<size_t>(rows * row_bytes);
}

// The most KV cache positions edgeq_llm_options.context_length may ask for (the CLI's -c cap).
constexpr int32_t kMaxContextLength = 1 << 20;

// OkStatus if `n` ids fit the model's context and each is in [0, vocab); checked before the ids
// are copied, so that a wild count is an error instead of a huge allocation or read.
absl::Status CheckTokens(const char* fn, const char* what, const int32_t* ids, size_t n,
                         int64_t context, int64_t vocab) {
  if (n > static_cast<uint64_t>(context)) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": ", n, " ", what, " tokens; the context holds ", context));
  }
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || ids[i] >= vocab) {
      return absl::InvalidArgumentError(absl::StrCat(fn, ": ", what, "[", i, "] is ", ids[i],
                                                     "; expected a token id in [0, ", vocab, ")"));
    }
  }
  return absl::OkStatus();
}

const std::vector<std::string>& EncodingNames() {
  // Registered at static-init time; snapshot once so the c_str()s stay valid.
  static const std::vector<std::string>* names =
      new std::vector<std::string>(edgeq::EncodingRegistry::Global().Names());
  return *names;
}

}  // namespace

struct edgeq_checkpoint {
  edgeq::checkpoint::OpenedCheckpoint opened;
  std::string format;
  std::vector<std::string> dtypes;  // per tensor, in Keys() order
};

const edgeq::checkpoint::TensorDict& edgeq::c_api::LlmWeights(const edgeq_llm* llm) {
  return llm->model->weights();
}
const edgeq::tokenizer::Tokenizer* edgeq::c_api::LlmTokenizer(const edgeq_llm* llm) {
  return llm->tokenizer;
}

namespace {

edgeq_status SetGrammarText(edgeq_llm* llm, const char* fn, const char* what,
                            absl::StatusOr<std::string> gbnf) {
#ifdef EDGEQ_NO_GRAMMAR
  // --define=edgeq_grammar=off leaves grammars and JSON schemas out of the library.
  return FromStatus(absl::FailedPreconditionError(
      absl::StrCat(fn, ": this libedgeq was built without grammars (--define=edgeq_grammar=off)")));
#endif
  if (!gbnf.ok()) {
    return FromStatus(absl::Status(gbnf.status().code(),
                                   absl::StrCat(fn, ": ", what, ": ", gbnf.status().message())));
  }
  auto g = edgeq::grammar::ParseGbnf(*gbnf);
  if (!g.ok()) {
    return FromStatus(
        absl::Status(g.status().code(), absl::StrCat(fn, ": ", what, ": ", g.status().message())));
  }
  if (!llm->tokenizer) {
    return FromStatus(absl::FailedPreconditionError(
        absl::StrCat(fn, ": the model has no vocabulary (tokenizer.ggml.*) to constrain")));
  }
  if (llm->grammar_vocab == nullptr) {
    const int n = llm->model->config().vocab_size;
    std::vector<std::string> pieces(n);
    for (int i = 0; i < n; ++i) pieces[i] = llm->tokenizer->TokenBytes(i);
    llm->grammar_vocab = std::make_shared<const edgeq::llm::GrammarVocab>(
        std::move(pieces),
        std::vector<int>(llm->tokenizer->eog_ids().begin(), llm->tokenizer->eog_ids().end()));
  }
  llm->grammar = *std::move(g);
  return EDGEQ_OK;
}

}  // namespace

extern "C" {

const char* edgeq_version(void) { return EDGEQ_VERSION_STRING; }

const char* edgeq_last_error(void) { return edgeq::c_api::g_last_error.c_str(); }

const char* edgeq_status_name(edgeq_status status) {
  switch (status) {
    case EDGEQ_OK:
      return "OK";
    case EDGEQ_ERROR_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case EDGEQ_ERROR_NOT_FOUND:
      return "NOT_FOUND";
    case EDGEQ_ERROR_OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case EDGEQ_ERROR_FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case EDGEQ_ERROR_BUFFER_TOO_SMALL:
      return "BUFFER_TOO_SMALL";
    case EDGEQ_ERROR_IO:
      return "IO";
    case EDGEQ_ERROR_INTERNAL:
      return "INTERNAL";
    case EDGEQ_CANCELLED:
      return "CANCELLED";
  }
  return "UNKNOWN";
}

const char* edgeq_best_isa(void) {
  static const std::string* name =
      new std::string(edgeq::kernels::IsaName(edgeq::kernels::BestSupportedIsa()));
  return name->c_str();
}

size_t edgeq_encoding_count(void) { return EncodingNames().size(); }

edgeq_status edgeq_encoding_name(size_t index, const char** name) {
  EDGEQ_C_CHECK_ARG(name != nullptr, "name is NULL");
  const auto& names = EncodingNames();
  if (index >= names.size()) {
    return Fail(EDGEQ_ERROR_OUT_OF_RANGE,
                absl::StrCat("encoding index ", index, " not below ", names.size()));
  }
  *name = names[index].c_str();
  return EDGEQ_OK;
}

edgeq_status edgeq_encoding_block(const char* encoding, int64_t* elements_per_block,
                                  int64_t* block_bytes) {
  auto enc = Encoding(encoding);
  if (!enc.ok()) return FromStatus(enc.status());
  const edgeq::BlockParameters p = (*enc)->block_parameters();
  if (elements_per_block) *elements_per_block = p.elements_per_block;
  if (block_bytes) *block_bytes = p.block_size;
  return EDGEQ_OK;
}

edgeq_status edgeq_quantized_size(const char* encoding, int64_t rows, int64_t k, size_t* bytes) {
  EDGEQ_C_CHECK_ARG(bytes != nullptr, "bytes is NULL");
  auto enc = Encoding(encoding);
  if (!enc.ok()) return FromStatus(enc.status());
  auto n = QuantizedBytes(**enc, rows, k);
  if (!n.ok()) return FromStatus(n.status());
  *bytes = *n;
  return EDGEQ_OK;
}

edgeq_status edgeq_quantize(const char* encoding, const float* x, int64_t rows, int64_t k,
                            uint8_t* out, size_t out_bytes) {
  EDGEQ_C_CHECK_ARG(x != nullptr && out != nullptr, "x or out is NULL");
  auto enc = Encoding(encoding);
  if (!enc.ok()) return FromStatus(enc.status());
  auto need = QuantizedBytes(**enc, rows, k);
  if (!need.ok()) return FromStatus(need.status());
  if (out_bytes < *need) {
    return Fail(EDGEQ_ERROR_BUFFER_TOO_SMALL, absl::StrCat("edgeq_quantize: out holds ", out_bytes,
                                                           " bytes, ", *need, " needed"));
  }
  // Through the Tensor API so NaN/Inf are refused with the index named.
  auto view = edgeq::Tensor::View(edgeq::DType::kFloat32, edgeq::Shape({rows, k}), x,
                                  static_cast<size_t>(rows * k) * sizeof(float), nullptr);
  if (!view.ok()) return FromStatus(view.status());
  auto q = (*enc)->Quantize(*view);
  if (!q.ok()) return FromStatus(q.status());
  std::memcpy(out, q->raw_data(), *need);
  return EDGEQ_OK;
}

edgeq_status edgeq_dequantize(const char* encoding, const uint8_t* in, size_t in_bytes,
                              int64_t rows, int64_t k, float* y) {
  EDGEQ_C_CHECK_ARG(in != nullptr && y != nullptr, "in or y is NULL");
  auto enc = Encoding(encoding);
  if (!enc.ok()) return FromStatus(enc.status());
  auto need = QuantizedBytes(**enc, rows, k);
  if (!need.ok()) return FromStatus(need.status());
  if (in_bytes != *need) {
    return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                absl::StrCat("edgeq_dequantize: ", rows, " rows of ", k, " values in ",
                             (*enc)->name(), " are ", *need, " bytes, got ", in_bytes));
  }
  const size_t row_bytes = *need / static_cast<size_t>(rows);
  for (int64_t r = 0; r < rows; ++r) {
    (*enc)->DequantizeRow(in + r * row_bytes, y + r * k, k);
  }
  return EDGEQ_OK;
}

edgeq_status edgeq_qmatmul(const char* encoding, const uint8_t* w, size_t w_bytes, int64_t n,
                           int64_t k, const float* x, int64_t m, float* y) {
  EDGEQ_C_CHECK_ARG(w != nullptr && x != nullptr && y != nullptr, "w, x or y is NULL");
  EDGEQ_C_CHECK_ARG(m > 0, absl::StrCat("m must be positive, got ", m));
  auto enc = Encoding(encoding);
  if (!enc.ok()) return FromStatus(enc.status());
  auto kernel =
      edgeq::kernels::QMatmulKernel::Create((*enc)->name(), n, k, absl::MakeConstSpan(w, w_bytes));
  if (!kernel.ok()) return FromStatus(kernel.status());
  const size_t scratch_bytes = (*kernel)->ScratchBytes(m);
  std::unique_ptr<uint8_t[]> scratch(new uint8_t[scratch_bytes + 64]);
  void* aligned = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.get()) + 63) &
                                          ~static_cast<uintptr_t>(63));
  (*kernel)->Run(m, x, k, y, n, aligned, nullptr);
  return EDGEQ_OK;
}

edgeq_status edgeq_checkpoint_open(const char* path, edgeq_checkpoint** out) {
  EDGEQ_C_CHECK_ARG(path != nullptr && out != nullptr, "path or out is NULL");
  *out = nullptr;
  auto opened = edgeq::checkpoint::OpenCheckpoint(path);
  if (!opened.ok()) return FromStatus(opened.status());
  auto c = std::make_unique<edgeq_checkpoint>();
  c->format = std::string(edgeq::checkpoint::FormatName(opened->format));
  c->opened = std::move(*opened);
  for (const std::string& key : c->opened.dict.Keys()) {
    c->dtypes.emplace_back(edgeq::DTypeName((*c->opened.dict.Get(key))->dtype()));
  }
  *out = c.release();
  return EDGEQ_OK;
}

void edgeq_checkpoint_close(edgeq_checkpoint* checkpoint) { delete checkpoint; }

const char* edgeq_checkpoint_format(const edgeq_checkpoint* checkpoint) {
  return checkpoint ? checkpoint->format.c_str() : "";
}

size_t edgeq_checkpoint_tensor_count(const edgeq_checkpoint* checkpoint) {
  return checkpoint ? checkpoint->opened.dict.size() : 0;
}

edgeq_status edgeq_checkpoint_tensor_at(const edgeq_checkpoint* checkpoint, size_t index,
                                        edgeq_tensor_info* info) {
  EDGEQ_C_CHECK_ARG(checkpoint != nullptr && info != nullptr, "checkpoint or info is NULL");
  const auto& keys = checkpoint->opened.dict.Keys();
  if (index >= keys.size()) {
    return Fail(EDGEQ_ERROR_OUT_OF_RANGE,
                absl::StrCat("tensor index ", index, " not below ", keys.size()));
  }
  const edgeq::Tensor& t = **checkpoint->opened.dict.Get(keys[index]);
  const auto& dims = t.logical_shape().dims();
  if (dims.size() > EDGEQ_MAX_RANK) {
    return Fail(EDGEQ_ERROR_OUT_OF_RANGE, absl::StrCat("tensor '", keys[index], "' has rank ",
                                                       dims.size(), " > ", EDGEQ_MAX_RANK));
  }
  std::memset(info, 0, sizeof(*info));
  info->name = keys[index].c_str();
  info->dtype = checkpoint->dtypes[index].c_str();
  info->encoding = t.encoding().c_str();
  info->rank = static_cast<int32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) info->shape[i] = dims[i];
  info->data = t.raw_data();
  info->data_bytes = t.size_bytes();
  return EDGEQ_OK;
}

edgeq_status edgeq_checkpoint_tensor(const edgeq_checkpoint* checkpoint, const char* name,
                                     edgeq_tensor_info* info) {
  EDGEQ_C_CHECK_ARG(checkpoint != nullptr && name != nullptr, "checkpoint or name is NULL");
  const auto& keys = checkpoint->opened.dict.Keys();
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == name) return edgeq_checkpoint_tensor_at(checkpoint, i, info);
  }
  return Fail(EDGEQ_ERROR_NOT_FOUND,
              absl::StrCat("no tensor named '", name, "' among ", keys.size(), " tensors"));
}

edgeq_sampling_params edgeq_sampling_default(void) {
  const edgeq::llm::SamplerOptions o;
  edgeq_sampling_params p;
  p.temperature = o.temperature;
  p.top_k = o.top_k;
  p.top_p = o.top_p;
  p.min_p = o.min_p;
  p.repeat_penalty = o.repeat_penalty;
  p.penalty_last_n = o.penalty_last_n;
  p.seed = o.seed;
  return p;
}

edgeq_status edgeq_llm_load(const char* path, const edgeq_llm_options* options, edgeq_llm** out) {
  return edgeq_llm_load_with_progress(path, options, nullptr, nullptr, out);
}

edgeq_status edgeq_llm_load_with_progress(const char* path, const edgeq_llm_options* options,
                                          edgeq_progress_callback progress, void* user_data,
                                          edgeq_llm** out) {
  EDGEQ_C_CHECK_ARG(path != nullptr && out != nullptr, "path or out is NULL");
  *out = nullptr;
  edgeq::llm::ModelOptions mo;
  if (progress != nullptr) {
    mo.on_progress = [progress, user_data](float f) { return progress(f, user_data) != 0; };
  }
  if (options != nullptr) {
    if (options->num_threads > edgeq::kMaxSessionThreads) {
      return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                  absl::StrCat("edgeq_llm_options.num_threads is ", options->num_threads,
                               "; expected at most ", edgeq::kMaxSessionThreads, " (<= 0: 1)"));
    }
    if (options->context_length > kMaxContextLength) {
      return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                  absl::StrCat("edgeq_llm_options.context_length is ", options->context_length,
                               "; expected at most ", kMaxContextLength, " (<= 0: the model's)"));
    }
    if (options->ubatch_size > edgeq::llm::kMaxUbatchSize) {
      return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                  absl::StrCat("edgeq_llm_options.ubatch_size is ", options->ubatch_size,
                               "; expected at most ", edgeq::llm::kMaxUbatchSize,
                               " (<= 0: the default, ", edgeq::llm::kDefaultUbatchSize, ")"));
    }
    if (options->num_threads > 0) mo.num_threads = options->num_threads;
    if (options->context_length > 0) mo.context_length = options->context_length;
    if (options->ubatch_size > 0) mo.prefill_block = options->ubatch_size;
  }
  edgeq::llm::OpenOptions oo;
  oo.model = std::move(mo);
  // The vocabulary from the file's GGUF-style metadata, when it has one.
  oo.tokenizer = edgeq::llm::TokenizerUse::kIfPresent;
  auto opened = edgeq::llm::Open(path, oo);
  if (!opened.ok()) return FromStatus(opened.status());
  auto llm = std::make_unique<edgeq_llm>();
  llm->model = std::move(opened->model);
  llm->text_tokenizer = std::move(opened->tokenizer);
  if (llm->text_tokenizer != nullptr) llm->tokenizer = llm->text_tokenizer->vocabulary();
  auto sampler = edgeq::llm::Sampler::Create(llm->model->config().vocab_size, {});
  if (!sampler.ok()) return FromStatus(sampler.status());
  llm->sampler.sampler.emplace(std::move(*sampler));
  if (llm->grammar != nullptr) {
    const absl::Status g = llm->sampler.sampler->SetGrammar(llm->grammar, llm->grammar_vocab);
    if (!g.ok()) return FromStatus(g);
  }
  llm->session = std::make_unique<edgeq::llm::Session>(*llm->model, llm->sampler);
  edgeq::c_api::InstallAbortCheck(llm.get());
  *out = llm.release();
  return EDGEQ_OK;
}

void edgeq_llm_free(edgeq_llm* llm) { delete llm; }

int32_t edgeq_llm_vocab_size(const edgeq_llm* llm) {
  return llm ? llm->model->config().vocab_size : 0;
}

int32_t edgeq_llm_context_length(const edgeq_llm* llm) {
  return llm ? llm->model->context_length() : 0;
}

int32_t edgeq_llm_ubatch_size(const edgeq_llm* llm) { return llm ? llm->model->ubatch_size() : 0; }

int32_t edgeq_llm_eos(const edgeq_llm* llm) {
  return llm && llm->tokenizer ? llm->tokenizer->eos_id() : -1;
}

edgeq_status edgeq_llm_tokenize(const edgeq_llm* llm, const char* text, int add_special,
                                int32_t* tokens, size_t capacity, size_t* n_tokens) {
  EDGEQ_C_CHECK_ARG(llm != nullptr && text != nullptr && n_tokens != nullptr,
                    "llm, text or n_tokens is NULL");
  if (!llm->tokenizer) {
    return Fail(EDGEQ_ERROR_FAILED_PRECONDITION,
                "edgeq_llm_tokenize: the model file holds no tokenizer.ggml.* vocabulary");
  }
  edgeq::tokenizer::Tokenizer::EncodeOptions eo;
  eo.add_special = add_special != 0;
  auto ids = llm->tokenizer->Encode(text, eo);
  if (!ids.ok()) return FromStatus(ids.status());
  *n_tokens = ids->size();
  if (capacity < ids->size()) {
    return Fail(EDGEQ_ERROR_BUFFER_TOO_SMALL,
                absl::StrCat("edgeq_llm_tokenize: ", ids->size(), " tokens, capacity ", capacity));
  }
  if (!ids->empty()) std::memcpy(tokens, ids->data(), ids->size() * sizeof(int32_t));
  return EDGEQ_OK;
}

edgeq_status edgeq_llm_detokenize(const edgeq_llm* llm, const int32_t* tokens, size_t n_tokens,
                                  char* text, size_t capacity, size_t* length) {
  EDGEQ_C_CHECK_ARG(llm != nullptr && length != nullptr, "llm or length is NULL");
  EDGEQ_C_CHECK_ARG(tokens != nullptr || n_tokens == 0, "tokens is NULL");
  if (!llm->tokenizer) {
    return Fail(EDGEQ_ERROR_FAILED_PRECONDITION,
                "edgeq_llm_detokenize: the model file holds no tokenizer.ggml.* vocabulary");
  }
  for (size_t i = 0; i < n_tokens; ++i) {
    if (tokens[i] < 0 || tokens[i] >= llm->tokenizer->n_tokens()) {
      return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                  absl::StrCat("edgeq_llm_detokenize: tokens[", i, "] is ", tokens[i],
                               "; expected a token id in [0, ", llm->tokenizer->n_tokens(), ")"));
    }
  }
  const std::string s = llm->tokenizer->Decode(absl::MakeConstSpan(tokens, n_tokens));
  *length = s.size();
  if (text == nullptr || capacity < s.size() + 1) {
    return Fail(EDGEQ_ERROR_BUFFER_TOO_SMALL, absl::StrCat("edgeq_llm_detokenize: ", s.size() + 1,
                                                           " bytes needed, capacity ", capacity));
  }
  std::memcpy(text, s.data(), s.size());
  text[s.size()] = '\0';
  return EDGEQ_OK;
}

edgeq_status edgeq_llm_generate(edgeq_llm* llm, const int32_t* prompt, size_t n_prompt,
                                int32_t max_tokens, const edgeq_sampling_params* params,
                                edgeq_token_callback callback, void* user_data, int32_t* out_tokens,
                                size_t capacity, size_t* n_generated) {
  EDGEQ_C_CHECK_ARG(llm != nullptr, "llm is NULL");
  EDGEQ_C_CHECK_ARG(prompt != nullptr || n_prompt == 0, "prompt is NULL");
  const absl::Status prompt_ok = CheckTokens("edgeq_llm_generate", "prompt", prompt, n_prompt,
                                             llm->model->context_length() - llm->session->n_past(),
                                             llm->model->config().vocab_size);
  if (!prompt_ok.ok()) return FromStatus(prompt_ok);
  edgeq::llm::SamplerOptions so;
  if (params != nullptr) {
    so.temperature = params->temperature;
    so.top_k = params->top_k;
    so.top_p = params->top_p;
    so.min_p = params->min_p;
    so.repeat_penalty = params->repeat_penalty;
    so.penalty_last_n = params->penalty_last_n;
    so.seed = params->seed;
  } else {
    so.temperature = 0;
  }
  auto sampler = edgeq::llm::Sampler::Create(llm->model->config().vocab_size, so);
  if (!sampler.ok()) return FromStatus(sampler.status());
  llm->sampler.sampler.emplace(std::move(*sampler));
  if (llm->grammar != nullptr) {
    const absl::Status g = llm->sampler.sampler->SetGrammar(llm->grammar, llm->grammar_vocab);
    if (!g.ok()) return FromStatus(g);
  }
  // Re-accept what the context holds so penalties see it.
  for (int t : llm->session->tokens()) llm->sampler.Accept(t);
  // A loaded state's sampler (random sequence, penalties window) goes on where it was saved.
  if (!llm->restored_sampler.empty()) {
    const absl::Status st = llm->sampler.LoadState(llm->restored_sampler);
    if (!st.ok()) return FromStatus(st);
    llm->restored_sampler.clear();
  }
  llm->cancel.store(false);

  edgeq::llm::GenerateOptions go;
  go.max_tokens = max_tokens;
  if (llm->tokenizer) {
    for (int32_t id : llm->tokenizer->eog_ids()) go.stop_tokens.push_back(id);
  }
  std::vector<int> p(prompt, prompt + n_prompt);
  edgeq::llm::TokenCallback cb;
  if (callback != nullptr) {
    cb = [&](int token) {
      const std::string piece = llm->tokenizer ? llm->tokenizer->TokenToPiece(token, false) : "";
      return callback(token, piece.c_str(), user_data) != 0;
    };
  }
  auto result = llm->session->Generate(p, go, cb);
  if (!result.ok()) return FromStatus(result.status());
  if (n_generated != nullptr) *n_generated = result->tokens.size();
  if (out_tokens != nullptr) {
    const size_t n = std::min(capacity, result->tokens.size());
    for (size_t i = 0; i < n; ++i) out_tokens[i] = result->tokens[i];
  }
  if (result->reason == edgeq::llm::StopReason::kCancelled) {
    return Fail(EDGEQ_CANCELLED, absl::StrCat("edgeq_llm_generate: cancelled after ",
                                              result->tokens.size(), " generated tokens"));
  }
  return EDGEQ_OK;
}

edgeq_status edgeq_llm_eval(edgeq_llm* llm, const int32_t* tokens, size_t n_tokens, float* logits,
                            size_t capacity) {
  EDGEQ_C_CHECK_ARG(llm != nullptr && tokens != nullptr && logits != nullptr,
                    "llm, tokens or logits is NULL");
  EDGEQ_C_CHECK_ARG(n_tokens > 0, "n_tokens is 0");
  const absl::Status tokens_ok =
      CheckTokens("edgeq_llm_eval", "tokens", tokens, n_tokens, llm->model->context_length(),
                  llm->model->config().vocab_size);
  if (!tokens_ok.ok()) return FromStatus(tokens_ok);
  const size_t vocab = static_cast<size_t>(llm->model->config().vocab_size);
  if (capacity < vocab) {
    return Fail(
        EDGEQ_ERROR_BUFFER_TOO_SMALL,
        absl::StrCat("edgeq_llm_eval: logits holds ", capacity, " floats, vocabulary ", vocab));
  }
  llm->session->Reset();
  llm->restored_sampler.clear();
  std::vector<int> t(tokens, tokens + n_tokens);
  auto out = llm->model->Prefill(t, 0);
  if (!out.ok()) return FromStatus(out.status());
  std::memcpy(logits, out->data(), vocab * sizeof(float));
  return EDGEQ_OK;
}

int32_t edgeq_llm_n_past(const edgeq_llm* llm) { return llm ? llm->session->n_past() : 0; }

edgeq_status edgeq_llm_set_grammar(edgeq_llm* llm, const char* gbnf) {
  EDGEQ_C_CHECK_ARG(llm != nullptr, "llm is NULL");
  if (gbnf == nullptr || *gbnf == '\0') {
    llm->grammar = nullptr;
    return EDGEQ_OK;
  }
  return SetGrammarText(llm, "edgeq_llm_set_grammar", "gbnf", std::string(gbnf));
}

edgeq_status edgeq_llm_set_json_schema(edgeq_llm* llm, const char* schema) {
  EDGEQ_C_CHECK_ARG(llm != nullptr, "llm is NULL");
  if (schema == nullptr || *schema == '\0') {
    llm->grammar = nullptr;
    return EDGEQ_OK;
  }
#ifdef EDGEQ_NO_GRAMMAR
  return SetGrammarText(llm, "edgeq_llm_set_json_schema", "schema", std::string());
#else
  return SetGrammarText(llm, "edgeq_llm_set_json_schema", "schema",
                        edgeq::grammar::JsonSchemaToGbnf(schema));
#endif
}

edgeq_status edgeq_llm_chat_tokenize(const edgeq_llm* llm, const char* chat_template,
                                     const char* const* roles, const char* const* contents,
                                     size_t n_messages, int add_generation_prompt, int32_t* tokens,
                                     size_t capacity, size_t* n_tokens) {
  EDGEQ_C_CHECK_ARG(llm != nullptr && n_tokens != nullptr, "llm or n_tokens is NULL");
  EDGEQ_C_CHECK_ARG(n_messages == 0 || (roles != nullptr && contents != nullptr),
                    "roles or contents is NULL");
  if (!llm->tokenizer) {
    return Fail(EDGEQ_ERROR_FAILED_PRECONDITION,
                "edgeq_llm_chat_tokenize: the model file holds no tokenizer.ggml.* vocabulary");
  }
#ifdef EDGEQ_NO_CHAT_TEMPLATES
  (void)chat_template, (void)add_generation_prompt, (void)tokens, (void)capacity;
  return Fail(EDGEQ_ERROR_FAILED_PRECONDITION,
              "edgeq_llm_chat_tokenize: this libedgeq was built without chat templates "
              "(--define=edgeq_chat=off)");
#else
  const edgeq::tokenizer::Tokenizer& tok = *llm->tokenizer;
  const std::string bos = tok.bos_id() >= 0 ? tok.TokenToPiece(tok.bos_id()) : "";
  const std::string eos = tok.eos_id() >= 0 ? tok.TokenToPiece(tok.eos_id()) : "";
  std::string name_or_text = chat_template != nullptr ? chat_template : "";
  if (name_or_text.empty()) {
    auto text = edgeq::llm::ChatTemplate::TextFromGguf(llm->model->weights());
    if (!text.ok()) {
      return Fail(absl::IsNotFound(text.status()) ? EDGEQ_ERROR_NOT_FOUND : EDGEQ_ERROR_INTERNAL,
                  absl::StrCat("edgeq_llm_chat_tokenize: ", text.status().message(),
                               "; pass a template name (chatml, llama3, ...) or Jinja text"));
    }
    name_or_text = *std::move(text);
  }
  auto t = edgeq::llm::ChatTemplate::Open(name_or_text, bos, eos);
  if (!t.ok()) return FromStatus(t.status());
  std::vector<edgeq::llm::ChatMessage> messages(n_messages);
  for (size_t i = 0; i < n_messages; ++i) {
    if (roles[i] == nullptr || contents[i] == nullptr) {
      return Fail(EDGEQ_ERROR_INVALID_ARGUMENT, absl::StrCat("edgeq_llm_chat_tokenize: message ", i,
                                                             " has a NULL role or content"));
    }
    messages[i] = {roles[i], contents[i]};
  }
  auto prompt = t->Render(messages, add_generation_prompt != 0);
  if (!prompt.ok()) return FromStatus(prompt.status());
  edgeq::tokenizer::Tokenizer::EncodeOptions eo;
  eo.add_special = bos.empty() || prompt->compare(0, bos.size(), bos) != 0;
  eo.parse_special = true;
  auto ids = tok.Encode(*prompt, eo);
  if (!ids.ok()) return FromStatus(ids.status());
  *n_tokens = ids->size();
  if (capacity < ids->size()) {
    return Fail(EDGEQ_ERROR_BUFFER_TOO_SMALL, absl::StrCat("edgeq_llm_chat_tokenize: ", ids->size(),
                                                           " tokens, capacity ", capacity));
  }
  if (!ids->empty()) std::memcpy(tokens, ids->data(), ids->size() * sizeof(int32_t));
  return EDGEQ_OK;
#endif  // EDGEQ_NO_CHAT_TEMPLATES
}

void edgeq_llm_reset(edgeq_llm* llm) {
  if (llm) llm->session->Reset();
  if (llm) llm->restored_sampler.clear();
}

}  // extern "C"
