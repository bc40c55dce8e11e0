// libFuzzer target past the parsers: loads a .max (or, if the input starts with "GGUF", a GGUF)
// from the input, then for every quantized tensor of logical shape [n, k] builds, loads and
// executes a graph with a qmatmul (m = 1 and m = 3, so both the GEMV and the GEMM kernels run)
// and a Gather of its first and last rows. Whatever the readers accept must satisfy
// CheckQuantizedTensor, load and run without reading outside the tensor's bytes (ASan).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "checkpoint/gguf.h"
#include "checkpoint/max_format.h"
#include "checkpoint/stored_layouts.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "quantization/encoding.h"
#include "runtime/session.h"
#include "tests/fuzz/fuzz_util.h"
#include "xxhash.h"

namespace {

using namespace edgeq;  // NOLINT: a fuzz target

[[noreturn]] void Finding(const std::string& what, const absl::Status& s) {
  std::fprintf(stderr, "model_fuzzer: %s: %s\n", what.c_str(), s.ToString().c_str());
  std::abort();
}

void RunQuantized(InferenceSession& session, const std::string& name, const Tensor& w) {
  if (absl::Status s = CheckQuantizedTensor(name, w); !s.ok()) {
    Finding("a reader accepted a tensor that breaks the invariant", s);
  }
  const Shape& logical = w.logical_shape();
  if (logical.rank() != 2) return;  // qmatmul and Gather take [n, k] / [v, d]
  const int64_t n = logical.dim(0), k = logical.dim(1);
  absl::StatusOr<const QuantizationEncoding*> enc = FindEncoding(w.encoding());
  if (!enc.ok()) Finding("registered encoding not found", enc.status());

  Graph graph("fuzz", {TensorType(DType::kFloat32, {1, k}), TensorType(DType::kFloat32, {3, k})});
  Value wv = graph.Constant(w);
  absl::StatusOr<Tensor> ids = Tensor::FromValues<int32_t>(
      Shape{2}, {0, static_cast<int32_t>(std::min<int64_t>(n - 1, INT32_MAX))});
  if (!ids.ok()) Finding("ids", ids.status());
  graph.Output(ops::QMatmul(**enc, graph.Input(0), wv));
  graph.Output(ops::QMatmul(**enc, graph.Input(1), wv));
  graph.Output(ops::Gather(wv, graph.Constant(*ids)));
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  if (!model.ok()) {
    // A weight stored in a kernel layout (`edgeq convert --repack`) that this CPU or edgeq cannot
    // run is refused at Load with its one line: not a finding.
    if (checkpoint::FindStoredLayout(w.bytes().data()).has_value()) return;
    Finding("Load of a valid quantized tensor '" + name + "'", model.status());
  }

  std::vector<float> x(static_cast<size_t>(4 * k));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;
  absl::StatusOr<Tensor> x1 =
      Tensor::FromValues<float>(Shape{1, k}, absl::MakeConstSpan(x.data(), k));
  absl::StatusOr<Tensor> x3 =
      Tensor::FromValues<float>(Shape{3, k}, absl::MakeConstSpan(x.data() + k, 3 * k));
  if (!x1.ok() || !x3.ok()) Finding("inputs", x1.ok() ? x3.status() : x1.status());
  absl::StatusOr<TensorMap> out = model->Execute({{"input0", *x1}, {"input1", *x3}});
  if (!out.ok()) Finding("Execute over '" + name + "'", out.status());
  // Read every output value (NaN from fuzzed scales is fine; reading is what matters).
  float sum = 0;
  for (const auto& [out_name, t] : out->entries()) {
    const float* p = static_cast<const float*>(t.raw_data());
    for (int64_t i = 0; i < t.num_elements(); ++i) sum += p[i];
  }
  volatile float sink = sum;
  (void)sink;
}

// A .max carries an XXH3 checksum of its header and tensor table (bytes [56, 64)), so almost
// every mutation of the table would stop at the checksum. For odd-sized inputs the checksum is
// recomputed, so that mutated tables reach the tensor checks and the kernels.
void FixMaxChecksum(uint8_t* p, size_t size) {
  if (size < 64 || size % 2 == 0) return;
  uint64_t table_size;
  std::memcpy(&table_size, p + 32, 8);
  if (table_size > size - 64) return;
  XXH3_state_t s;
  XXH3_64bits_reset(&s);
  XXH3_64bits_update(&s, p, 56);
  XXH3_64bits_update(&s, p + 64, static_cast<size_t>(table_size));
  const uint64_t sum = XXH3_64bits_digest(&s);
  std::memcpy(p + 56, &sum, 8);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::AlignedCopy in(data, size);
  absl::StatusOr<checkpoint::TensorDict> d;
  if (size >= 4 && std::memcmp(data, "GGUF", 4) == 0) {
    d = checkpoint::ReadGgufFromBuffer(in.span, in.owner);
  } else {
    FixMaxChecksum(const_cast<uint8_t*>(in.span.data()), size);
    d = checkpoint::LoadFromBuffer(in.span, in.owner, {});
  }
  if (!d.ok()) return 0;
  static InferenceSession* session = [] {
    SessionOptions options;
    options.num_threads = 1;
    return new InferenceSession(options);
  }();
  for (const std::string& k : d->Keys()) {
    const Tensor& t = **d->Get(k);
    if (t.is_quantized()) RunQuantized(*session, k, t);
  }
  return 0;
}
