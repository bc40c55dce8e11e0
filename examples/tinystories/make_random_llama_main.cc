// Writes a llama2.c checkpoint with seeded random weights, by default of stories15M's shape
// (dim 288, hidden 768, 6 layers, 6 heads, vocab 32000, seq 256): a stand-in for scale and speed
// measurements where the real 15M model cannot be downloaded. Weights ~ U(-a, a) with
// a = 1/sqrt(fan_in); norms are 1.
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "examples/tinystories/llama.h"

ABSL_FLAG(std::string, out, "stories15M_random.bin", "output llama2.c .bin");
ABSL_FLAG(int, dim, 288, "model width");
ABSL_FLAG(int, hidden_dim, 768, "feed-forward width");
ABSL_FLAG(int, n_layers, 6, "layers");
ABSL_FLAG(int, n_heads, 6, "heads");
ABSL_FLAG(int, n_kv_heads, 6, "kv heads");
ABSL_FLAG(int, vocab_size, 32000, "vocabulary");
ABSL_FLAG(int, seq_len, 256, "context");
ABSL_FLAG(uint64_t, seed, 15, "random seed");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  using namespace edgeq::tinystories;
  LlamaWeights w;
  LlamaConfig& c = w.config;
  c.dim = absl::GetFlag(FLAGS_dim);
  c.hidden_dim = absl::GetFlag(FLAGS_hidden_dim);
  c.n_layers = absl::GetFlag(FLAGS_n_layers);
  c.n_heads = absl::GetFlag(FLAGS_n_heads);
  c.n_kv_heads = absl::GetFlag(FLAGS_n_kv_heads);
  c.vocab_size = absl::GetFlag(FLAGS_vocab_size);
  c.seq_len = absl::GetFlag(FLAGS_seq_len);
  c.shared_classifier = true;
  absl::Status valid = c.Validate();
  if (!valid.ok()) {
    absl::FPrintF(stderr, "error: %s\n", valid.ToString());
    return 1;
  }
  uint64_t state = absl::GetFlag(FLAGS_seed) * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&state]() {  // xorshift64*, uniform in [-1, 1)
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return static_cast<float>((state * 0x2545F4914F6CDD1Dull) >> 40) / 8388608.0f - 1.0f;
  };
  for (const auto& [name, shape] : LlamaWeightShapes(c)) {
    absl::StatusOr<edgeq::Tensor> t = edgeq::Tensor::Create(edgeq::DType::kFloat32, shape);
    if (!t.ok()) return 1;
    absl::Span<float> v = *t->MutableValues<float>();
    const float a = shape.rank() == 1 ? 0.0f : 1.0f / std::sqrt(static_cast<float>(shape.dim(-1)));
    for (float& x : v) x = shape.rank() == 1 ? 1.0f : a * next();
    w.tensors[name] = *std::move(t);
  }
  absl::Status s = SaveLlama2cBin(w, absl::GetFlag(FLAGS_out));
  if (!s.ok()) {
    absl::FPrintF(stderr, "error: %s\n", s.ToString());
    return 1;
  }
  absl::FPrintF(stderr, "wrote %s (%s, %.1f MB f32)\n", absl::GetFlag(FLAGS_out), c.ToString(),
                w.SizeBytes() / 1e6);
  return 0;
}
