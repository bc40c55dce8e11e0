// Greedy generation under a grammar equals llama.cpp's on the real stories260K GGUF (../shared,
// through @edgeq_refdata): llama.cpp's example grammars (../shared/grammars) and two JSON schemas
// converted by edgeq's grammar::JsonSchemaToGbnf; llama.cpp's side ran the same GBNF text through
// llama_sampler_init_grammar + greedy (testdata/grammar_greedy, how made in README.md). The
// prompt ids are checked too, so that a tokenizer difference is not mistaken for a grammar one.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/bounded_input.h"
#include "grammar/gbnf.h"
#include "grammar/json_schema.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/sampler.h"
#include "llm/session.h"
#include "tests/parity/parity_util.h"
#include "tests/util/reference_data.h"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace parity {
namespace {

constexpr int kMaxTokens = 48;  // gdump's -n

struct Case {
  const char* name;
  const char* grammar;  // a file in ../shared/grammars, or schema_*.json in testdata
  const char* prompt;
};

const Case kCases[] = {
    {"list", "list.gbnf", "Once upon a time"},
    {"english", "english.gbnf", "Once upon a time"},
    {"arithmetic", "arithmetic.gbnf", "Once upon a time"},
    {"json", "json.gbnf", "Once upon a time"},
    {"json_arr", "json_arr.gbnf", "Lily wanted"},
    {"chess", "chess.gbnf", "Once upon a time"},
    {"japanese", "japanese.gbnf", "Once upon a time"},
    {"c", "c.gbnf", "Once upon a time"},
    {"schema_person", "schema_person.json", "Lily wanted"},
    {"schema_pets", "schema_pets.json", "Once upon a time"},
};

constexpr char kTestdata[] = "tests/parity/testdata/grammar_greedy/";

// The ids after `label` on its line of a gdump output ("prompt: 1 403 ...").
std::vector<int> IdsAfter(const std::string& text, const std::string& label) {
  std::vector<int> ids;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::ConsumePrefix(&line, label)) continue;
    for (absl::string_view w : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      int v = 0;
      EXPECT_TRUE(absl::SimpleAtoi(w, &v)) << w;
      ids.push_back(v);
    }
  }
  return ids;
}

class GrammarParity : public ::testing::TestWithParam<Case> {};

TEST_P(GrammarParity, GreedyEqualsLlamaCpp) {
  const Case& c = GetParam();
  EDGEQ_REFERENCE_DATA_OR_SKIP(model_path, "models/stories260K.gguf");
  std::string gbnf;
  if (absl::EndsWith(c.grammar, ".json")) {
    absl::StatusOr<std::string> schema =
        ReadFileBounded(absl::StrCat(kTestdata, c.grammar), 1 << 16, "schema");
    ASSERT_TRUE(schema.ok()) << schema.status();
    absl::StatusOr<std::string> g = grammar::JsonSchemaToGbnf(*schema);
    ASSERT_TRUE(g.ok()) << g.status();
    gbnf = *g;
  } else {
    EDGEQ_REFERENCE_DATA_OR_SKIP(path, absl::StrCat("grammars/", c.grammar));
    absl::StatusOr<std::string> g = ReadFileBounded(path, 1 << 20, "grammar");
    ASSERT_TRUE(g.ok()) << g.status();
    gbnf = *g;
  }
  absl::StatusOr<std::string> golden =
      ReadFileBounded(absl::StrCat(kTestdata, c.name, ".txt"), 1 << 16, "golden");
  ASSERT_TRUE(golden.ok()) << golden.status();
  const std::vector<int> want_prompt = IdsAfter(*golden, "prompt:");
  const std::vector<int> want = IdsAfter(*golden, "generated:");
  ASSERT_FALSE(want.empty());

  absl::StatusOr<tokenizer::Tokenizer> tok = tokenizer::Tokenizer::FromGgufFile(model_path);
  ASSERT_TRUE(tok.ok()) << tok.status();
  absl::StatusOr<std::vector<int32_t>> prompt = tok->Encode(c.prompt);
  ASSERT_TRUE(prompt.ok()) << prompt.status();
  ASSERT_EQ(std::vector<int>(prompt->begin(), prompt->end()), want_prompt);

  absl::StatusOr<std::unique_ptr<llm::Model>> model =
      llm::Model::Load(model_path, ParityOptions(64));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<std::shared_ptr<const grammar::Grammar>> g = grammar::ParseGbnf(gbnf);
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<std::string> pieces(tok->n_tokens());
  for (int i = 0; i < tok->n_tokens(); ++i) pieces[i] = tok->TokenBytes(i);
  const std::vector<int> eog(tok->eog_ids().begin(), tok->eog_ids().end());
  auto vocab = std::make_shared<const llm::GrammarVocab>(std::move(pieces), eog);
  llm::SamplerOptions so;
  so.temperature = 0.0f;
  absl::StatusOr<llm::Sampler> sampler = llm::Sampler::Create(tok->n_tokens(), so);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  ASSERT_TRUE(sampler->SetGrammar(*g, vocab).ok());
  llm::Session session(**model, *sampler);
  absl::StatusOr<llm::GenerateResult> r =
      session.Generate(want_prompt, {.max_tokens = kMaxTokens, .stop_tokens = eog});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tokens, want);
  std::printf("%s: %zu tokens equal to llama.cpp's\n", c.name, r->tokens == want ? want.size() : 0);
}

INSTANTIATE_TEST_SUITE_P(Grammars, GrammarParity, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
}  // namespace parity
}  // namespace edgeq
