#include "jinja/text.h"

#include <string>
#include <vector>

#include "utf8proc.h"

namespace edgeq {
namespace jinja {

uint32_t DecodeUtf8(absl::string_view s, size_t* i) {
  const unsigned char c = s[*i];
  int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  if (*i + len > s.size()) len = 1;
  for (int k = 1; k < len; ++k) {
    if ((static_cast<unsigned char>(s[*i + k]) & 0xc0) != 0x80) len = 1;
  }
  uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3f);
  *i += len;
  return cp;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

std::vector<uint32_t> CodePoints(absl::string_view s) {
  std::vector<uint32_t> cps;
  size_t i = 0;
  while (i < s.size()) cps.push_back(DecodeUtf8(s, &i));
  return cps;
}

std::string FromCodePoints(const std::vector<uint32_t>& cps, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end && i < cps.size(); ++i) AppendUtf8(cps[i], &out);
  return out;
}

bool IsJsSpace(uint32_t cp) {
  switch (cp) {
    case 0x09:
    case 0x0a:
    case 0x0b:
    case 0x0c:
    case 0x0d:
    case 0x20:
    case 0xa0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202f:
    case 0x205f:
    case 0x3000:
    case 0xfeff:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200a;
  }
}

std::string TrimText(absl::string_view s, bool left, bool right, absl::string_view chars,
                     bool use_chars) {
  const std::vector<uint32_t> cps = CodePoints(s);
  std::vector<uint32_t> set;
  if (use_chars) set = CodePoints(chars);
  auto strip = [&](uint32_t cp) {
    if (!use_chars) return IsJsSpace(cp);
    for (uint32_t c : set) {
      if (c == cp) return true;
    }
    return false;
  };
  size_t b = 0, e = cps.size();
  if (left) {
    while (b < e && strip(cps[b])) ++b;
  }
  if (right) {
    while (e > b && strip(cps[e - 1])) --e;
  }
  return FromCodePoints(cps, b, e);
}

namespace {

std::string MapCase(absl::string_view s, bool upper) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const uint32_t cp = DecodeUtf8(s, &i);
    if (cp < 0x80) {
      out.push_back(static_cast<char>(upper ? (cp >= 'a' && cp <= 'z' ? cp - 32 : cp)
                                            : (cp >= 'A' && cp <= 'Z' ? cp + 32 : cp)));
      continue;
    }
    const utf8proc_int32_t mapped = upper ? utf8proc_toupper(static_cast<utf8proc_int32_t>(cp))
                                          : utf8proc_tolower(static_cast<utf8proc_int32_t>(cp));
    AppendUtf8(static_cast<uint32_t>(mapped), &out);
  }
  return out;
}

}  // namespace

std::string UpperText(absl::string_view s) { return MapCase(s, true); }
std::string LowerText(absl::string_view s) { return MapCase(s, false); }

std::string TitleText(absl::string_view s) {
  std::string out(s);
  bool prev_word = false;
  for (char& c : out) {
    const unsigned char u = static_cast<unsigned char>(c);
    const bool word = IsWordChar(u);
    if (word && !prev_word && u >= 'a' && u <= 'z') c = static_cast<char>(u - 32);
    prev_word = word;
  }
  return out;
}

std::string CapitalizeText(absl::string_view s) {
  if (s.empty()) return "";
  size_t i = 0;
  const uint32_t first = DecodeUtf8(s, &i);
  std::string out = UpperText(FromCodePoints({first}, 0, 1));
  out.append(s.data() + i, s.size() - i);
  return out;
}

}  // namespace jinja
}  // namespace edgeq
