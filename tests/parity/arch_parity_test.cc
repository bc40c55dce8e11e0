// llama.cpp parity for the architectures beyond llama (issue 16): qwen2, qwen3, gemma3, phi3.
// Each case regenerates in memory the random-weight GGUF llama.cpp was run on (llm::RandomModel
// with a preset of the real shape, the overrides below and a made-up SentencePiece vocabulary;
// make_random_gguf --shape=S ... --synthetic_vocab writes the same bytes), checks its XXH3-64,
// loads it and compares the logits at the recorded positions and the 32 greedy tokens with
// llama.cpp's (tests/parity/README.md, "Architectures").
//
// "tiny_*": the architecture's structure at small width (runs under qemu too); "rand_*": the real
// width of the model at reduced depth (host only, 0.2-1.3 GB).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/gguf.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "tests/parity/parity_util.h"
#include "xxhash.h"

namespace edgeq {
namespace parity {
namespace {

struct ArchCase {
  const char* name;   // testdata folder
  const char* shape;  // make_random_gguf --shape
  // Overrides (0: the shape's; head_dim and window -1: the shape's).
  int layers, dim, heads, kv_heads, head_dim, ffn, window;
  int vocab;       // --vocab_size with --synthetic_vocab
  uint64_t xxh3;   // of the file llama.cpp read
  bool host_only;  // too big for qemu
};

constexpr double kMaxRelativeLogitDifference = 1e-4;

void CheckArch(const ArchCase& c) {
#if defined(__aarch64__)
  if (c.host_only) GTEST_SKIP() << c.name << " is too big for qemu-aarch64; host only";
#endif
  absl::StatusOr<Reference> ref =
      ReadReference(absl::StrCat("tests/parity/testdata/", c.name, "/logits_f32"));
  ASSERT_TRUE(ref.ok()) << ref.status();
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<llm::RandomModelSpec> spec = llm::RandomModelPreset(c.shape);
  ASSERT_TRUE(spec.ok()) << spec.status();
  auto over = [](int v, int* field) {
    if (v > 0) *field = v;
  };
  over(c.layers, &spec->layers);
  over(c.dim, &spec->dim);
  over(c.heads, &spec->heads);
  over(c.kv_heads, &spec->kv_heads);
  over(c.ffn, &spec->ffn);
  over(c.vocab, &spec->vocab);
  if (c.head_dim >= 0) spec->head_dim = c.head_dim;
  if (c.window >= 0) spec->sliding_window = c.window;
  absl::StatusOr<checkpoint::TensorDict> vocab = llm::SyntheticSpmVocabulary(spec->vocab);
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  std::shared_ptr<std::string> bytes;
  {
    absl::StatusOr<checkpoint::TensorDict> dict = llm::RandomModel(*spec, &*vocab);
    ASSERT_TRUE(dict.ok()) << dict.status();
    absl::StatusOr<std::string> s = checkpoint::WriteGgufToString(*dict);
    ASSERT_TRUE(s.ok()) << s.status();
    bytes = std::make_shared<std::string>(*std::move(s));
  }
  const uint64_t hash = XXH3_64bits(bytes->data(), bytes->size());
  EXPECT_EQ(hash, c.xxh3) << absl::StrFormat(
      "%s: the generator no longer writes the file llama.cpp was run on (XXH3-64 %016x, "
      "expected %016x): the reference data must be remade (tests/parity/README.md)",
      c.name, hash, c.xxh3);
  const double t_generate =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  t0 = std::chrono::steady_clock::now();
  std::unique_ptr<llm::Model> model;
  {
    absl::StatusOr<checkpoint::TensorDict> dict = checkpoint::ReadGgufFromBuffer(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()), bytes);
    ASSERT_TRUE(dict.ok()) << dict.status();
    bytes.reset();
    llm::ModelOptions options;
    options.num_threads = 1;
    options.context_length = 128;  // >= refdump's n_ctx (117)
    absl::StatusOr<std::unique_ptr<llm::Model>> loaded = llm::Model::Load(*dict, options);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    model = *std::move(loaded);
  }
  ASSERT_EQ(model->config().architecture, spec->architecture);
  absl::StatusOr<Result> r = RunReference(*model, *ref, 32);
  ASSERT_TRUE(r.ok()) << r.status();
  const double t_run = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LE(r->max_relative_difference, kMaxRelativeLogitDifference);
  EXPECT_EQ(r->greedy, ref->greedy);
  std::printf(
      "%s (%s): max |edgeq - llama.cpp| / max |llama.cpp| = %.3g over %zu positions; generate "
      "%.2f s, load + %zu prompt tokens + 32 greedy %.2f s\n",
      c.name, model->config().ToString().c_str(), r->max_relative_difference, ref->positions.size(),
      t_generate, ref->tokens.size(), t_run);
  ::testing::Test::RecordProperty("max_relative_logit_difference",
                                  absl::StrFormat("%.3g", r->max_relative_difference));
}

// make_random_gguf --shape=qwen2.5-0.5b --layers=2 --dim=64 --heads=4 --kv_heads=2 --ffn=96
//   --vocab_size=512 --synthetic_vocab
TEST(ArchParity, TinyQwen2) {
  CheckArch(
      {"tiny_qwen2", "qwen2.5-0.5b", 2, 64, 4, 2, -1, 96, -1, 512, 0xcf4093bc3953d67bull, false});
}

// --shape=qwen3-0.6b --layers=2 --dim=64 --heads=4 --kv_heads=2 --head_dim=32 --ffn=96
//   --vocab_size=512 --synthetic_vocab
TEST(ArchParity, TinyQwen3) {
  CheckArch(
      {"tiny_qwen3", "qwen3-0.6b", 2, 64, 4, 2, 32, 96, -1, 512, 0xcb68743600318e95ull, false});
}

// --shape=gemma3-270m --layers=7 --dim=64 --heads=4 --kv_heads=1 --head_dim=32 --ffn=128
//   --sliding_window=6 --vocab_size=512 --synthetic_vocab (layers 0-4 and 6 slide over 6
// positions, layer 5 is global).
TEST(ArchParity, TinyGemma3) {
  CheckArch(
      {"tiny_gemma3", "gemma3-270m", 7, 64, 4, 1, 32, 128, 6, 512, 0x52291f755de19c35ull, false});
}

// --shape=phi3.5-mini --layers=2 --dim=96 --heads=4 --kv_heads=4 --ffn=128 --vocab_size=512
//   --synthetic_vocab
TEST(ArchParity, TinyPhi3) {
  CheckArch(
      {"tiny_phi3", "phi3.5-mini", 2, 96, 4, 4, -1, 128, -1, 512, 0xe5d8be1ce387a0deull, false});
}

}  // namespace
}  // namespace parity
}  // namespace edgeq
