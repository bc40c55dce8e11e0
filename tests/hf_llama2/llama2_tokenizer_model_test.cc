// End to end: a Hugging Face-layout Llama-2 directory whose only vocabulary file is
// tokenizer.model (SentencePiece; no tokenizer.json) converts (convert::ImportHfCheckpoint, what
// `edgeq convert DIR OUT.gguf` runs, then a GGUF file) into the vocabulary llama.cpp's
// convert_hf_to_gguf.py writes for the same directory: the same tokens, scores, token types,
// special ids and flags (reference values and how they were made: testdata/llama_cpp_vocab.json).
//
// The tokenizer.model is Llama 2's vocabulary (the pieces, scores and types of llama.cpp's
// ggml-vocab-llama-spm.gguf, ../shared/vocab) written as a ModelProto here; its XXH3 is checked
// so that the reference applies to exactly this file. The directory is left in the test's
// undeclared outputs (bazel-testlogs/tests/hf_llama2/.../test.outputs) to remake the reference.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "checkpoint/formats.h"
#include "checkpoint/gguf.h"
#include "checkpoint/tensor_dict.h"
#include "convert/hf_import.h"
#include "convert/hf_testing.h"
#include "gtest/gtest.h"
#include "llm/random_model.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"
#include "tokenizer/sentencepiece_testing.h"
#include "tokenizer/tokenizer.h"
#include "xxhash.h"

namespace edgeq {
namespace {

using checkpoint::TensorDict;
using json = nlohmann::ordered_json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string Hex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// XXH3-64 of the tokens as (uint32 little-endian length, bytes) pairs, of the scores as float32
// and of the types as int32, little-endian (as testdata/llama_cpp_vocab.json's facts say).
std::string HashTokens(const std::vector<std::string>& tokens) {
  std::string b;
  for (const std::string& t : tokens) {
    const uint32_t n = static_cast<uint32_t>(t.size());
    b.append(reinterpret_cast<const char*>(&n), 4);
    b += t;
  }
  return Hex(XXH3_64bits(b.data(), b.size()));
}
std::string HashScores(const std::vector<double>& scores) {
  std::vector<float> f(scores.begin(), scores.end());
  return Hex(XXH3_64bits(f.data(), f.size() * sizeof(float)));
}
std::string HashTypes(const std::vector<int64_t>& types) {
  std::vector<int32_t> t(types.begin(), types.end());
  return Hex(XXH3_64bits(t.data(), t.size() * sizeof(int32_t)));
}

// Llama 2's tokenizer_config.json, as transformers writes it (the keys the converters read).
constexpr char kTokenizerConfig[] = R"({
  "add_bos_token": true,
  "add_eos_token": false,
  "added_tokens_decoder": {
    "0": {"content": "<unk>", "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true},
    "1": {"content": "<s>", "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true},
    "2": {"content": "</s>", "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true}
  },
  "bos_token": "<s>",
  "clean_up_tokenization_spaces": false,
  "eos_token": "</s>",
  "legacy": false,
  "model_max_length": 1000000000000000019884624838656,
  "pad_token": null,
  "sp_model_kwargs": {},
  "tokenizer_class": "LlamaTokenizer",
  "unk_token": "<unk>",
  "use_default_system_prompt": false
}
)";

TEST(HfLlama2, TokenizerModelOnlyConvertsToLlamaCppsVocabulary) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(vocab, "vocab/ggml-vocab-llama-spm.gguf");
  const json ref = json::parse(ReadFile("tests/hf_llama2/testdata/llama_cpp_vocab.json"), nullptr,
                               /*allow_exceptions=*/false);
  ASSERT_TRUE(ref.is_object()) << "tests/hf_llama2/testdata/llama_cpp_vocab.json";

  // Llama 2's vocabulary as a tokenizer.model.
  absl::StatusOr<tokenizer::Tokenizer> spm = tokenizer::Tokenizer::FromGgufFile(vocab);
  ASSERT_TRUE(spm.ok()) << spm.status();
  TensorDict v;
  ASSERT_TRUE(spm->ToGgufMetadata(&v).ok());
  const std::string model_proto = tokenizer::SentencePieceModelProto(
      (*v.GetMetadata("tokenizer.ggml.tokens"))->strings(),
      (*v.GetMetadata("tokenizer.ggml.scores"))->floats(),
      (*v.GetMetadata("tokenizer.ggml.token_type"))->ints(), tokenizer::SentencePieceSpec());
  EXPECT_EQ(Hex(XXH3_64bits(model_proto.data(), model_proto.size())),
            ref["input"]["tokenizer.model_xxh3"].get<std::string>())
      << "the tokenizer.model differs from the one the reference was made from";

  // A Llama-2-shaped (tiny) checkpoint directory: config.json, model.safetensors,
  // tokenizer.model, tokenizer_config.json; no tokenizer.json.
  llm::RandomModelSpec spec;
  spec.name = "hf-llama2-spm";
  spec.architecture = "llama";
  spec.dim = 32, spec.layers = 1, spec.heads = 4, spec.kv_heads = 4, spec.ffn = 32;
  spec.vocab = 32000, spec.context = 64, spec.tied = false, spec.seed = 3;
  absl::StatusOr<TensorDict> weights = llm::RandomModel(spec);
  ASSERT_TRUE(weights.ok()) << weights.status();
  const std::string dir = ::testing::TempDir() + "/llama2_spm";
  ASSERT_TRUE(convert::WriteHfCheckpointDir(spec, *weights, dir, 1).ok());
  json config = json::parse(ReadFile(dir + "/config.json"));
  config["bos_token_id"] = 1, config["eos_token_id"] = 2;  // as Llama 2's config.json
  WriteFile(dir + "/config.json", config.dump(2));
  WriteFile(dir + "/tokenizer.model", model_proto);
  WriteFile(dir + "/tokenizer_config.json", kTokenizerConfig);
  if (const char* out = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR")) {
    for (const char* f : {"config.json", "tokenizer.model", "tokenizer_config.json"}) {
      WriteFile(absl::StrCat(out, "/", f), ReadFile(dir + "/" + f));
    }
  }

  absl::StatusOr<TensorDict> converted = convert::ImportHfCheckpoint(dir);
  ASSERT_TRUE(converted.ok()) << converted.status();
  const std::string path = dir + "/converted.gguf";
  ASSERT_TRUE(checkpoint::WriteGguf(*converted, path).ok());
  absl::StatusOr<checkpoint::OpenedCheckpoint> file = checkpoint::OpenCheckpoint(path);
  ASSERT_TRUE(file.ok()) << file.status();
  const TensorDict& d = file->dict;

  const json& want = ref["llama_cpp"];
  EXPECT_EQ(*d.GetString("tokenizer.ggml.model"), want["tokenizer.ggml.model"]);
  const std::vector<std::string> tokens = (*d.GetMetadata("tokenizer.ggml.tokens"))->strings();
  ASSERT_EQ(tokens.size(), want["n_tokens"].get<size_t>());
  EXPECT_EQ(HashTokens(tokens), want["tokens_xxh3"]);
  EXPECT_EQ(HashScores((*d.GetMetadata("tokenizer.ggml.scores"))->floats()), want["scores_xxh3"]);
  EXPECT_EQ(HashTypes((*d.GetMetadata("tokenizer.ggml.token_type"))->ints()),
            want["token_type_xxh3"]);
  for (const char* key : {"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"}) {
    absl::StatusOr<int64_t> id = d.GetInt(key);
    ASSERT_TRUE(id.ok()) << key << ": " << id.status();
    EXPECT_EQ(*id, want[key].get<int64_t>()) << key;
  }
  // llama.cpp's converter writes no unknown id here (config.json has no unk_token_id); its loader
  // then takes 0 for a llama vocabulary, which is what edgeq writes.
  EXPECT_FALSE(want.contains("tokenizer.ggml.unknown_token_id"));
  if (d.HasMetadata("tokenizer.ggml.unknown_token_id")) {
    EXPECT_EQ(*d.GetInt("tokenizer.ggml.unknown_token_id"), 0);
  }
  // "default" is llama.cpp's name for no pre-tokenizer (edgeq reads a missing key the same way).
  EXPECT_EQ(want["tokenizer.ggml.pre"], "default");
  if (d.HasMetadata("tokenizer.ggml.pre")) {
    EXPECT_EQ(*d.GetString("tokenizer.ggml.pre"), "default");
  }
  for (const char* key : {"tokenizer.ggml.add_bos_token", "tokenizer.ggml.add_eos_token"}) {
    absl::StatusOr<bool> b = d.GetBool(key);
    ASSERT_TRUE(b.ok()) << key << ": " << b.status();
    EXPECT_EQ(*b, want[key].get<bool>()) << key;
  }
  // Spot values of the reference (Llama 2's ids).
  EXPECT_EQ(tokens[0], "<unk>");
  EXPECT_EQ(tokens[13], "<0x0A>");
  EXPECT_EQ(tokens[29871], "\xe2\x96\x81");
}

}  // namespace
}  // namespace edgeq
