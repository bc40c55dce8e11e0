#include "core/bounded_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace edgeq {

absl::StatusOr<std::string> ReadFileBounded(const std::string& path, size_t max_bytes,
                                            absl::string_view what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrFormat("%s %s: cannot open (%s)", what,
                                               QuoteForError(path, 256), std::strerror(errno)));
  }
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(
        absl::StrFormat("%s %s: is a directory, expected a file", what, QuoteForError(path, 256)));
  }
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) > static_cast<uint64_t>(max_bytes)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s %s: %d bytes, above the limit of %d bytes", what, QuoteForError(path, 256),
        static_cast<int64_t>(st.st_size), static_cast<int64_t>(max_bytes)));
  }
  // Read in chunks of 1 MiB kept apart, joined at the end: refusing an endless stream then costs
  // at most max_bytes of memory (a growing string would hold up to 1.5x that while it reallocates).
  std::vector<std::string> chunks;
  size_t total = 0;
  constexpr size_t kChunk = size_t{1} << 20;
  while (true) {
    // total <= max_bytes here, so want >= 1: a chunk that fills up to max_bytes + 1 proves the
    // input too long.
    const size_t want = std::min(kChunk, max_bytes + 1 - total);
    std::string chunk(want, '\0');
    size_t filled = 0;
    bool eof = false;
    while (filled < want) {
      const ssize_t n = ::read(fd, chunk.data() + filled, want - filled);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int err = errno;
        ::close(fd);
        return absl::DataLossError(absl::StrFormat("%s %s: read failed (%s)", what,
                                                   QuoteForError(path, 256), std::strerror(err)));
      }
      if (n == 0) {
        eof = true;
        break;
      }
      filled += static_cast<size_t>(n);
    }
    total += filled;
    if (total > max_bytes) {
      ::close(fd);
      return absl::InvalidArgumentError(absl::StrFormat("%s %s: longer than the limit of %d bytes",
                                                        what, QuoteForError(path, 256),
                                                        static_cast<int64_t>(max_bytes)));
    }
    chunk.resize(filled);
    if (filled > 0) chunks.push_back(std::move(chunk));
    if (eof) break;
  }
  ::close(fd);
  if (chunks.size() == 1) return std::move(chunks[0]);
  std::string out;
  out.reserve(total);
  for (const std::string& c : chunks) out += c;
  return out;
}

std::string QuoteForError(absl::string_view s, size_t max_chars) {
  std::string out = "'";
  size_t shown = 0;
  for (; shown < s.size() && shown < max_chars; ++shown) {
    const unsigned char c = static_cast<unsigned char>(s[shown]);
    if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\') {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('\'');
  if (shown < s.size()) absl::StrAppendFormat(&out, "... (%d bytes)", s.size());
  return out;
}

std::optional<int64_t> ParseDecimalInt64(absl::string_view s) {
  bool negative = false;
  if (!s.empty() && s[0] == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  if (s.empty() || s.size() > 19) return std::nullopt;
  if (s[0] == '0' && s.size() > 1) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');  // 19 digits fit in uint64_t
  }
  const uint64_t limit =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
  if (v > limit) return std::nullopt;
  if (negative && s == "0") return std::nullopt;  // "-0" is not a number we write
  return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

absl::Status CheckJsonDepth(absl::string_view text, int max_depth, absl::string_view what) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: JSON nested deeper than %d levels (at byte %d)", what, max_depth, i));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return absl::OkStatus();
}

}  // namespace edgeq
