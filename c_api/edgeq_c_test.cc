// The C API against golden bytes, the C++ kernels and the C++ llm path.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "edgeq/edgeq.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/sampler.h"
#include "llm/session.h"
#include "tests/util/reference_data.h"
#include "tokenizer/tokenizer.h"

namespace {

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::vector<float> ReadFloats(const std::string& path) {
  const std::vector<uint8_t> b = ReadBytes(path);
  std::vector<float> f(b.size() / 4);
  std::memcpy(f.data(), b.data(), f.size() * 4);
  return f;
}

TEST(CApi, VersionAndIsa) {
  EXPECT_STREQ(edgeq_version(), EDGEQ_VERSION_STRING);
  const std::string isa = edgeq_best_isa();
#if defined(__x86_64__)
  EXPECT_TRUE(isa == "generic" || isa.rfind("avx", 0) == 0) << isa;
#else
  EXPECT_TRUE(isa == "neon" || isa == "dotprod" || isa == "i8mm") << isa;
#endif
  EXPECT_STREQ(edgeq_status_name(EDGEQ_ERROR_NOT_FOUND), "NOT_FOUND");
}

TEST(CApi, EncodingsListed) {
  std::vector<std::string> names;
  for (size_t i = 0; i < edgeq_encoding_count(); ++i) {
    const char* name = nullptr;
    ASSERT_EQ(edgeq_encoding_name(i, &name), EDGEQ_OK);
    names.push_back(name);
  }
  for (const char* want : {"bf16", "q4_0", "q4_k", "q5_k", "q6_k", "q8_0"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  const char* name = nullptr;
  EXPECT_EQ(edgeq_encoding_name(names.size(), &name), EDGEQ_ERROR_OUT_OF_RANGE);
  EXPECT_NE(std::string(edgeq_last_error()).find("not below"), std::string::npos);
  int64_t epb = 0, bytes = 0;
  ASSERT_EQ(edgeq_encoding_block("Q4_K", &epb, &bytes), EDGEQ_OK);
  EXPECT_EQ(epb, 256);
  EXPECT_EQ(bytes, 144);
  EXPECT_EQ(edgeq_encoding_block("q3_x", &epb, &bytes), EDGEQ_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(edgeq_last_error()).find("q3_x"), std::string::npos);
}

// GGML's reference quantizer bytes for the first 400 Q4_0 / Q8_0 blocks (no UB blocks there),
// as 100 rows of 128 values.
TEST(CApi, QuantizeMatchesGgmlGolden) {
  for (const std::string enc : {"q4_0", "q8_0"}) {
    SCOPED_TRACE(enc);
    const std::vector<float> x = ReadFloats("tests/testdata/golden/" + enc + ".input.f32");
    const std::vector<uint8_t> want = ReadBytes("tests/testdata/golden/" + enc + ".quant.bin");
    const std::vector<float> deq = ReadFloats("tests/testdata/golden/" + enc + ".dequant.f32");
    const int64_t rows = 100, k = 128;
    size_t bytes = 0;
    ASSERT_EQ(edgeq_quantized_size(enc.c_str(), rows, k, &bytes), EDGEQ_OK);
    ASSERT_EQ(bytes, 400u * (enc == "q4_0" ? 18 : 34));
    ASSERT_GE(want.size(), bytes);
    std::vector<uint8_t> q(bytes);
    ASSERT_EQ(edgeq_quantize(enc.c_str(), x.data(), rows, k, q.data(), q.size()), EDGEQ_OK)
        << edgeq_last_error();
    EXPECT_EQ(0, std::memcmp(q.data(), want.data(), bytes));
    std::vector<float> y(rows * k);
    ASSERT_EQ(edgeq_dequantize(enc.c_str(), want.data(), bytes, rows, k, y.data()), EDGEQ_OK);
    EXPECT_EQ(0, std::memcmp(y.data(), deq.data(), y.size() * 4));
    // Too small an output buffer, a k that is not whole blocks, NaN.
    EXPECT_EQ(edgeq_quantize(enc.c_str(), x.data(), rows, k, q.data(), bytes - 1),
              EDGEQ_ERROR_BUFFER_TOO_SMALL);
    EXPECT_EQ(edgeq_quantize(enc.c_str(), x.data(), rows, 100, q.data(), q.size()),
              EDGEQ_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(edgeq_last_error()).find("multiple of 32"), std::string::npos)
        << edgeq_last_error();
    std::vector<float> bad(x.begin(), x.begin() + 32);
    bad[5] = NAN;
    EXPECT_EQ(edgeq_quantize(enc.c_str(), bad.data(), 1, 32, q.data(), q.size()),
              EDGEQ_ERROR_INVALID_ARGUMENT);
  }
}

TEST(CApi, QmatmulMatchesDequantizedProduct) {
  const int64_t n = 16, k = 256, m = 3;
  std::vector<float> w(n * k), x(m * k);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37f * i);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.11f * i);
  for (const char* enc : {"q4_0", "q8_0", "q4_k", "q6_k"}) {
    SCOPED_TRACE(enc);
    size_t bytes = 0;
    ASSERT_EQ(edgeq_quantized_size(enc, n, k, &bytes), EDGEQ_OK);
    std::vector<uint8_t> q(bytes);
    ASSERT_EQ(edgeq_quantize(enc, w.data(), n, k, q.data(), bytes), EDGEQ_OK);
    std::vector<float> wd(n * k);
    ASSERT_EQ(edgeq_dequantize(enc, q.data(), bytes, n, k, wd.data()), EDGEQ_OK);
    std::vector<float> y(m * n);
    ASSERT_EQ(edgeq_qmatmul(enc, q.data(), bytes, n, k, x.data(), m, y.data()), EDGEQ_OK)
        << edgeq_last_error();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0;
        for (int64_t l = 0; l < k; ++l) ref += double(x[i * k + l]) * wd[j * k + l];
        // The kernels quantize x to 8 bits per block: about 1% of the row's magnitude.
        EXPECT_NEAR(y[i * n + j], ref, 0.02 * 16 + 0.01 * std::fabs(ref)) << i << "," << j;
      }
    }
    EXPECT_EQ(edgeq_qmatmul(enc, q.data(), bytes - 1, n, k, x.data(), m, y.data()),
              EDGEQ_ERROR_INVALID_ARGUMENT);
  }
}

TEST(CApi, CheckpointTensors) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "models/stories260K.gguf");
  edgeq_checkpoint* c = nullptr;
  ASSERT_EQ(edgeq_checkpoint_open(path.c_str(), &c), EDGEQ_OK) << edgeq_last_error();
  EXPECT_STREQ(edgeq_checkpoint_format(c), "gguf");
  EXPECT_GT(edgeq_checkpoint_tensor_count(c), 5u);
  edgeq_tensor_info info;
  ASSERT_EQ(edgeq_checkpoint_tensor(c, "token_embd.weight", &info), EDGEQ_OK);
  EXPECT_STREQ(info.name, "token_embd.weight");
  EXPECT_STREQ(info.dtype, "f32");
  EXPECT_STREQ(info.encoding, "");
  ASSERT_EQ(info.rank, 2);
  EXPECT_EQ(info.shape[0], 512);  // vocabulary
  EXPECT_EQ(info.shape[1], 64);   // embedding
  EXPECT_EQ(info.data_bytes, 512u * 64 * 4);
  ASSERT_NE(info.data, nullptr);
  EXPECT_TRUE(std::isfinite(static_cast<const float*>(info.data)[0]));
  EXPECT_EQ(edgeq_checkpoint_tensor(c, "nope", &info), EDGEQ_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(edgeq_last_error()).find("'nope'"), std::string::npos);
  EXPECT_EQ(edgeq_checkpoint_tensor_at(c, 100000, &info), EDGEQ_ERROR_OUT_OF_RANGE);
  edgeq_checkpoint_close(c);
  EXPECT_EQ(edgeq_checkpoint_open("/nonexistent/x.gguf", &c), EDGEQ_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(edgeq_last_error()).find("/nonexistent/x.gguf"), std::string::npos)
      << edgeq_last_error();
}

struct Collected {
  std::vector<int32_t> tokens;
  std::string text;
};

int Collect(int32_t token, const char* piece, void* user) {
  auto* c = static_cast<Collected*>(user);
  c->tokens.push_back(token);
  c->text += piece;
  return 1;
}

// Greedy generation through the C API equals edgeq::llm::Session with a greedy Sampler.
TEST(CApi, LlmGenerateEqualsCppPath) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "models/stories260K.gguf");
  edgeq_llm* llm = nullptr;
  ASSERT_EQ(edgeq_llm_load(path.c_str(), nullptr, &llm), EDGEQ_OK) << edgeq_last_error();
  EXPECT_EQ(edgeq_llm_vocab_size(llm), 512);
  int32_t ids[64];
  size_t n = 0;
  ASSERT_EQ(edgeq_llm_tokenize(llm, "Once upon a time", 1, ids, 64, &n), EDGEQ_OK);
  ASSERT_GT(n, 2u);
  size_t need = 0;
  EXPECT_EQ(edgeq_llm_tokenize(llm, "Once upon a time", 1, ids, 1, &need),
            EDGEQ_ERROR_BUFFER_TOO_SMALL);
  EXPECT_EQ(need, n);
  char text[256];
  size_t len = 0;
  ASSERT_EQ(edgeq_llm_detokenize(llm, ids, n, text, sizeof(text), &len), EDGEQ_OK);
  EXPECT_EQ(std::string(text, len).find("Once upon a time"), std::string(text, len).size() - 16);

  Collected got;
  int32_t out[40];
  size_t generated = 0;
  ASSERT_EQ(edgeq_llm_generate(llm, ids, n, 30, nullptr, Collect, &got, out, 40, &generated),
            EDGEQ_OK)
      << edgeq_last_error();
  EXPECT_EQ(edgeq_llm_n_past(llm), static_cast<int32_t>(n + got.tokens.size()));

  // The C++ path.
  auto model = edgeq::llm::Model::Load(path);
  ASSERT_TRUE(model.ok()) << model.status();
  auto tok = edgeq::tokenizer::Tokenizer::FromGgufFile(path);
  ASSERT_TRUE(tok.ok()) << tok.status();
  auto sampler = edgeq::llm::Sampler::Create(512, {.temperature = 0});
  ASSERT_TRUE(sampler.ok());
  edgeq::llm::Session session(**model, *sampler);
  auto prompt = tok->Encode("Once upon a time");
  ASSERT_TRUE(prompt.ok());
  std::vector<int> p(prompt->begin(), prompt->end());
  std::vector<int> stop(tok->eog_ids().begin(), tok->eog_ids().end());
  auto r = session.Generate(p, {.max_tokens = 30, .stop_tokens = stop});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(generated, r->tokens.size());
  EXPECT_EQ(std::vector<int>(out, out + generated), r->tokens);
  EXPECT_GE(got.tokens.size() + 1, generated);
  EXPECT_FALSE(got.text.empty());

  // Logits of the prompt equal Model::Prefill's; reset empties the context.
  std::vector<float> logits(512);
  ASSERT_EQ(edgeq_llm_eval(llm, ids, n, logits.data(), logits.size()), EDGEQ_OK);
  EXPECT_EQ(edgeq_llm_eval(llm, ids, n, logits.data(), 10), EDGEQ_ERROR_BUFFER_TOO_SMALL);
  session.Reset();
  auto ref = (*model)->Prefill(p, 0);
  ASSERT_TRUE(ref.ok());
  for (int i = 0; i < 512; ++i) ASSERT_EQ(logits[i], (*ref)[i]) << i;
  edgeq_llm_reset(llm);
  EXPECT_EQ(edgeq_llm_n_past(llm), 0);
  // Seeded sampling is reproducible.
  edgeq_sampling_params sp = edgeq_sampling_default();
  sp.seed = 42;
  int32_t a[20], b[20];
  size_t na = 0, nb = 0;
  ASSERT_EQ(edgeq_llm_generate(llm, ids, n, 20, &sp, nullptr, nullptr, a, 20, &na), EDGEQ_OK);
  edgeq_llm_reset(llm);
  ASSERT_EQ(edgeq_llm_generate(llm, ids, n, 20, &sp, nullptr, nullptr, b, 20, &nb), EDGEQ_OK);
  ASSERT_EQ(na, nb);
  EXPECT_EQ(0, std::memcmp(a, b, na * sizeof(int32_t)));
  edgeq_llm_free(llm);
}

// Constrained output through the C API: the generated text is JSON valid under the schema (or
// a sentence of the GBNF grammar), greedy and sampled; a bad grammar is one error naming the
// line and column, and leaves the previous constraint in place; NULL removes it.
TEST(CApi, LlmGrammar) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "models/stories260K.gguf");
  edgeq_llm* llm = nullptr;
  ASSERT_EQ(edgeq_llm_load(path.c_str(), nullptr, &llm), EDGEQ_OK) << edgeq_last_error();
  int32_t ids[64];
  size_t n = 0;
  ASSERT_EQ(edgeq_llm_tokenize(llm, "Once upon a time", 1, ids, 64, &n), EDGEQ_OK);
  auto generate = [&](const edgeq_sampling_params* sp, std::string* text) {
    edgeq_llm_reset(llm);
    int32_t out[200];
    size_t got = 0;
    const edgeq_status st =
        edgeq_llm_generate(llm, ids, n, 200, sp, nullptr, nullptr, out, 200, &got);
    if (st != EDGEQ_OK) return st;
    if (got > 0 && out[got - 1] == edgeq_llm_eos(llm)) --got;
    char buf[4096];
    size_t len = 0;
    const edgeq_status d = edgeq_llm_detokenize(llm, out, got, buf, sizeof(buf), &len);
    *text = std::string(buf, len);
    return d;
  };
  ASSERT_EQ(edgeq_llm_set_grammar(llm, "root ::= (\"yes\" | \"no\") \"!\""), EDGEQ_OK);
  std::string text;
  ASSERT_EQ(generate(nullptr, &text), EDGEQ_OK) << edgeq_last_error();
  EXPECT_TRUE(text == "yes!" || text == "no!") << text;

  EXPECT_EQ(edgeq_llm_set_grammar(llm, "root ::= \"a\" | foo"), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error())
                .find("edgeq_llm_set_grammar: gbnf: grammar line 1, column 16: undefined rule"),
            std::string::npos)
      << edgeq_last_error();
  ASSERT_EQ(generate(nullptr, &text), EDGEQ_OK);  // the previous grammar still holds
  EXPECT_TRUE(text == "yes!" || text == "no!") << text;

  ASSERT_EQ(
      edgeq_llm_set_json_schema(
          llm, R"({"type":"object","properties":{"n":{"type":"integer"},"ok":{"type":"boolean"}},
                        "required":["n","ok"],"additionalProperties":false})"),
      EDGEQ_OK)
      << edgeq_last_error();
  edgeq_sampling_params sp = edgeq_sampling_default();
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    sp.seed = seed;
    ASSERT_EQ(generate(&sp, &text), EDGEQ_OK) << edgeq_last_error();
    std::string compact;
    for (char c : text) {
      if (c != ' ' && c != '\n' && c != '\t') compact += c;
    }
    EXPECT_TRUE(std::regex_match(compact, std::regex(R"(\{"n":-?[0-9]+,"ok":(true|false)\})")))
        << text;
  }
  EXPECT_EQ(edgeq_llm_set_json_schema(llm, R"({"type":"object","minProperties":"x"})"),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("edgeq_llm_set_json_schema: schema: "),
            std::string::npos);

  ASSERT_EQ(edgeq_llm_set_grammar(llm, nullptr), EDGEQ_OK);
  edgeq_llm_free(llm);
}

// A conversation through a chat template into prompt ids: the model's own template (stories260K
// has none: NOT_FOUND naming the key), a preset by name, or Jinja text; each equals tokenizing
// the rendered text.
TEST(CApi, LlmChatTokenize) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "models/stories260K.gguf");
  edgeq_llm* llm = nullptr;
  ASSERT_EQ(edgeq_llm_load(path.c_str(), nullptr, &llm), EDGEQ_OK) << edgeq_last_error();
  const char* roles[] = {"system", "user"};
  const char* contents[] = {"Be brief.", "Hello"};
  int32_t ids[256];
  size_t n = 0;
  if (edgeq_llm_chat_tokenize(llm, "chatml", roles, contents, 2, 1, ids, 256, &n) ==
          EDGEQ_ERROR_FAILED_PRECONDITION &&
      std::string(edgeq_last_error()).find("without chat templates") != std::string::npos) {
    edgeq_llm_free(llm);
    GTEST_SKIP() << "built with --define=edgeq_chat=off";
  }
  EXPECT_EQ(edgeq_llm_chat_tokenize(llm, nullptr, roles, contents, 2, 1, ids, 256, &n),
            EDGEQ_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(edgeq_last_error()).find("tokenizer.chat_template"), std::string::npos)
      << edgeq_last_error();
  auto expect_same = [&](const char* tmpl, const char* text) {
    size_t got = 0, want_n = 0;
    int32_t want[256];
    ASSERT_EQ(edgeq_llm_chat_tokenize(llm, tmpl, roles, contents, 2, 1, ids, 256, &got), EDGEQ_OK)
        << edgeq_last_error();
    ASSERT_EQ(edgeq_llm_tokenize(llm, text, 1, want, 256, &want_n), EDGEQ_OK);
    EXPECT_EQ(std::vector<int32_t>(ids, ids + got), std::vector<int32_t>(want, want + want_n));
    size_t need = 0;
    EXPECT_EQ(edgeq_llm_chat_tokenize(llm, tmpl, roles, contents, 2, 1, ids, 1, &need),
              EDGEQ_ERROR_BUFFER_TOO_SMALL);
    EXPECT_EQ(need, got);
  };
  expect_same("chatml",
              "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n"
              "<|im_start|>assistant\n");
  expect_same("{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}",
              "system: Be brief.\nuser: Hello\n");
  const char* bad_contents[] = {"Be brief.", nullptr};
  EXPECT_EQ(edgeq_llm_chat_tokenize(llm, "chatml", roles, bad_contents, 2, 1, ids, 256, &n),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("message 1 has a NULL role or content"),
            std::string::npos)
      << edgeq_last_error();
  EXPECT_EQ(edgeq_llm_chat_tokenize(llm, "{% if %}", roles, contents, 2, 1, ids, 256, &n),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  edgeq_llm_free(llm);
}

// Issue 27 F11: arguments are range-checked at the C boundary: a wild count is an error before
// anything is allocated or read, and an id outside the vocabulary is named.
TEST(CApi, LlmArgumentsOutOfRangeAreRefused) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "models/stories260K.gguf");
  edgeq_llm* llm = nullptr;
  edgeq_llm_options options = {5000, 0, 0};
  EXPECT_EQ(edgeq_llm_load(path.c_str(), &options, &llm), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(edgeq_last_error(),
               "edgeq_llm_options.num_threads is 5000; expected at most 1024 (<= 0: 1)");
  options = {1, 1 << 30, 0};
  EXPECT_EQ(edgeq_llm_load(path.c_str(), &options, &llm), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(edgeq_last_error(),
               "edgeq_llm_options.context_length is 1073741824; expected at most 1048576 (<= 0: "
               "the model's)");
  options = {1, 0, 5000};
  EXPECT_EQ(edgeq_llm_load(path.c_str(), &options, &llm), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(edgeq_last_error(),
               "edgeq_llm_options.ubatch_size is 5000; expected at most 4096 (<= 0: the default, "
               "512)");
  EXPECT_EQ(llm, nullptr);
  // The ubatch: the one default (llm/prefill_plan.h) unless given, capped at the context.
  for (const auto& [given, ctx, want] :
       {std::tuple<int32_t, int32_t, int32_t>{0, 1024, edgeq::llm::kDefaultUbatchSize},
        {-3, 1024, edgeq::llm::kDefaultUbatchSize},
        {100, 1024, 100},
        {0, 64, 64}}) {
    options = {1, ctx, given};
    ASSERT_EQ(edgeq_llm_load(path.c_str(), &options, &llm), EDGEQ_OK) << edgeq_last_error();
    EXPECT_EQ(edgeq_llm_ubatch_size(llm), want) << given << " " << ctx;
    edgeq_llm_free(llm);
  }
  ASSERT_EQ(edgeq_llm_load(path.c_str(), nullptr, &llm), EDGEQ_OK) << edgeq_last_error();
  EXPECT_EQ(edgeq_llm_ubatch_size(llm), edgeq::llm::kDefaultUbatchSize);  // stories260K: 512
  edgeq_llm_free(llm);
  EXPECT_EQ(edgeq_llm_ubatch_size(nullptr), 0);
  options = {1, 64, 0};
  ASSERT_EQ(edgeq_llm_load(path.c_str(), &options, &llm), EDGEQ_OK) << edgeq_last_error();
  int32_t ids[4] = {1, 2, 3, 4};
  // A count far beyond the buffer and the context: refused before the ids are read.
  EXPECT_EQ(
      edgeq_llm_generate(llm, ids, SIZE_MAX, 1, nullptr, nullptr, nullptr, nullptr, 0, nullptr),
      EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(edgeq_last_error(),
               "edgeq_llm_generate: 18446744073709551615 prompt tokens; the context holds 64");
  float logits[512];
  EXPECT_EQ(edgeq_llm_eval(llm, ids, SIZE_MAX, logits, 512), EDGEQ_ERROR_INVALID_ARGUMENT);
  int32_t bad[2] = {1, 512};
  EXPECT_EQ(edgeq_llm_generate(llm, bad, 2, 1, nullptr, nullptr, nullptr, nullptr, 0, nullptr),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(edgeq_last_error(),
               "edgeq_llm_generate: prompt[1] is 512; expected a token id in [0, 512)");
  bad[1] = -1;
  EXPECT_EQ(edgeq_llm_eval(llm, bad, 2, logits, 512), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(edgeq_last_error(),
               "edgeq_llm_eval: tokens[1] is -1; expected a token id in [0, 512)");
  char text[16];
  size_t length = 0;
  EXPECT_EQ(edgeq_llm_detokenize(llm, bad, 2, text, sizeof(text), &length),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(edgeq_llm_n_past(llm), 0);
  size_t generated = 0;
  EXPECT_EQ(edgeq_llm_generate(llm, ids, 2, 1, nullptr, nullptr, nullptr, nullptr, 0, &generated),
            EDGEQ_OK)
      << edgeq_last_error();
  EXPECT_EQ(generated, 1u);
  edgeq_llm_free(llm);
  edgeq_session* session = nullptr;
  EXPECT_EQ(edgeq_session_create(5000, &session), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(edgeq_last_error(),
               "edgeq_session_create: num_threads is 5000; expected at most 1024 (<= 0: 1)");
  EXPECT_EQ(session, nullptr);
}

}  // namespace
