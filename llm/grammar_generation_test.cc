// Constrained generation end to end: a random-weight model (any text is possible without the
// grammar) with a SentencePiece vocabulary that has byte fallback, so that pieces span several
// grammar elements and UTF-8 characters split over tokens. Every sampled output must be a
// sentence of the grammar (JSON valid under its schema), ending at end-of-generation once the
// grammar is complete; greedy output must be the argmax of the masked logits.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/bounded_input.h"
#include "grammar/gbnf.h"
#include "grammar/json_schema.h"
#include "grammar/json_validate_testing.h"
#include "grammar/matcher.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "llm/sampler.h"
#include "llm/session.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace llm {
namespace {

constexpr int kSamples = 200;

struct Fixture {
  std::unique_ptr<Model> model;
  std::unique_ptr<tokenizer::Tokenizer> tok;
  std::shared_ptr<const GrammarVocab> vocab;
};

const Fixture& Tiny() {
  static const Fixture* f = [] {
    auto* f = new Fixture;
    absl::StatusOr<checkpoint::TensorDict> v = SyntheticSpmVocabulary(300);
    EXPECT_TRUE(v.ok()) << v.status();
    RandomModelSpec s = *RandomModelPreset("smollm2-135m");
    s.dim = 16, s.layers = 1, s.heads = 2, s.kv_heads = 1, s.ffn = 24, s.context = 512;
    s.seed = 5;
    absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s, &*v);
    EXPECT_TRUE(d.ok()) << d.status();
    absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(*d, {.num_threads = 1});
    EXPECT_TRUE(m.ok()) << m.status();
    f->model = *std::move(m);
    absl::StatusOr<tokenizer::Tokenizer> t = tokenizer::Tokenizer::FromGguf(*v);
    EXPECT_TRUE(t.ok()) << t.status();
    f->tok = std::make_unique<tokenizer::Tokenizer>(*std::move(t));
    std::vector<std::string> pieces(f->tok->n_tokens());
    for (int i = 0; i < f->tok->n_tokens(); ++i) pieces[i] = f->tok->TokenBytes(i);
    f->vocab = std::make_shared<const GrammarVocab>(
        std::move(pieces), std::vector<int>(f->tok->eog_ids().begin(), f->tok->eog_ids().end()));
    return f;
  }();
  return *f;
}

std::shared_ptr<const grammar::Grammar> Parse(const std::string& gbnf) {
  absl::StatusOr<std::shared_ptr<const grammar::Grammar>> g = grammar::ParseGbnf(gbnf);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : nullptr;
}

SamplerOptions Temp1(uint32_t seed) {
  SamplerOptions o;
  o.temperature = 1.0f;
  o.top_k = 0, o.top_p = 1.0f, o.min_p = 0.0f;
  o.seed = seed;
  return o;
}

struct Output {
  std::string text;
  StopReason reason;
};

// kSamples seeded generations (temperature 1, seeds 1..kSamples) under `g`.
std::vector<Output> SampleMany(std::shared_ptr<const grammar::Grammar> g, int max_tokens) {
  const Fixture& f = Tiny();
  std::vector<Output> out;
  for (int seed = 1; seed <= kSamples; ++seed) {
    absl::StatusOr<Sampler> s = Sampler::Create(f.tok->n_tokens(), Temp1(seed));
    EXPECT_TRUE(s.ok());
    EXPECT_TRUE(s->SetGrammar(g, f.vocab).ok());
    Session session(*f.model, *s);
    GenerateOptions go;
    go.max_tokens = max_tokens;
    go.stop_tokens = f.vocab->eog_ids;
    absl::StatusOr<GenerateResult> r = session.Generate({f.tok->bos_id()}, go);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return out;
    Output o{"", r->reason};
    for (int t : r->tokens) {
      if (std::find(go.stop_tokens.begin(), go.stop_tokens.end(), t) == go.stop_tokens.end()) {
        o.text += f.vocab->pieces[t];
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

// The schemas are finite (maxLength, maxItems, additionalProperties false), so that a random
// model reaches the end; every output must then be JSON valid under the schema.
TEST(GrammarGeneration, JsonSchemasGiveValidJson) {
  const char* schemas[] = {
      R"({"type":"boolean"})",
      R"({"enum":["red","green","blue",42,null]})",
      R"({"type":"integer","minimum":-5,"maximum":1000})",
      R"({"type":"string","maxLength":6})",
      R"({"type":"string","pattern":"^[A-F]{2}-[0-9]{3}$"})",
      R"({"type":"array","items":{"type":"boolean"},"minItems":1,"maxItems":3})",
      R"({"type":"object","properties":{"ok":{"type":"boolean"},"n":{"type":"integer"}},
          "required":["ok"],"additionalProperties":false})",
      R"({"type":"object","properties":{"name":{"type":"string","maxLength":4},
          "tags":{"type":"array","items":{"enum":["a","b"]},"maxItems":2}},
          "required":["name","tags"],"additionalProperties":false})",
      R"({"oneOf":[{"type":"integer"},{"const":"none"}]})",
      R"({"type":"array","prefixItems":[{"type":"integer"},{"type":"string","maxLength":2}],
          "items":false})",
      R"({"$defs":{"p":{"type":"object","properties":{"x":{"type":"integer"}},
          "required":["x"],"additionalProperties":false}},
          "type":"array","items":{"$ref":"#/$defs/p"},"maxItems":2})",
      R"({"type":"number"})",
  };
  for (const char* text : schemas) {
    SCOPED_TRACE(text);
    absl::StatusOr<std::string> gbnf = grammar::JsonSchemaToGbnf(text);
    ASSERT_TRUE(gbnf.ok()) << gbnf.status();
    const nlohmann::ordered_json schema = nlohmann::ordered_json::parse(text);
    const std::vector<Output> outs = SampleMany(Parse(*gbnf), 400);
    ASSERT_EQ(outs.size(), kSamples);
    for (const Output& o : outs) {
      ASSERT_EQ(o.reason, StopReason::kStopToken) << "'" << o.text << "'";
      const nlohmann::ordered_json v = nlohmann::ordered_json::parse(o.text, nullptr, false);
      ASSERT_FALSE(v.is_discarded()) << "not JSON: '" << o.text << "'";
      std::string why;
      EXPECT_TRUE(grammar::ValidateJson(schema, schema, v, &why)) << o.text << ": " << why;
    }
  }
}

// GBNF grammars (finite ones, with UTF-8 literals and classes): each output is accepted in
// full by a fresh matcher and generation ends at end-of-generation.
TEST(GrammarGeneration, GbnfGrammarsGiveSentences) {
  const char* grammars[] = {
      "root ::= (\"yes\" | \"no\") \"!\"",
      "root ::= [0-9]{1,4} (\".\" [0-9]{1,2})?",
      "root ::= \"héllo\" \" \" (\"wörld\" | \"ünïcode\" | [α-ω]{1,3})",
      "root ::= item (\", \" item){0,3}\nitem ::= [a-c] [a-c]?",
      "root ::= \"(\" inner \")\"\ninner ::= \"x\" | \"(\" inner \")\" | \"\"",
      "root ::= \"SELECT \" col (\",\" col){0,2} \" FROM t;\"\ncol ::= [a-z]{1,3}",
  };
  for (const char* text : grammars) {
    SCOPED_TRACE(text);
    std::shared_ptr<const grammar::Grammar> g = Parse(text);
    ASSERT_NE(g, nullptr);
    for (const Output& o : SampleMany(g, 200)) {
      ASSERT_EQ(o.reason, StopReason::kStopToken) << "'" << o.text << "'";
      grammar::Matcher m(g);
      ASSERT_TRUE(m.AcceptBytes(o.text).ok()) << o.text;
      EXPECT_TRUE(m.IsAccepting()) << o.text;
    }
  }
}

// llama.cpp's example grammars: those whose sentences a random model may not finish within -n
// (free text in list.gbnf, chess' unbounded move list) are checked as prefixes; an output that
// ended at end-of-generation is a full sentence.
TEST(GrammarGeneration, ExampleGrammars) {
  for (const char* name : {"arithmetic.gbnf", "chess.gbnf", "list.gbnf", "json_arr.gbnf",
                           "json.gbnf", "japanese.gbnf"}) {
    SCOPED_TRACE(name);
    EDGEQ_REFERENCE_DATA_OR_SKIP(path, std::string("grammars/") + name);
    absl::StatusOr<std::string> text = ReadFileBounded(path, 1 << 20, "grammar");
    ASSERT_TRUE(text.ok()) << text.status();
    std::shared_ptr<const grammar::Grammar> g = Parse(*text);
    ASSERT_NE(g, nullptr);
    int complete = 0;
    for (const Output& o : SampleMany(g, 48)) {
      grammar::Matcher m(g);
      ASSERT_TRUE(m.AcceptBytes(o.text).ok()) << o.text;
      if (o.reason == StopReason::kStopToken) {
        EXPECT_TRUE(m.IsAccepting()) << o.text;
        ++complete;
      } else {
        EXPECT_EQ(o.reason, StopReason::kMaxTokens);
      }
    }
    std::printf("%s: %d of %d outputs complete within 48 tokens\n", name, complete, kSamples);
  }
}

// Greedy constrained generation equals a loop written here: the argmax of the model's logits
// over the tokens a separate matcher allows (end-of-generation only when it accepts).
TEST(GrammarGeneration, GreedyIsMaskedArgmaxOfModelLogits) {
  const Fixture& f = Tiny();
  for (const char* schema :
       {R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string",
            "maxLength":5}},"required":["a","b"],"additionalProperties":false})",
        R"({"type":"array","items":{"type":"number"},"maxItems":3})"}) {
    SCOPED_TRACE(schema);
    absl::StatusOr<std::string> gbnf = grammar::JsonSchemaToGbnf(schema);
    ASSERT_TRUE(gbnf.ok());
    std::shared_ptr<const grammar::Grammar> g = Parse(*gbnf);
    const std::vector<int> prompt = {f.tok->bos_id(), 40, 50};
    const int n = 120;
    // By hand.
    grammar::Matcher m(g);
    std::vector<int> want;
    absl::StatusOr<absl::Span<const float>> logits = f.model->Prefill(prompt, 0);
    ASSERT_TRUE(logits.ok());
    const std::vector<int>& eog = f.vocab->eog_ids;
    for (int step = 0; step < n; ++step) {
      int best = -1;
      for (int t = 0; t < f.tok->n_tokens(); ++t) {
        const bool is_eog = std::find(eog.begin(), eog.end(), t) != eog.end();
        if (!(is_eog ? m.IsAccepting() : m.CanAccept(f.vocab->pieces[t]))) continue;
        if (best < 0 || (*logits)[t] > (*logits)[best]) best = t;
      }
      ASSERT_GE(best, 0);
      want.push_back(best);
      if (std::find(eog.begin(), eog.end(), best) != eog.end()) break;
      ASSERT_TRUE(m.AcceptBytes(f.vocab->pieces[best]).ok());
      logits = f.model->Forward(best, static_cast<int>(prompt.size()) + step);
      ASSERT_TRUE(logits.ok());
    }
    // Through Sampler + Session, twice (deterministic).
    for (int rep = 0; rep < 2; ++rep) {
      SamplerOptions o;
      o.temperature = 0.0f;
      absl::StatusOr<Sampler> s = Sampler::Create(f.tok->n_tokens(), o);
      ASSERT_TRUE(s.ok());
      ASSERT_TRUE(s->SetGrammar(g, f.vocab).ok());
      Session session(*f.model, *s);
      absl::StatusOr<GenerateResult> r =
          session.Generate(prompt, {.max_tokens = n, .stop_tokens = eog});
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(r->tokens, want);
    }
  }
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
