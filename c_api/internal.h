// Helpers shared by the C API's translation units (not part of the API).
#ifndef EDGEQ_C_API_INTERNAL_H_
#define EDGEQ_C_API_INTERNAL_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "edgeq/edgeq.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace checkpoint {
class TensorDict;
}
namespace tokenizer {
class Tokenizer;
}
namespace c_api {

// Records `message` as the calling thread's last error and returns `code`.
edgeq_status Fail(edgeq_status code, std::string message);
// EDGEQ_OK for OK, else the matching code with the status' message recorded.
edgeq_status FromStatus(const absl::Status& status);
// The registered encoding `name` (NULL refused).
absl::StatusOr<const QuantizationEncoding*> Encoding(const char* name);
// The weights (GGUF metadata included) and vocabulary (nullptr if the file has none) of an
// edgeq_llm, whose struct lives in edgeq_c.cc; for chat_c.cc.
const checkpoint::TensorDict& LlmWeights(const edgeq_llm* llm);
const tokenizer::Tokenizer* LlmTokenizer(const edgeq_llm* llm);

}  // namespace c_api
}  // namespace edgeq

// Returns EDGEQ_ERROR_INVALID_ARGUMENT naming the calling function when `cond` is false.
#define EDGEQ_C_CHECK_ARG(cond, what)                                    \
  do {                                                                   \
    if (!(cond)) {                                                       \
      return ::edgeq::c_api::Fail(EDGEQ_ERROR_INVALID_ARGUMENT,          \
                                  ::absl::StrCat(__func__, ": ", what)); \
    }                                                                    \
  } while (0)

#endif  // EDGEQ_C_API_INTERNAL_H_
