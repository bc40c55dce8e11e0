// Unit tests of tokenizer::Tokenizer on small hand-made vocabularies, the pre-tokenizer regex
// engine and the streaming decoder. The real vocabularies are in tokenizer_vocab_test and
// tokenizer_hf_test.
#include "tokenizer/tokenizer.h"

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "checkpoint/gguf.h"
#include "gtest/gtest.h"
#include "tokenizer/regex.h"
#include "tokenizer/unicode.h"

namespace edgeq {
namespace tokenizer {
namespace {

using checkpoint::MetadataValue;
using checkpoint::TensorDict;

std::vector<std::string> Split(absl::string_view text, const std::vector<std::string>& pats) {
  std::vector<PreTokenizerRegex> res;
  for (const std::string& p : pats) {
    absl::StatusOr<PreTokenizerRegex> re = PreTokenizerRegex::Compile(p);
    EXPECT_TRUE(re.ok()) << re.status();
    if (!re.ok()) return {};
    res.push_back(*std::move(re));
  }
  absl::StatusOr<std::vector<std::pair<size_t, size_t>>> parts = RegexSplit(text, res);
  EXPECT_TRUE(parts.ok()) << parts.status();
  std::vector<std::string> out;
  if (!parts.ok()) return out;
  for (const auto& p : *parts) out.emplace_back(text.substr(p.first, p.second - p.first));
  return out;
}

constexpr char kGpt2[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";

TEST(PreTokenizerRegexTest, Gpt2PatternSplitsLikeGpt2) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Split("Hello world's 123 !!", {kGpt2}), (V{"Hello", " world", "'s", " 123", " !!"}));
  // Whitespace before a word stays with the word; a run keeps all but the last space.
  EXPECT_EQ(Split("a   b", {kGpt2}), (V{"a", "  ", " b"}));
  // Letters of any script (utf8proc categories): Cyrillic, CJK, and digits of other scripts.
  EXPECT_EQ(Split("привет мир", {kGpt2}), (V{"привет", " мир"}));
  EXPECT_EQ(Split("x\xd9\xa3\xd9\xa4", {kGpt2}), (V{"x", "\xd9\xa3\xd9\xa4"}));  // Arabic-Indic
  // Text no alternative matches stays as its own fragment ("\n" before a letter).
  EXPECT_EQ(Split("a\nb", {kGpt2}), (V{"a", "\n", "b"}));
}

TEST(PreTokenizerRegexTest, SeveralPatternsRefineEachOther) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Split("abc 12345", {"\\p{N}", kGpt2}), (V{"abc", " ", "1", "2", "3", "4", "5"}));
  EXPECT_EQ(Split("x  \n", {"\\s+$"}), (V{"x", "  \n"}));
}

TEST(PreTokenizerRegexTest, CaseInsensitiveGroupsLookaheadAndCounts) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Split("IT'S", {"(?i:'s|'t)|\\p{L}+"}), (V{"IT", "'S"}));
  EXPECT_EQ(Split("1234567", {"\\p{N}{1,3}"}), (V{"123", "456", "7"}));
  EXPECT_EQ(Split("ab", {"a(?=b)"}), (V{"a", "b"}));
  EXPECT_EQ(Split("ac", {"a(?!c)"}), (V{"ac"}));
}

TEST(PreTokenizerRegexTest, BadPatternsAreErrorsNamingThePattern) {
  for (const char* bad : {"(ab", "[ab", "a{3,1}", "\\p{Han}", "(?<=a)b", "a++", "\\q", "*a",
                          "((a{1000}){1000}){1000}", "a{1}{1}{1}{1}{1}"}) {
    absl::StatusOr<PreTokenizerRegex> re = PreTokenizerRegex::Compile(bad);
    ASSERT_FALSE(re.ok()) << bad;
    EXPECT_TRUE(absl::StrContains(re.status().message(), bad)) << re.status();
  }
}

// Random patterns and random subjects: errors or results, never a crash or a hang.
TEST(PreTokenizerRegexTest, RandomPatternsAndTextsAreSafe) {
  std::mt19937 rng(15);
  const std::string alphabet = "ab()[]{}|?*+^$\\-.,:!=<0139pPsSdwnrx ";
  int compiled = 0;
  for (int i = 0; i < 800; ++i) {
    std::string pattern;
    const int len = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < len; ++k) pattern.push_back(alphabet[rng() % alphabet.size()]);
    absl::StatusOr<PreTokenizerRegex> re = PreTokenizerRegex::Compile(pattern);
    if (!re.ok()) continue;
    ++compiled;
    std::string text;
    for (int k = 0; k < 40; ++k) text.push_back(static_cast<char>(rng() % 256));
    std::vector<PreTokenizerRegex> res;
    res.push_back(*std::move(re));
    absl::StatusOr<std::vector<std::pair<size_t, size_t>>> parts = RegexSplit(text, res);
    if (!parts.ok()) continue;
    size_t covered = 0;
    for (const auto& p : *parts) {
      EXPECT_EQ(p.first, covered) << pattern;
      covered = p.second;
    }
    EXPECT_EQ(covered, text.size()) << pattern;
  }
  EXPECT_GT(compiled, 80);
}

TEST(UnicodeTest, ByteLevelMappingIsGpt2s) {
  EXPECT_EQ(ByteToCodePoint('A'), uint32_t{'A'});
  EXPECT_EQ(ByteToCodePoint(' '), 0x120u);   // "Ġ"
  EXPECT_EQ(ByteToCodePoint('\n'), 0x10Au);  // "Ċ"
  for (int b = 0; b < 256; ++b) {
    EXPECT_EQ(CodePointToByte(ByteToCodePoint(static_cast<uint8_t>(b))), b);
  }
  EXPECT_EQ(CodePointToByte(0x4E00), -1);
  // Invalid UTF-8 decodes to U+FFFD per byte, offsets still cover every byte.
  const CodePoints cp = DecodeUtf8("a\xff\xe4\xb8");
  EXPECT_EQ(cp.cps, (std::vector<uint32_t>{'a', 0xFFFD, 0xFFFD, 0xFFFD}));
  EXPECT_EQ(cp.offsets.back(), 4u);
  EXPECT_EQ(NormalizeNfc("e\xcc\x81"), "\xc3\xa9");
}

// A tiny SentencePiece vocabulary: <unk> <s> </s>, 256 byte tokens, and some pieces.
TensorDict SpmVocab() {
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
  std::vector<double> scores = {0, 0, 0};
  std::vector<int64_t> types = {2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "<0x%02X>", b);
    tokens.push_back(buf);
    scores.push_back(0);
    types.push_back(6);
  }
  for (const char* piece : {"\xe2\x96\x81", "h", "e", "l", "o", "he", "ll", "llo", "hello",
                            "\xe2\x96\x81hello", "<|x|>"}) {
    tokens.push_back(piece);
    scores.push_back(-static_cast<double>(tokens.size()) / 100.0);
    types.push_back(std::string(piece) == "<|x|>" ? 4 : 1);
  }
  TensorDict d;
  d.SetMetadata("tokenizer.ggml.model", MetadataValue::String("llama"));
  d.SetMetadata("tokenizer.ggml.tokens", MetadataValue::StringArray(tokens));
  d.SetMetadata("tokenizer.ggml.scores",
                MetadataValue::FloatArray(scores, MetadataValue::Width::kF32));
  d.SetMetadata("tokenizer.ggml.token_type",
                MetadataValue::IntArray(types, MetadataValue::Width::kI32));
  return d;
}

TEST(TokenizerTest, SpmMergesByScoreAndFallsBackToBytes) {
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromGguf(SpmVocab());
  ASSERT_TRUE(tok.ok()) << tok.status();
  const int32_t hello = tok->TokenId("\xe2\x96\x81hello");
  ASSERT_GE(hello, 0);
  // BOS, then "▁hello" (space prefix), then "é" as its two bytes <0xC3> <0xA9>.
  absl::StatusOr<std::vector<int32_t>> ids = tok->Encode("hello\xc3\xa9");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<int32_t>{1, hello, 3 + 0xC3, 3 + 0xA9}));
  // As llama.cpp's detokenize: without a BOS the prefix space is removed; removing a BOS
  // (remove_special) keeps it.
  EXPECT_EQ(tok->Decode(absl::MakeConstSpan(*ids).subspan(1)), "hello\xc3\xa9");
  EXPECT_EQ(tok->Decode(*ids, {.remove_special = true}), " hello\xc3\xa9");
  EXPECT_EQ(tok->TokenToPiece(hello), " hello");
  EXPECT_EQ(tok->TokenToPiece(3 + 'A'), "A");
  EXPECT_EQ(tok->TokenToPiece(1, /*special=*/false), "");
  EXPECT_EQ(tok->TokenToPiece(1, /*special=*/true), "<s>");
  EXPECT_EQ(tok->TokenToPiece(-5), "");
  EXPECT_EQ(tok->TokenToPiece(1 << 20), "");
}

TEST(TokenizerTest, SpecialTokensAreMatchedBeforeTokenizing) {
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromGguf(SpmVocab());
  ASSERT_TRUE(tok.ok()) << tok.status();
  const int32_t x = tok->TokenId("<|x|>");  // user-defined: always matched
  const int32_t hello = tok->TokenId("\xe2\x96\x81hello");
  absl::StatusOr<std::vector<int32_t>> ids =
      tok->Encode("<s>hello<|x|>", {.add_special = false, .parse_special = true});
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<int32_t>{1, hello, x}));
  // Without parse_special, "<s>" is text (bytes), "<|x|>" still a token.
  ids = tok->Encode("<s>", {.add_special = false, .parse_special = false});
  ASSERT_TRUE(ids.ok());
  EXPECT_NE((*ids)[0], 1);
  EXPECT_EQ(tok->Decode(*ids), "<s>");
}

TEST(TokenizerTest, StreamDecoderNeverSplitsACharacter) {
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromGguf(SpmVocab());
  ASSERT_TRUE(tok.ok()) << tok.status();
  StreamDecoder stream(*tok);
  // "€" = E2 82 AC as three byte tokens, then a plain piece.
  EXPECT_EQ(stream.Push(3 + 0xE2), "");
  EXPECT_EQ(stream.Push(3 + 0x82), "");
  EXPECT_EQ(stream.Push(3 + 0xAC), "\xe2\x82\xac");
  EXPECT_EQ(stream.Push(tok->TokenId("he")), "he");
  // An incomplete character at the end comes out on Flush; invalid bytes are not held.
  EXPECT_EQ(stream.Push(3 + 0xF0), "");
  EXPECT_EQ(stream.Flush(), "\xf0");
  EXPECT_EQ(stream.Push(3 + 0xFF), "\xff");
  EXPECT_EQ(stream.Push(3 + 0x80), "\x80");
}

TensorDict BpeVocab(const std::string& pre) {
  // Byte-level: "Ġ" is the space. Merges: h e -> he, l l -> ll, he ll -> hell, hell o -> hello,
  // Ġ hello -> Ġhello.
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) {
    std::string s;
    AppendUtf8(ByteToCodePoint(static_cast<uint8_t>(b)), &s);
    tokens.push_back(s);
  }
  for (const char* t : {"he", "ll", "hell", "hello", "\xc4\xa0hello", "<|end|>"}) {
    tokens.push_back(t);
  }
  std::vector<int64_t> types(tokens.size(), 1);
  types.back() = 3;
  TensorDict d;
  d.SetMetadata("tokenizer.ggml.model", MetadataValue::String("gpt2"));
  d.SetMetadata("tokenizer.ggml.pre", MetadataValue::String(pre));
  d.SetMetadata("tokenizer.ggml.tokens", MetadataValue::StringArray(tokens));
  d.SetMetadata("tokenizer.ggml.token_type",
                MetadataValue::IntArray(types, MetadataValue::Width::kI32));
  d.SetMetadata("tokenizer.ggml.merges",
                MetadataValue::StringArray({"h e", "l l", "he ll", "hell o", "\xc4\xa0 hello"}));
  d.SetMetadata("tokenizer.ggml.eos_token_id",
                MetadataValue::Int(static_cast<int64_t>(tokens.size()) - 1));
  return d;
}

TEST(TokenizerTest, BpeMergesByRankOnByteLevelText) {
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromGguf(BpeVocab("gpt-2"));
  ASSERT_TRUE(tok.ok()) << tok.status();
  const int32_t hello = tok->TokenId("hello"), sp_hello = tok->TokenId("\xc4\xa0hello");
  absl::StatusOr<std::vector<int32_t>> ids =
      tok->Encode("hello hello<|end|>", {.add_special = false, .parse_special = true});
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<int32_t>{hello, sp_hello, tok->eos_id()}));
  EXPECT_EQ(tok->Decode(*ids), "hello hello");
  EXPECT_EQ(tok->Decode(*ids, {.unparse_special = true}), "hello hello<|end|>");
  // Bytes without merges are byte tokens; "\n" is its own byte-level token.
  ids = tok->Encode("\xe2\x82\xac\n", {.add_special = false});
  ASSERT_TRUE(ids.ok());
  std::vector<int32_t> bytes;
  for (uint8_t b : {0xE2, 0x82, 0xAC, 0x0A}) {
    std::string s;
    AppendUtf8(ByteToCodePoint(b), &s);
    bytes.push_back(tok->TokenId(s));
  }
  EXPECT_EQ(*ids, bytes);
  EXPECT_EQ(tok->Decode(*ids), "\xe2\x82\xac\n");
}

TEST(TokenizerTest, RandomBytesEncodeAndDecodeBack) {
  std::mt19937 rng(7);
  for (const TensorDict& d : {SpmVocab(), BpeVocab("llama-bpe"), BpeVocab("deepseek-llm")}) {
    absl::StatusOr<Tokenizer> tok = Tokenizer::FromGguf(d);
    ASSERT_TRUE(tok.ok()) << tok.status();
    for (int i = 0; i < 200; ++i) {
      // Byte-level BPE is lossless on any bytes; SentencePiece on valid UTF-8 (as in
      // llama.cpp, an invalid lead byte can swallow part of the next character).
      std::string text;
      const int len = static_cast<int>(rng() % 64);
      for (int k = 0; k < len; ++k) {
        if (tok->model() == Tokenizer::Model::kBpe) {
          text.push_back(static_cast<char>(rng() % 256));
        } else {
          AppendUtf8(rng() % 4 == 0 ? ' ' : static_cast<uint32_t>(rng() % 0x11000), &text);
        }
      }
      absl::StatusOr<std::vector<int32_t>> ids =
          tok->Encode(text, {.add_special = false, .parse_special = true});
      ASSERT_TRUE(ids.ok()) << ids.status();
      for (int32_t id : *ids) ASSERT_TRUE(id >= 0 && id < tok->n_tokens());
      // Every byte has a token in these vocabularies, so nothing is lost.
      EXPECT_EQ(tok->Decode(*ids, {.unparse_special = true, .clean_spaces = false}), text);
    }
  }
}

TEST(TokenizerTest, GgufMetadataRoundTrips) {
  for (const TensorDict& d : {SpmVocab(), BpeVocab("llama-bpe")}) {
    absl::StatusOr<Tokenizer> tok = Tokenizer::FromGguf(d);
    ASSERT_TRUE(tok.ok()) << tok.status();
    TensorDict out;
    ASSERT_TRUE(tok->ToGgufMetadata(&out).ok());
    absl::StatusOr<std::string> bytes = checkpoint::WriteGgufToString(out);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    absl::StatusOr<TensorDict> back = checkpoint::ReadGgufFromBuffer(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()),
        nullptr);
    ASSERT_TRUE(back.ok()) << back.status();
    absl::StatusOr<Tokenizer> tok2 = Tokenizer::FromGguf(*back);
    ASSERT_TRUE(tok2.ok()) << tok2.status();
    for (const char* text : {"hello hello", " he\xc3\xa9llo\n", ""}) {
      EXPECT_EQ(*tok->Encode(text), *tok2->Encode(text)) << text;
    }
    EXPECT_EQ(tok2->add_bos(), tok->add_bos());
    EXPECT_EQ(tok2->pre(), tok->pre());
  }
}

TEST(TokenizerTest, UnknownModelOrPreTokenizerListsTheSupportedOnes) {
  TensorDict d = SpmVocab();
  d.SetMetadata("tokenizer.ggml.model", MetadataValue::String("t5"));  // Unigram
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromGguf(d);
  ASSERT_FALSE(tok.ok());
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "unknown tokenizer model 't5'"));
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "llama")) << tok.status();
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "gpt2")) << tok.status();

  tok = Tokenizer::FromGguf(BpeVocab("kimi-k2"));
  ASSERT_FALSE(tok.ok());
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "unknown pre-tokenizer 'kimi-k2'"));
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "llama-bpe, ")) << tok.status();
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "qwen2")) << tok.status();
}

// Issue 27 F14: the tokenizer's booleans stored as strings or integers are refused, naming the
// key and the stored type, instead of being read as false (which changed the tokenization).
TEST(TokenizerTest, BooleanKeysOfAnotherTypeAreRefused) {
  struct Case {
    const char* model;
    const char* key;
    MetadataValue value;
    const char* type;
  };
  const Case cases[] = {
      {"llama", "tokenizer.ggml.add_space_prefix", MetadataValue::String("false"), "string"},
      {"llama", "tokenizer.ggml.add_space_prefix", MetadataValue::Int(0), "i64"},
      {"llama", "tokenizer.ggml.add_bos_token", MetadataValue::Int(1), "i64"},
      {"llama", "tokenizer.ggml.add_eos_token", MetadataValue::String("true"), "string"},
      {"bert", "tokenizer.ggml.normalizer.lowercase", MetadataValue::String("true"), "string"},
      {"bert", "tokenizer.ggml.normalizer.strip_accents",
       MetadataValue::Int(1, MetadataValue::Width::kU8), "u8"},
  };
  for (const Case& c : cases) {
    TensorDict d = SpmVocab();
    d.SetMetadata("tokenizer.ggml.model", MetadataValue::String(c.model));
    ASSERT_TRUE(Tokenizer::FromGguf(d).ok()) << c.model;
    d.SetMetadata(c.key, c.value);
    absl::StatusOr<Tokenizer> tok = Tokenizer::FromGguf(d);
    ASSERT_FALSE(tok.ok()) << c.key;
    EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(tok.status().message(),
              absl::StrCat("GGUF metadata '", c.key, "' is ", c.type, ", expected a scalar bool"));
  }
  // Real bools are still read.
  TensorDict d = SpmVocab();
  d.SetMetadata("tokenizer.ggml.add_bos_token", MetadataValue::Bool(false));
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromGguf(d);
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_FALSE(tok->add_bos());
}

// Issue 27: a 10 MB tokenizer model name, pre-tokenizer name or merge is quoted, cut short.
TEST(TokenizerTest, HugeNamesAreQuotedShortInErrors) {
  const std::string huge(10 << 20, 'x');
  TensorDict d = SpmVocab();
  d.SetMetadata("tokenizer.ggml.model", MetadataValue::String(huge));
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromGguf(d);
  ASSERT_FALSE(tok.ok());
  EXPECT_LT(tok.status().message().size(), 400u) << tok.status().message().substr(0, 400);
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "(10485760 bytes)"));
  tok = Tokenizer::FromGguf(BpeVocab(huge));
  ASSERT_FALSE(tok.ok());
  EXPECT_LT(tok.status().message().size(), 4000u);
  d = BpeVocab("gpt-2");
  d.SetMetadata("tokenizer.ggml.merges", MetadataValue::StringArray({huge}));
  tok = Tokenizer::FromGguf(d);
  ASSERT_FALSE(tok.ok());
  EXPECT_LT(tok.status().message().size(), 400u);
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "tokenizer.ggml.merges")) << tok.status();
}

TEST(TokenizerTest, InconsistentMetadataIsAnErrorNamingTheKey) {
  TensorDict d = SpmVocab();
  d.SetMetadata("tokenizer.ggml.scores", MetadataValue::FloatArray({1.0, 2.0}));
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromGguf(d);
  ASSERT_FALSE(tok.ok());
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "tokenizer.ggml.scores")) << tok.status();

  // A special-token id outside the vocabulary (files write 0xFFFFFFFF for "none") keeps the
  // default, as in llama.cpp; stories260K.gguf's padding_token_id is one.
  d = SpmVocab();
  const int default_bos = Tokenizer::FromGguf(d)->bos_id();
  d.SetMetadata("tokenizer.ggml.bos_token_id", MetadataValue::Int(1 << 20));
  d.SetMetadata("tokenizer.ggml.padding_token_id", MetadataValue::Int(4294967295));
  tok = Tokenizer::FromGguf(d);
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->bos_id(), default_bos);
  EXPECT_EQ(tok->pad_id(), -1);

  d = BpeVocab("gpt-2");
  d.SetMetadata("tokenizer.ggml.merges", MetadataValue::StringArray({"nospace"}));
  tok = Tokenizer::FromGguf(d);
  ASSERT_FALSE(tok.ok());
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "tokenizer.ggml.merges")) << tok.status();

  d = TensorDict();
  tok = Tokenizer::FromGguf(d);
  ASSERT_FALSE(tok.ok());
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "tokenizer.ggml.model")) << tok.status();
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// A byte-level BPE tokenizer.json with a few tokens.
std::string HfJson(const std::string& model_type, const std::string& pre) {
  return R"({"added_tokens": [{"id": 5, "content": "<|eot|>", "special": true}],
    "normalizer": null, "pre_tokenizer": )" +
         pre + R"(,
    "post_processor": null, "decoder": null,
    "model": {"type": ")" +
         model_type + R"(", "vocab": {"a": 0, "b": 1, "ab": 2, "\u0120": 3, "\u0120ab": 4},
      "merges": ["a b", ["\u0120", "ab"]]}})";
}

TEST(TokenizerTest, HfTokenizerJsonByteLevel) {
  const std::string path =
      WriteTemp("ok.json", HfJson("BPE", R"({"type": "ByteLevel", "add_prefix_space": false})"));
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromHfTokenizerJson(path);
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->pre(), "gpt-2");
  absl::StatusOr<std::vector<int32_t>> ids =
      tok->Encode("ab ab<|eot|>", {.add_special = true, .parse_special = true});
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(*ids, (std::vector<int32_t>{2, 4, 5}));
  EXPECT_EQ(tok->Decode(*ids), "ab ab");
  EXPECT_EQ(tok->Decode(*ids, {.unparse_special = true}), "ab ab<|eot|>");
  EXPECT_EQ(tok->token_attr(5) & kAttrControl, kAttrControl);
}

TEST(TokenizerTest, HfTokenizerJsonErrorsNameTheProblem) {
  struct Case {
    std::string json;
    const char* message;
  } cases[] = {
      {HfJson("WordPiece", R"({"type": "ByteLevel"})"), "model type \"WordPiece\""},
      {HfJson("BPE", R"({"type": "Whitespace"})"), "pre-tokenizer \"Whitespace\""},
      {HfJson("BPE",
              R"({"type": "Split", "pattern": {"Regex": "(?<=a)b"}, "behavior": "Isolated"})"),
       "(?<=a)b"},
      {"{\"model\": 3", "not valid JSON"},
      {R"({"model": {"type": "BPE", "vocab": {"a": "x"}, "merges": []}})", "model.vocab"},
      {R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a"]]}})", "model.merges"},
  };
  int i = 0;
  for (const Case& c : cases) {
    const std::string path = WriteTemp("bad" + std::to_string(i++) + ".json", c.json);
    absl::StatusOr<Tokenizer> tok = Tokenizer::FromHfTokenizerJson(path);
    ASSERT_FALSE(tok.ok()) << c.json;
    EXPECT_TRUE(absl::StrContains(tok.status().message(), c.message)) << tok.status();
  }
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromHfTokenizerJson("/nonexistent/tokenizer.json");
  ASSERT_FALSE(tok.ok());
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "/nonexistent/tokenizer.json"));
}

}  // namespace
}  // namespace tokenizer
}  // namespace edgeq
