// Unicode helpers for the tokenizers: UTF-8 decoding with byte offsets, general categories
// (from utf8proc), the White_Space property, NFC, and GPT-2's byte <-> code point mapping.
#ifndef EDGEQ_TOKENIZER_UNICODE_H_
#define EDGEQ_TOKENIZER_UNICODE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace edgeq {
namespace tokenizer {

// Code points of a UTF-8 string with the byte offset each one starts at (offsets has one more
// entry: the string's size). An invalid or truncated sequence becomes U+FFFD covering one byte,
// so every byte belongs to exactly one code point.
struct CodePoints {
  std::vector<uint32_t> cps;
  std::vector<size_t> offsets;
};
CodePoints DecodeUtf8(absl::string_view text);

// Appends the UTF-8 encoding of `cp` (U+FFFD for values above U+10FFFF or surrogates).
void AppendUtf8(uint32_t cp, std::string* out);

// Length in bytes of the UTF-8 sequence a lead byte announces (1 for ASCII and for bytes that
// cannot start a sequence).
size_t Utf8SequenceLength(uint8_t lead);

// Unicode general category bits, one per utf8proc category (bit index = utf8proc value).
enum CategoryMask : uint32_t {
  kCatLu = 1u << 1,
  kCatLl = 1u << 2,
  kCatLt = 1u << 3,
  kCatLm = 1u << 4,
  kCatLo = 1u << 5,
  kCatL = kCatLu | kCatLl | kCatLt | kCatLm | kCatLo,
  kCatM = (1u << 6) | (1u << 7) | (1u << 8),
  kCatNd = 1u << 9,
  kCatN = (1u << 9) | (1u << 10) | (1u << 11),
  kCatP = (1u << 12) | (1u << 13) | (1u << 14) | (1u << 15) | (1u << 16) | (1u << 17) | (1u << 18),
  kCatS = (1u << 19) | (1u << 20) | (1u << 21) | (1u << 22),
  kCatZ = (1u << 23) | (1u << 24) | (1u << 25),
  kCatC = (1u << 0) | (1u << 26) | (1u << 27) | (1u << 28) | (1u << 29),
};
// The single category bit of `cp` (utf8proc).
uint32_t CategoryBit(uint32_t cp);
// Unicode's White_Space property (what \s means in the pre-tokenizer patterns).
bool IsWhiteSpace(uint32_t cp);
// Simple case mappings (utf8proc).
uint32_t ToLower(uint32_t cp);
uint32_t ToUpper(uint32_t cp);

// NFC normalization (utf8proc). Invalid UTF-8 is returned unchanged.
std::string NormalizeNfc(absl::string_view text);
// NFKC normalization (utf8proc). Invalid UTF-8 is returned unchanged.
std::string NormalizeNfkc(absl::string_view text);
// Every code point through ToLower (simple case mapping; invalid bytes become U+FFFD).
std::string LowercaseUtf8(absl::string_view text);
// NFD of one code point (utf8proc): its canonical decomposition.
std::vector<uint32_t> DecomposeNfd(uint32_t cp);

// GPT-2's reversible byte -> printable code point mapping ("bytes_to_unicode"): printable
// Latin-1 bytes map to themselves, the other 68 bytes to U+0100.. in byte order.
uint32_t ByteToCodePoint(uint8_t byte);
// The inverse; -1 for a code point that is not the image of a byte.
int CodePointToByte(uint32_t cp);
// Every byte of `bytes` mapped to its code point, as UTF-8.
std::string ByteLevelEncode(absl::string_view bytes);

}  // namespace tokenizer
}  // namespace edgeq

#endif  // EDGEQ_TOKENIZER_UNICODE_H_
