// Helpers of the fuzz targets whose input is several files (a Hugging Face directory, a
// tokenizer.json with its tokenizer_config.json, a template with messages): the input is the
// files' bytes joined by kPartSeparator, and the files are written to one scratch directory per
// process (in /dev/shm when it exists, so that the writes cost no disk I/O).
#ifndef EDGEQ_TESTS_FUZZ_FUZZ_FILES_H_
#define EDGEQ_TESTS_FUZZ_FUZZ_FILES_H_

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace edgeq {
namespace fuzz {

inline constexpr absl::string_view kPartSeparator = "\n--8<--\n";

// The first `n` parts of `data` split at kPartSeparator (missing ones are empty, the last one
// takes the rest). `present[i]`: whether part i was in the input at all.
inline std::vector<std::string> SplitParts(absl::string_view data, size_t n,
                                           std::vector<bool>* present = nullptr) {
  std::vector<std::string> parts(n);
  if (present != nullptr) present->assign(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (present != nullptr) (*present)[i] = true;
    const size_t at = i + 1 < n ? data.find(kPartSeparator) : absl::string_view::npos;
    if (at == absl::string_view::npos) {
      parts[i] = std::string(data);
      break;
    }
    parts[i] = std::string(data.substr(0, at));
    data.remove_prefix(at + kPartSeparator.size());
  }
  return parts;
}

inline std::string JoinParts(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += std::string(kPartSeparator);
    out += parts[i];
  }
  return out;
}

// A directory of this process for the target's files, made on first use.
inline const std::string& ScratchDir() {
  static const std::string* const dir = [] {
    const char* shm = "/dev/shm";
    std::string base = ::access(shm, W_OK) == 0 ? shm : "/tmp";
    if (const char* t = std::getenv("TEST_TMPDIR")) base = t;
    std::string d = base + "/edgeq_fuzz_XXXXXX";
    if (::mkdtemp(d.data()) == nullptr) std::abort();
    return new std::string(d);
  }();
  return *dir;
}

// Writes `bytes` to ScratchDir()/name, or removes the file when `present` is false.
inline std::string PutFile(const std::string& name, const std::string& bytes, bool present = true) {
  const std::string path = ScratchDir() + "/" + name;
  if (!present) {
    ::unlink(path.c_str());
    return path;
  }
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) std::abort();
  std::fclose(f);
  return path;
}

// With EDGEQ_FUZZ_VERBOSE=1 in the environment, prints each input's outcome (to see what the
// seeds reach).
inline void Report(const absl::Status& s) {
  static const bool verbose = std::getenv("EDGEQ_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "fuzz: %s\n", s.ToString().substr(0, 300).c_str());
}

}  // namespace fuzz
}  // namespace edgeq

#endif  // EDGEQ_TESTS_FUZZ_FUZZ_FILES_H_
