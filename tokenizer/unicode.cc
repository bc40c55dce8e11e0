#include "tokenizer/unicode.h"

#include <cstdlib>
#include <memory>

#include "utf8proc.h"

namespace edgeq {
namespace tokenizer {

size_t Utf8SequenceLength(uint8_t lead) {
  if (lead < 0xC0) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  if (lead < 0xF8) return 4;
  return 1;
}

CodePoints DecodeUtf8(absl::string_view text) {
  CodePoints out;
  out.cps.reserve(text.size());
  out.offsets.reserve(text.size() + 1);
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    out.offsets.push_back(i);
    const uint8_t b = s[i];
    if (b < 0x80) {
      out.cps.push_back(b);
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    uint32_t min = 0;
    if ((b & 0xE0) == 0xC0) {
      len = 2, cp = b & 0x1F, min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3, cp = b & 0x0F, min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4, cp = b & 0x07, min = 0x10000;
    }
    bool ok = len != 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) {
        ok = false;
      } else {
        cp = (cp << 6) | (s[i + k] & 0x3F);
      }
    }
    if (ok && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
    if (ok) {
      out.cps.push_back(cp);
      i += len;
    } else {
      out.cps.push_back(0xFFFD);
      ++i;
    }
  }
  out.offsets.push_back(n);
  return out;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

uint32_t CategoryBit(uint32_t cp) {
  if (cp > 0x10FFFF) return 1u;  // Cn
  return 1u << static_cast<int>(utf8proc_category(static_cast<utf8proc_int32_t>(cp)));
}

bool IsWhiteSpace(uint32_t cp) {
  // The White_Space property (PropList.txt); it is a fixed, short list.
  switch (cp) {
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x20:
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

uint32_t ToLower(uint32_t cp) {
  return cp > 0x10FFFF ? cp : static_cast<uint32_t>(utf8proc_tolower(static_cast<int32_t>(cp)));
}
uint32_t ToUpper(uint32_t cp) {
  return cp > 0x10FFFF ? cp : static_cast<uint32_t>(utf8proc_toupper(static_cast<int32_t>(cp)));
}

namespace {

// utf8proc's NUL-terminated normalizers over text that may hold NULs (normalized piecewise).
std::string NormalizeWith(absl::string_view text,
                          utf8proc_uint8_t* (*normalize)(const utf8proc_uint8_t*)) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\0', start);
    if (end == absl::string_view::npos) end = text.size();
    const std::string piece(text.substr(start, end - start));
    utf8proc_uint8_t* nfc = normalize(reinterpret_cast<const utf8proc_uint8_t*>(piece.c_str()));
    if (nfc == nullptr) {
      out += piece;
    } else {
      out += reinterpret_cast<const char*>(nfc);
      std::free(nfc);
    }
    if (end == text.size()) break;
    out.push_back('\0');
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string NormalizeNfc(absl::string_view text) { return NormalizeWith(text, utf8proc_NFC); }
std::string NormalizeNfkc(absl::string_view text) { return NormalizeWith(text, utf8proc_NFKC); }

std::string LowercaseUtf8(absl::string_view text) {
  const CodePoints cps = DecodeUtf8(text);
  std::string out;
  out.reserve(text.size());
  for (uint32_t cp : cps.cps) AppendUtf8(ToLower(cp), &out);
  return out;
}

std::vector<uint32_t> DecomposeNfd(uint32_t cp) {
  utf8proc_int32_t buf[8];
  int last = 0;
  const utf8proc_ssize_t n =
      utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), buf, 8, UTF8PROC_DECOMPOSE, &last);
  if (cp > 0x10FFFF || n <= 0 || n > 8) return {cp};
  return std::vector<uint32_t>(buf, buf + n);
}

namespace {
struct ByteTables {
  uint32_t byte_to_cp[256];
  int cp_to_byte[324];  // images are all below U+0144
  ByteTables() {
    for (int& b : cp_to_byte) b = -1;
    int next = 0;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      byte_to_cp[b] = printable ? static_cast<uint32_t>(b) : static_cast<uint32_t>(256 + next++);
      cp_to_byte[byte_to_cp[b]] = b;
    }
  }
};
const ByteTables& Tables() {
  static const ByteTables* const tables = new ByteTables();
  return *tables;
}
}  // namespace

uint32_t ByteToCodePoint(uint8_t byte) { return Tables().byte_to_cp[byte]; }

int CodePointToByte(uint32_t cp) { return cp < 324 ? Tables().cp_to_byte[cp] : -1; }

std::string ByteLevelEncode(absl::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) AppendUtf8(ByteToCodePoint(static_cast<uint8_t>(c)), &out);
  return out;
}

}  // namespace tokenizer
}  // namespace edgeq
