// The split patterns of Hugging Face tokenizer.json files that edgeq has a GGUF pre-tokenizer
// name for, as those files spell them (Split pre-tokenizers, behavior Isolated, in order).
// tokenizer_hf.cc maps a file's patterns to the name; tokenizer.cc runs the names that llama.cpp
// writes with other spellings (llama-bpe, qwen2, gpt-2) with its own patterns, and these two
// with the patterns below.
#ifndef EDGEQ_TOKENIZER_HF_PATTERNS_H_
#define EDGEQ_TOKENIZER_HF_PATTERNS_H_

namespace edgeq {
namespace tokenizer {
namespace hf_patterns {

inline constexpr char kLlama3[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+"
    "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
inline constexpr char kQwen2[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+"
    "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
inline constexpr char kGpt2[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
// DeepSeek V3 (llama.cpp's "deepseek-v3"): digits, then CJK runs, then the rest.
inline constexpr char kDeepseekV3Digits[] = "\\p{N}{1,3}";
inline constexpr char kDeepseekV3Cjk[] =
    "[\xe4\xb8\x80-\xe9\xbe\xa5\xe3\x81\x80-\xe3\x82\x9f\xe3\x82\xa0-\xe3\x83\xbf]+";
inline constexpr char kDeepseekV3Words[] =
    "[!\"#$%&'()*+,\\-./"
    ":;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+|"
    " ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";
// GPT-4o / gpt-oss (llama.cpp's "gpt-4o").
inline constexpr char kGpt4o[] =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+"
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+"
    "[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+"
    "[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

}  // namespace hf_patterns
}  // namespace tokenizer
}  // namespace edgeq

#endif  // EDGEQ_TOKENIZER_HF_PATTERNS_H_
