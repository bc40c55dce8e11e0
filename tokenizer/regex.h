// A small backtracking regular-expression engine over Unicode code points, for the
// pre-tokenizer patterns of BPE vocabularies (GPT-2, Llama 3, Qwen2, DeepSeek, ... as written in
// llama.cpp's llama-vocab.cpp and in Hugging Face tokenizer.json files).
//
// Supported: literals (UTF-8), '.', classes [...] / [^...] with ranges, \p{L} \p{N} \p{P} \p{S}
// \p{M} \p{Z} \p{C} and their two-letter subcategories (Lu, Ll, Lt, Lm, Lo, Nd, ...), \P{..},
// \s \S \d \D \w \W, escapes \r \n \t \f \v \xHH \x{H..} \uHHHH; groups (...) (?:...) (?i:...);
// lookahead (?=...) (?!...); anchors ^ $; quantifiers * + ? {n} {n,} {n,m}, lazy with '?'.
// Semantics are leftmost-first (Perl/ECMAScript): alternatives in order, greedy by default.
// Categories come from utf8proc; \s is the White_Space property.
#ifndef EDGEQ_TOKENIZER_REGEX_H_
#define EDGEQ_TOKENIZER_REGEX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace edgeq {
namespace tokenizer {

class PreTokenizerRegex {
 public:
  // InvalidArgument naming the pattern and the position of the problem.
  static absl::StatusOr<PreTokenizerRegex> Compile(absl::string_view pattern);

  const std::string& pattern() const { return pattern_; }

  enum class Result { kMatch, kNoMatch, kTooComplex };
  // Leftmost match in cps[from, end) (the subject is cps[begin, end): '^' matches at begin,
  // '$' and lookahead stop at end). On kMatch sets [*match_begin, *match_end).
  Result Search(const uint32_t* cps, size_t begin, size_t end, size_t from, size_t* match_begin,
                size_t* match_end) const;

  struct CharClass {
    struct Item {
      enum Kind : uint8_t { kRange, kCategory, kSpace, kDigit, kWord, kAny } kind;
      bool negated;
      uint32_t lo, hi, mask;
    };
    std::vector<Item> items;
    bool negated = false;
    bool icase = false;
    uint64_t ascii[2] = {0, 0};  // precomputed membership of U+0000..U+007F
    bool MatchesSlow(uint32_t cp) const;
    bool Matches(uint32_t cp) const {
      if (cp < 128) return (ascii[cp >> 6] >> (cp & 63)) & 1;
      return MatchesSlow(cp);
    }
  };
  struct Inst {
    enum Op : uint8_t { kClass, kSplit, kJmp, kMatch, kBegin, kEnd, kLook } op;
    bool negate = false;
    int x = 0, y = 0;
  };

 private:
  bool Run(const uint32_t* cps, size_t begin, size_t end, int pc, size_t pos, size_t* out_end,
           int depth, int64_t* budget) const;

  std::string pattern_;
  std::vector<CharClass> classes_;
  std::vector<Inst> prog_;
};

// Splits `text` as llama.cpp's unicode_regex_split does: each pattern in turn splits every
// fragment left by the previous one into its matches and the text between them (both kept).
// Returns the fragments as byte ranges of `text`, in order, covering it exactly.
absl::StatusOr<std::vector<std::pair<size_t, size_t>>> RegexSplit(
    absl::string_view text, const std::vector<PreTokenizerRegex>& patterns);

}  // namespace tokenizer
}  // namespace edgeq

#endif  // EDGEQ_TOKENIZER_REGEX_H_
