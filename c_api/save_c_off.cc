// The checkpoint writer of the C API (edgeq_tensor_dict_*, edgeq_save) in a library built with
// --define=edgeq_graph_api=off (README, "Footprint"): save_c.cc, which builds the tensors a graph
// program saves, is left out with the graph API, and these keep the exported symbols
// (sdk/edgeq.map) so that a program built against edgeq.h still links. Every fallible call fails
// with EDGEQ_ERROR_FAILED_PRECONDITION naming the function and the define.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "c_api/internal.h"
#include "edgeq/edgeq.h"

struct edgeq_tensor_dict {};

namespace {

edgeq_status NotInThisBuild(const char* fn) {
  return edgeq::c_api::Fail(
      EDGEQ_ERROR_FAILED_PRECONDITION,
      absl::StrCat(fn,
                   ": the checkpoint writer is not in this build (--define=edgeq_graph_api=off)"));
}

}  // namespace

extern "C" {

edgeq_status edgeq_tensor_dict_create(edgeq_tensor_dict** out) {
  if (out != nullptr) *out = nullptr;
  return NotInThisBuild("edgeq_tensor_dict_create");
}

void edgeq_tensor_dict_free(edgeq_tensor_dict* dict) { delete dict; }

size_t edgeq_tensor_dict_size(const edgeq_tensor_dict*) { return 0; }

edgeq_status edgeq_tensor_dict_set(edgeq_tensor_dict*, const char*, const char*, const char*,
                                   int32_t, const int64_t*, const void*, size_t) {
  return NotInThisBuild("edgeq_tensor_dict_set");
}

edgeq_status edgeq_save(const edgeq_tensor_dict*, const char*, int) {
  return NotInThisBuild("edgeq_save");
}

}  // extern "C"
