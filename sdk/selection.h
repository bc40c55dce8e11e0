// The selective build (sdk/selection.bzl): which architectures, encodings, ISAs, checkpoint
// formats and ops this build keeps. The lists are comma-separated names; "" keeps everything (the
// default build).
#ifndef EDGEQ_SDK_SELECTION_H_
#define EDGEQ_SDK_SELECTION_H_

#include <string>
#include <string_view>

// Bazel generates the lists (//sdk:selection); a build without it (tests/fuzz/run_fuzzers.sh
// compiles sources directly) keeps everything.
#if __has_include("sdk/selection_lists.h")
#include "sdk/selection_lists.h"
#else
namespace edgeq {
namespace selection {
inline constexpr char kArchs[] = "";
inline constexpr char kEncodings[] = "";
inline constexpr char kIsas[] = "";
inline constexpr char kFormats[] = "";
inline constexpr char kOps[] = "";
}  // namespace selection
}  // namespace edgeq
#endif

namespace edgeq {
namespace selection {

// Whether `name` is one of `list`'s comma-separated names ("" holds every name). A constant
// expression when both are, so tables can drop the rows a build leaves out.
constexpr bool Selected(std::string_view list, std::string_view name) {
  if (list.empty()) return true;
  while (true) {
    const size_t comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

// "llama, qwen3" for a list "llama,qwen3" (error messages: "built with: llama, qwen3").
inline std::string BuiltWith(std::string_view list) {
  std::string s;
  for (char c : list) {
    s += c;
    if (c == ',') s += ' ';
  }
  return s;
}

}  // namespace selection
}  // namespace edgeq

#endif  // EDGEQ_SDK_SELECTION_H_
