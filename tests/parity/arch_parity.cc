#include "tests/parity/arch_parity.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/gguf.h"
#include "checkpoint/quantize_rules.h"
#include "checkpoint/tensor_dict.h"
#include "core/status_macros.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "tests/parity/parity_util.h"
#include "tests/parity/random_parity.h"
#include "xxhash.h"

namespace edgeq {
namespace parity {

// The case's f32 model as RandomModel makes it.
absl::StatusOr<checkpoint::TensorDict> MakeModel(const ArchCase& c,
                                                 llm::RandomModelSpec* spec_out) {
  absl::StatusOr<llm::RandomModelSpec> spec = llm::RandomModelPreset(c.shape);
  if (!spec.ok()) return spec.status();
  auto over = [](int v, int* field) {
    if (v > 0) *field = v;
  };
  over(c.layers, &spec->layers);
  over(c.dim, &spec->dim);
  over(c.heads, &spec->heads);
  over(c.kv_heads, &spec->kv_heads);
  over(c.ffn, &spec->ffn);
  over(c.vocab, &spec->vocab);
  over(c.experts, &spec->expert_count);
  if (c.head_dim >= 0) spec->head_dim = c.head_dim;
  if (c.window >= 0) spec->sliding_window = c.window;
  if (c.shared_kv_layers >= 0) spec->shared_kv_layers = c.shared_kv_layers;
  absl::StatusOr<checkpoint::TensorDict> vocab = llm::SyntheticSpmVocabulary(spec->vocab);
  if (!vocab.ok()) return vocab.status();
  *spec_out = *spec;
  return llm::RandomModel(*spec, &*vocab);
}

void CheckArch(const ArchCase& c) {
#if defined(__aarch64__)
  if (c.host_only) GTEST_SKIP() << c.name << " is too big for qemu-aarch64; host only";
#endif
  absl::StatusOr<Reference> ref =
      ReadReference(absl::StrCat("tests/parity/testdata/", c.name, "/", c.stem));
  ASSERT_TRUE(ref.ok()) << ref.status();
  auto t0 = std::chrono::steady_clock::now();
  llm::RandomModelSpec spec;
  std::shared_ptr<std::string> bytes;
  {
    absl::StatusOr<checkpoint::TensorDict> dict = MakeModel(c, &spec);
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
    llm::ModelOptions options = ParityOptions(c.context_length);
    options.gelu_fp16_table = !c.exact_gelu;
    absl::StatusOr<std::unique_ptr<llm::Model>> loaded = llm::Model::Load(*dict, options);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    model = *std::move(loaded);
  }
  ASSERT_EQ(model->config().architecture, spec.architecture);
  absl::StatusOr<Result> r = RunReference(*model, *ref, 32);
  ASSERT_TRUE(r.ok()) << r.status();
  const double t_run = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LE(r->max_relative_difference, c.max_logit_difference);
  size_t chunks = 0;
  const double ppl_rel =
      c.ppl.empty()
          ? -1
          : CheckPerplexity(*model, absl::StrCat("tests/parity/testdata/", c.ppl_ids),
                            /*add_bos=*/true, c.ppl, kMaxRelativePerplexityDifference, &chunks);
  std::printf(
      "%s (%s): max |edgeq - llama.cpp| / max |llama.cpp| = %.3g over %zu positions; perplexity "
      "rel. diff %.3g over %zu chunks; generate %.2f s, load + %zu prompt tokens + 32 greedy "
      "%.2f s\n",
      c.name, model->config().ToString().c_str(), r->max_relative_difference, ref->positions.size(),
      ppl_rel, chunks, t_generate, ref->tokens.size(), t_run);
  ::testing::Test::RecordProperty("max_relative_logit_difference",
                                  absl::StrFormat("%.3g", r->max_relative_difference));
}

absl::StatusOr<std::string> ReadQuantizeRules(const ArchCase& c, const char* type) {
  const std::string path = absl::StrCat("tests/parity/testdata/", c.name, "/rules_", type, ".txt");
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<checkpoint::TensorDict> QuantizeAsLlamaQuantize(const ArchCase& c, const char* type,
                                                               const std::string& rules_text,
                                                               uint64_t tensor_xxh3) {
  llm::RandomModelSpec spec;
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict f32, MakeModel(c, &spec));
  EDGEQ_ASSIGN_OR_RETURN(std::vector<checkpoint::QuantizeRule> rules,
                         checkpoint::ParseQuantizeRules(rules_text, type));
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict dict, checkpoint::QuantizeDict(f32, rules));
  const uint64_t hash = TensorDataXxh3(dict);
  EXPECT_EQ(hash, tensor_xxh3) << absl::StrFormat(
      "%s %s: edgeq's tensors (XXH3-64 %016x) differ from llama-quantize's (%016x)", c.name, type,
      hash, tensor_xxh3);
  return dict;
}

}  // namespace parity
}  // namespace edgeq
