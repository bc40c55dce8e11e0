// The graph C API (edgeq_graph_*, edgeq_op_*, edgeq_session_*, edgeq_model_*) of a library built
// with --define=edgeq_graph_api=off (README, "Footprint"): graph_c.cc is left out, and these keep
// the exported symbols (sdk/edgeq.map) so that a program built against edgeq.h still links. Every
// fallible call fails with EDGEQ_ERROR_FAILED_PRECONDITION naming the function and the define.
#include <string>

#include "absl/strings/str_cat.h"
#include "c_api/internal.h"
#include "edgeq/edgeq.h"

struct edgeq_graph {};
struct edgeq_session {};
struct edgeq_model {};

namespace {

edgeq_status NotInThisBuild(const char* fn) {
  return edgeq::c_api::Fail(
      EDGEQ_ERROR_FAILED_PRECONDITION,
      absl::StrCat(fn, ": the graph API is not in this build (--define=edgeq_graph_api=off)"));
}

}  // namespace

extern "C" {

edgeq_status edgeq_graph_create(const char*, const edgeq_tensor_type*, size_t, edgeq_graph** out) {
  if (out != nullptr) *out = nullptr;
  return NotInThisBuild("edgeq_graph_create");
}
void edgeq_graph_free(edgeq_graph* graph) { delete graph; }
edgeq_status edgeq_graph_input(edgeq_graph*, size_t, edgeq_value*) {
  return NotInThisBuild("edgeq_graph_input");
}
edgeq_status edgeq_graph_constant(edgeq_graph*, const float*, int32_t, const int64_t*,
                                  edgeq_value*) {
  return NotInThisBuild("edgeq_graph_constant");
}
edgeq_status edgeq_graph_quantize(edgeq_graph*, const char*, const float*, int32_t, const int64_t*,
                                  edgeq_value*) {
  return NotInThisBuild("edgeq_graph_quantize");
}
edgeq_status edgeq_graph_quantized_constant(edgeq_graph*, const char*, const uint8_t*, size_t,
                                            int32_t, const int64_t*, edgeq_value*) {
  return NotInThisBuild("edgeq_graph_quantized_constant");
}
edgeq_status edgeq_graph_qmatmul(edgeq_graph*, const char*, edgeq_value, edgeq_value,
                                 edgeq_value*) {
  return NotInThisBuild("edgeq_graph_qmatmul");
}
edgeq_status edgeq_graph_op_with_attributes(edgeq_graph*, const char*, const edgeq_value*, size_t,
                                            const char*, edgeq_value*) {
  return NotInThisBuild("edgeq_graph_op_with_attributes");
}
edgeq_status edgeq_graph_op(edgeq_graph*, const char*, const edgeq_value*, size_t, edgeq_value*) {
  return NotInThisBuild("edgeq_graph_op");
}
size_t edgeq_op_count(void) { return 0; }
edgeq_status edgeq_op_get(size_t, edgeq_op_info*) { return NotInThisBuild("edgeq_op_get"); }
edgeq_status edgeq_graph_output(edgeq_graph*, edgeq_value) {
  return NotInThisBuild("edgeq_graph_output");
}
edgeq_status edgeq_graph_value_type(const edgeq_graph*, edgeq_value, edgeq_tensor_type*,
                                    const char**) {
  return NotInThisBuild("edgeq_graph_value_type");
}
edgeq_status edgeq_graph_to_string(const edgeq_graph*, char*, size_t, size_t* length) {
  if (length != nullptr) *length = 0;
  return NotInThisBuild("edgeq_graph_to_string");
}
edgeq_status edgeq_session_create(int32_t, edgeq_session** out) {
  if (out != nullptr) *out = nullptr;
  return NotInThisBuild("edgeq_session_create");
}
void edgeq_session_free(edgeq_session* session) { delete session; }
edgeq_status edgeq_session_load(edgeq_session*, const edgeq_graph*, edgeq_model** out) {
  if (out != nullptr) *out = nullptr;
  return NotInThisBuild("edgeq_session_load");
}
void edgeq_model_free(edgeq_model* model) { delete model; }
size_t edgeq_model_input_count(const edgeq_model*) { return 0; }
size_t edgeq_model_output_count(const edgeq_model*) { return 0; }
edgeq_status edgeq_model_input_type(const edgeq_model*, size_t, edgeq_tensor_type*) {
  return NotInThisBuild("edgeq_model_input_type");
}
edgeq_status edgeq_model_output_type(const edgeq_model*, size_t, edgeq_tensor_type*) {
  return NotInThisBuild("edgeq_model_output_type");
}
edgeq_status edgeq_model_execute(edgeq_model*, const void* const*, size_t, void* const*, size_t) {
  return NotInThisBuild("edgeq_model_execute");
}

}  // extern "C"
