// The TinyStories quality table: for stories260K quantized with each rule set, the size of its
// weights, the teacher-forced perplexity of a fixed text (tests/testdata/tinystories/
// perplexity.txt) and how many of f32's 255 greedy tokens after "Once upon a time" it reproduces
// (the first position where it differs, and the positions that agree overall). Deterministic.
//
//   bazel run //benchmarks:tinystories_quality [-- MODEL.bin TOKENIZER.bin TEXT.txt]
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/formats.h"
#include "checkpoint/quantize_rules.h"
#include "core/status_macros.h"
#include "examples/tinystories/generate.h"
#include "examples/tinystories/sampler.h"
#include "llm/model.h"
#include "tests/util/reference_data.h"
#include "tokenizer/llama2c.h"

namespace edgeq {
namespace {

struct Row {
  std::string label;
  std::string rules;  // rules text
};

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::ifstream f(path);
  if (!f) return absl::NotFoundError(absl::StrFormat("cannot read '%s'", path));
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string Runfile(const std::string& relative) {
  const char* dir = std::getenv("RUNFILES_DIR");
  if (dir != nullptr) return std::string(dir) + "/edgeq/" + relative;
  return relative;
}

absl::Status Run(int argc, char** argv) {
  EDGEQ_ASSIGN_OR_RETURN(const std::string model_path,
                         argc > 1 ? absl::StatusOr<std::string>(argv[1])
                                  : testing::ReferenceDataPath("models/stories260K.bin"));
  EDGEQ_ASSIGN_OR_RETURN(const std::string tok_path,
                         argc > 2 ? absl::StatusOr<std::string>(argv[2])
                                  : testing::ReferenceDataPath("models/tok512.bin"));
  const std::string text_path =
      argc > 3 ? argv[3] : Runfile("tests/testdata/tinystories/perplexity.txt");
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint model,
                         checkpoint::OpenCheckpoint(model_path));
  EDGEQ_ASSIGN_OR_RETURN(llm::ModelConfig config, llm::ModelConfig::FromMetadata(model.dict));
  EDGEQ_ASSIGN_OR_RETURN(tokenizer::Llama2cTokenizer tok,
                         tokenizer::Llama2cTokenizer::Load(tok_path, config.vocab_size));
  EDGEQ_ASSIGN_OR_RETURN(std::string text, ReadText(text_path));
  EDGEQ_ASSIGN_OR_RETURN(std::string mixed,
                         ReadText(Runfile("examples/tinystories/mixed_rules.txt")));
  const std::vector<Row> rows = {
      {"f32", "* -> f32"},
      {"f16", "* -> f16"},
      {"bf16", "* -> bf16"},
      {"q8_0", "* -> q8_0"},
      {"q6_k*", "* -> q6_k"},
      {"q5_1", "* -> q5_1"},
      {"q5_0", "* -> q5_0"},
      {"q4_1", "* -> q4_1"},
      {"iq4_nl", "* -> iq4_nl"},
      {"q4_k*", "* -> q4_k"},
      {"iq4_xs*", "* -> iq4_xs"},
      {"q3_k*", "* -> q3_k"},
      {"q2_k*", "* -> q2_k"},
      {"q4_0 (default rules)", "* -> q4_0"},
      {"mixed (mixed_rules.txt)", mixed},
  };
  std::vector<int> f32_tokens;
  absl::PrintF(
      "| weights | encodings used | weight bytes | perplexity | greedy tokens = f32 "
      "(first difference at) |\n|---|---|---|---|---|\n");
  for (const Row& row : rows) {
    EDGEQ_ASSIGN_OR_RETURN(std::vector<checkpoint::QuantizeRule> rules,
                           checkpoint::ParseQuantizeRules(row.rules, row.label));
    std::vector<checkpoint::QuantizeDecision> decisions;
    EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict dict,
                           checkpoint::QuantizeDict(model.dict, rules, &decisions));
    std::map<std::string, int> used;
    for (const checkpoint::QuantizeDecision& d : decisions) ++used[d.chosen];
    std::string encodings;
    for (const auto& [name, count] : used) {
      absl::StrAppendFormat(&encodings, "%s%s x%d", encodings.empty() ? "" : ", ", name, count);
    }
    EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<llm::Model> m, llm::Model::Load(dict));
    EDGEQ_ASSIGN_OR_RETURN(double ppl, tinystories::Perplexity(*m, tok, text));
    EDGEQ_ASSIGN_OR_RETURN(tinystories::Sampler sampler,
                           tinystories::Sampler::Create(config.vocab_size, {0.0f, 0.9f, 1}));
    EDGEQ_ASSIGN_OR_RETURN(tinystories::GenerateResult r,
                           tinystories::Generate(*m, tok, sampler, "Once upon a time", 256));
    if (f32_tokens.empty()) f32_tokens = r.tokens;
    const size_t n = std::min(r.tokens.size(), f32_tokens.size());
    size_t same = 0, first_diff = n;
    for (size_t i = 0; i < n; ++i) {
      if (r.tokens[i] == f32_tokens[i]) {
        ++same;
      } else if (first_diff == n) {
        first_diff = i;
      }
    }
    absl::PrintF("| %s | %s | %d | %.4f | %d of %d (%s) |\n", row.label, encodings,
                 dict.TotalBytes(), ppl, same, f32_tokens.size(),
                 first_diff == n ? "none" : absl::StrCat("position ", first_diff));
  }
  absl::PrintF(
      "\n* stories260K's matrices have rows of 64 (and 172) values: no K-quant super-block (256) "
      "fits, so these rules fall back to q8_0 (or bf16 for k = 172), as the pipeline says.\n");
  return absl::OkStatus();
}

}  // namespace
}  // namespace edgeq

int main(int argc, char** argv) {
  absl::Status s = edgeq::Run(argc, argv);
  if (!s.ok()) {
    absl::FPrintF(stderr, "error: %s\n", s.message());
    return 1;
  }
  return 0;
}
