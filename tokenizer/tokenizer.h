// tokenizer::Tokenizer: text <-> token ids for the vocabularies GGUF files carry (tokenizer.ggml.*)
// and for Hugging Face tokenizer.json files.
//
//   EDGEQ_ASSIGN_OR_RETURN(tokenizer::Tokenizer tok,
//   tokenizer::Tokenizer::FromGgufFile("model.gguf")); EDGEQ_ASSIGN_OR_RETURN(std::vector<int32_t>
//   ids,
//                          tok.Encode("Hello", {.add_special = true, .parse_special = false}));
//   tokenizer::StreamDecoder stream(tok);
//   for (int32_t id : ids) std::cout << stream.Push(id);
//   std::cout << stream.Flush();
//
// Models: "llama" (SentencePiece BPE with scores and <0xXX> byte fallback), "gpt2" (byte-level
// BPE with merge ranks and a pre-tokenizer chosen by tokenizer.ggml.pre) and "bert" (WordPiece:
// lower-cased, accents stripped, greedy longest match per word). Behaviour follows
// llama.cpp's llama-vocab.cpp (special-token partitioning, add_bos/add_eos, add_space_prefix,
// ignore_merges, clean-up of spaces when decoding), which is what its vocabulary tests check.
#ifndef EDGEQ_TOKENIZER_TOKENIZER_H_
#define EDGEQ_TOKENIZER_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"
#include "tokenizer/regex.h"

namespace edgeq {
namespace tokenizer {

// Token attributes (llama.cpp's llama_token_attr bits; GGUF token_type values map onto them).
enum TokenAttr : uint32_t {
  kAttrUndefined = 0,
  kAttrUnknown = 1u << 0,
  kAttrUnused = 1u << 1,
  kAttrNormal = 1u << 2,
  kAttrControl = 1u << 3,
  kAttrUserDefined = 1u << 4,
  kAttrByte = 1u << 5,
  kAttrLstrip = 1u << 7,
  kAttrRstrip = 1u << 8,
};

class Tokenizer {
 public:
  enum class Model { kSpm, kBpe, kWpm };

  // From a GGUF's metadata (tokenizer.ggml.model, .pre, .tokens, .scores, .token_type, .merges,
  // .bos/eos/unknown/padding_token_id, .add_bos_token, .add_eos_token, .add_space_prefix).
  // An unknown model or pre-tokenizer is InvalidArgument naming it and listing the supported
  // ones; missing or inconsistent arrays are errors naming the key.
  static absl::StatusOr<Tokenizer> FromGguf(const checkpoint::TensorDict& dict);
  static absl::StatusOr<Tokenizer> FromGgufFile(const std::string& path);
  // From a Hugging Face tokenizer.json (model type BPE: byte-level like Llama 3 / Qwen, or with
  // byte fallback and "▁" for spaces like Gemma). `config_path` (tokenizer_config.json, may be
  // empty) supplies add_bos_token / add_eos_token / bos_token / eos_token when present.
  // Normalizers (NFC, NFKC, Lowercase; Prepend/Replace of "▁" and Metaspace become the llama
  // model's space handling), pre-tokenizers (ByteLevel, Split regexes, Metaspace) and the BPE
  // model are read as edgeq runs them; anything else is refused naming it. A "▁" vocabulary
  // with a prefix space and byte_fallback (Llama 2, Mistral, TinyLlama, Phi-3) becomes the
  // "llama" (SentencePiece) model with scores from the merge ranks.
  static absl::StatusOr<Tokenizer> FromHfTokenizerJson(const std::string& path,
                                                       const std::string& config_path = "");
  // From a SentencePiece tokenizer.model (BPE model type, identity normalization), as llama.cpp's
  // converter writes it: the "llama" model with the file's scores and piece types (user-defined
  // pieces as normal ones), its unk/bos/eos/pad ids and add_dummy_prefix. `config_path`
  // (tokenizer_config.json, may be empty) supplies add_bos_token / add_eos_token and its
  // added_tokens_decoder entries (control if special, else user-defined; score -1000), as there.
  static absl::StatusOr<Tokenizer> FromSentencePieceModel(const std::string& path,
                                                          const std::string& config_path = "");
  // The tokenizer of a Hugging Face model directory: tokenizer.json if present, else
  // tokenizer.model, each with tokenizer_config.json if present. NotFound if it has neither.
  static absl::StatusOr<Tokenizer> FromHfDirectory(const std::string& dir);

  static std::vector<std::string> SupportedModels();
  static std::vector<std::string> SupportedPreTokenizers();

  struct EncodeOptions {
    bool add_special = true;     // add BOS/EOS as the vocabulary asks (add_bos/add_eos)
    bool parse_special = false;  // match control tokens ("<|eot_id|>") in the text
  };
  // Errors only for pathological input the pre-tokenizer refuses (ResourceExhausted).
  absl::StatusOr<std::vector<int32_t>> Encode(absl::string_view text, EncodeOptions options) const;
  absl::StatusOr<std::vector<int32_t>> Encode(absl::string_view text) const {
    return Encode(text, EncodeOptions());
  }

  // The bytes one token stands for (llama.cpp's token_to_piece with lstrip 0): SPM "▁" ->
  // space, <0xXX> -> that byte, byte-level BPE unmapped to raw bytes. Control/unknown tokens
  // give their text if `special`, else nothing. Out-of-range ids give nothing.
  std::string TokenToPiece(int32_t id, bool special = true) const;
  // The bytes a grammar matches for one token (constrained sampling): TokenToPiece without
  // special text, so control, unknown and unused tokens give an empty piece (never allowed).
  std::string TokenBytes(int32_t id) const;

  struct DecodeOptions {
    bool remove_special = false;   // drop a leading BOS / trailing EOS the vocabulary adds
    bool unparse_special = false;  // render control tokens as their text
    bool clean_spaces = true;      // apply the vocabulary's clean-up (" ," -> "," ...) if it has
                                   // one (gpt-2 style); false gives the exact concatenation
  };
  // Concatenated pieces (llama.cpp's detokenize): with add_space_prefix the first piece's
  // leading space is removed. May contain split UTF-8 if the ids do.
  std::string Decode(absl::Span<const int32_t> ids, DecodeOptions options) const;
  std::string Decode(absl::Span<const int32_t> ids) const { return Decode(ids, DecodeOptions()); }

  Model model() const { return model_; }
  const std::string& model_name() const { return model_name_; }
  const std::string& pre() const { return pre_; }
  int32_t n_tokens() const { return static_cast<int32_t>(tokens_.size()); }
  const std::string& token_text(int32_t id) const;
  uint32_t token_attr(int32_t id) const;
  float token_score(int32_t id) const;
  // -1 if absent.
  int32_t TokenId(absl::string_view text) const;
  int32_t bos_id() const { return bos_id_; }
  int32_t eos_id() const { return eos_id_; }
  int32_t eot_id() const { return eot_id_; }
  int32_t unk_id() const { return unk_id_; }
  int32_t pad_id() const { return pad_id_; }
  bool add_bos() const { return add_bos_; }
  bool add_eos() const { return add_eos_; }
  bool add_space_prefix() const { return add_space_prefix_; }
  // Unicode normalizers Encode applies to each piece of text between special tokens, in order
  // (Hugging Face normalizers; stored in GGUF as tokenizer.edgeq.normalizers).
  enum class Normalizer { kNfc, kNfkc, kLowercase };
  const std::vector<Normalizer>& normalizers() const { return normalizers_; }
  // True if Encode applies NFC (Hugging Face normalizer "NFC").
  bool normalizes_nfc() const;
  // `text` through normalizers().
  std::string Normalize(absl::string_view text) const;
  // Ids that end generation: eos, eot, eom, and control/user-defined tokens whose text ends a
  // turn in common chat formats (<|eot_id|>, <|im_end|>, <|end|>, <end_of_turn>, <|endoftext|>,
  // <EOT>), as llama.cpp collects them.
  const std::vector<int32_t>& eog_ids() const { return eog_ids_; }
  bool IsEndOfGeneration(int32_t id) const;

  // Writes this vocabulary as GGUF tokenizer.ggml.* metadata (what FromGguf reads back), and
  // its normalizers as tokenizer.edgeq.normalizers (NFC, NFKC, Lowercase). A Gemma-style
  // tokenizer.json becomes pre "gemma4", which (as in llama.cpp) also splits at newlines. A
  // tokenizer.json whose split patterns have no GGUF pre-tokenizer name (it runs from the json
  // only) is refused: InvalidArgument naming the first pattern, never an unusable file.
  absl::Status ToGgufMetadata(checkpoint::TensorDict* dict) const;

 private:
  struct Token {
    std::string text;
    float score = 0.0f;
    uint32_t attr = kAttrNormal;
  };
  struct Fragment {
    int32_t token = -1;  // >= 0: a special token
    size_t offset = 0, length = 0;
  };

  absl::Status Finish(absl::string_view pre);
  // FromGguf's steps (tokenizer_gguf.cc).
  absl::Status SetModelFromGguf(const checkpoint::TensorDict& dict);
  absl::Status ReadGgufVocabulary(const checkpoint::TensorDict& dict);
  absl::Status ReadGgufSpecialIds(const checkpoint::TensorDict& dict);
  absl::Status SetPreTokenizer(absl::string_view pre);
  void Partition(absl::string_view text, bool parse_special, std::vector<Fragment>* out) const;
  void EncodeSpm(absl::string_view text, std::vector<int32_t>* out) const;
  void EncodeWpm(absl::string_view text, std::vector<int32_t>* out) const;
  absl::Status EncodeBpe(absl::string_view text, std::vector<int32_t>* out) const;
  void BpeWord(absl::string_view word, std::vector<int32_t>* out) const;
  int32_t ByteToToken(uint8_t byte) const;
  // Registers the next merge (rank = number of merges so far; a repeated pair keeps its first
  // rank). A pair whose halves are not both tokens can never apply and is dropped.
  void AddMerge(absl::string_view left, absl::string_view right);

  Model model_ = Model::kSpm;
  std::string model_name_;
  std::string pre_;
  std::vector<Token> tokens_;
  absl::flat_hash_map<std::string, int32_t> token_to_id_;
  // (left id << 32 | right id) -> merge rank.
  absl::flat_hash_map<uint64_t, int32_t> bpe_merges_;
  std::vector<int32_t> special_tokens_;  // longest text first
  std::vector<int32_t> eog_ids_;
  std::vector<PreTokenizerRegex> regexes_;
  std::vector<std::pair<int32_t, int32_t>> merge_list_;  // by rank, for ToGgufMetadata

  int32_t sep_id_ = -1;
  bool add_sep_ = false;
  bool wpm_lowercase_ = true, wpm_strip_accents_ = true;
  size_t max_token_len_ = 0;
  int32_t bos_id_ = -1, eos_id_ = -1, eot_id_ = -1, eom_id_ = -1, unk_id_ = -1, pad_id_ = -1;
  bool add_bos_ = false, add_eos_ = false;
  bool add_space_prefix_ = false;
  bool escape_whitespaces_ = true;  // SPM-style: ' ' -> U+2581 before the model
  bool byte_encode_ = true;         // BPE: GPT-2 byte-level mapping
  bool ignore_merges_ = false;
  bool clean_spaces_ = false;
  std::vector<Normalizer> normalizers_;
  std::vector<std::string> hf_patterns_;  // split patterns without a GGUF name (pre "hf-regex")
  bool bpe_byte_fallback_ = false;        // BPE: <0xXX> tokens for bytes not in the vocabulary

  friend class StreamDecoder;
  friend class HfTokenizerBuilder;
};

// Turns a stream of ids into text that never ends inside a UTF-8 character: bytes of an
// incomplete character are held until the next token completes it (or Flush). Invalid bytes
// that can never form a character are passed through as they are.
class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer, bool special = false)
      : tok_(&tokenizer), special_(special) {}
  // Text that became complete with `id`.
  std::string Push(int32_t id);
  // Whatever is held back (an incomplete character at the end of the stream).
  std::string Flush();
  void Reset() { pending_.clear(); }

 private:
  const Tokenizer* tok_;
  bool special_;
  std::string pending_;
};

}  // namespace tokenizer
}  // namespace edgeq

#endif  // EDGEQ_TOKENIZER_TOKENIZER_H_
