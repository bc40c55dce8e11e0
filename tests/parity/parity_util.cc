#include "tests/parity/parity_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "checkpoint/gguf.h"
#include "checkpoint/tensor_dict.h"
#include "core/status_macros.h"
#include "llm/perplexity.h"
#include "llm/random_model.h"
#include "xxhash.h"

namespace edgeq {
namespace parity {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

absl::StatusOr<std::vector<int>> ParseIds(absl::string_view text, const std::string& what) {
  std::vector<int> ids;
  for (absl::string_view w : absl::StrSplit(text, ' ', absl::SkipWhitespace())) {
    int v = 0;
    if (!absl::SimpleAtoi(w, &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": '", w, "' is not an integer token id or position"));
    }
    ids.push_back(v);
  }
  return ids;
}

// The value after "prefix" on the sidecar line that starts with it ("tokens (23): 1 9038 ...").
absl::StatusOr<std::string> SidecarLine(const std::string& text, absl::string_view prefix,
                                        const std::string& path) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, prefix)) continue;
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) break;
    return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  return absl::InvalidArgumentError(absl::StrCat(path, ": no line starting with '", prefix, "'"));
}

}  // namespace

absl::StatusOr<Reference> ReadReference(const std::string& stem) {
  const std::string txt_path = stem + ".txt";
  EDGEQ_ASSIGN_OR_RETURN(std::string txt, ReadFile(txt_path));
  Reference ref;
  EDGEQ_ASSIGN_OR_RETURN(std::string n_vocab, SidecarLine(txt, "n_vocab:", txt_path));
  if (!absl::SimpleAtoi(n_vocab, &ref.n_vocab) || ref.n_vocab <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(txt_path, ": n_vocab '", n_vocab, "' is not a positive integer"));
  }
  EDGEQ_ASSIGN_OR_RETURN(std::string tokens, SidecarLine(txt, "tokens (", txt_path));
  EDGEQ_ASSIGN_OR_RETURN(ref.tokens, ParseIds(tokens, txt_path + " tokens"));
  EDGEQ_ASSIGN_OR_RETURN(std::string positions, SidecarLine(txt, "positions (", txt_path));
  EDGEQ_ASSIGN_OR_RETURN(ref.positions, ParseIds(positions, txt_path + " positions"));
  if (ref.tokens.empty() || ref.positions.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(txt_path, ": no tokens or no positions"));
  }
  for (int p : ref.positions) {
    if (p < 0 || p >= static_cast<int>(ref.tokens.size())) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: position %d is outside the %d prompt tokens", txt_path, p, ref.tokens.size()));
    }
  }
  const std::string rows_path = stem + ".batch.f32";
  EDGEQ_ASSIGN_OR_RETURN(std::string rows, ReadFile(rows_path));
  const size_t row_bytes = sizeof(float) * static_cast<size_t>(ref.n_vocab);
  if (rows.size() != row_bytes * ref.positions.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %d bytes, expected %d rows x %d f32 = %d", rows_path, rows.size(),
                        ref.positions.size(), ref.n_vocab, row_bytes * ref.positions.size()));
  }
  for (size_t k = 0; k < ref.positions.size(); ++k) {
    std::vector<float> row(ref.n_vocab);
    std::memcpy(row.data(), rows.data() + k * row_bytes, row_bytes);
    ref.rows.push_back(std::move(row));
  }
  const std::string greedy_path = stem + ".greedy.txt";
  EDGEQ_ASSIGN_OR_RETURN(std::string greedy, ReadFile(greedy_path));
  EDGEQ_ASSIGN_OR_RETURN(ref.greedy, ParseIds(absl::StripAsciiWhitespace(greedy), greedy_path));
  return ref;
}

absl::StatusOr<double> MaxRelativeDifference(absl::Span<const float> a,
                                             absl::Span<const float> ref) {
  if (a.size() != ref.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "logits of %d values compared with a reference of %d", a.size(), ref.size()));
  }
  double max_diff = 0, max_ref = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    max_diff = std::max(max_diff, std::fabs(double(a[i]) - double(ref[i])));
    max_ref = std::max(max_ref, std::fabs(double(ref[i])));
  }
  if (!(max_ref > 0)) return absl::InvalidArgumentError("the reference logits are all zero");
  // NaN in `a` must not pass as "no difference".
  for (float v : a) {
    if (!std::isfinite(v)) return absl::InvalidArgumentError("edgeq logits are not finite");
  }
  return max_diff / max_ref;
}

absl::StatusOr<Result> RunReference(llm::Model& model, const Reference& ref, int n_greedy) {
  if (model.config().vocab_size != ref.n_vocab) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the model's vocabulary has %d tokens, the reference %d",
                        model.config().vocab_size, ref.n_vocab));
  }
  Result r;
  r.rows.resize(ref.positions.size());
  std::vector<float> last;
  const int n = static_cast<int>(ref.tokens.size());
  EDGEQ_RETURN_IF_ERROR(
      model.PrefillAll(ref.tokens, 0, [&](int i, absl::Span<const float> logits) -> absl::Status {
        for (size_t k = 0; k < ref.positions.size(); ++k) {
          if (ref.positions[k] == i) r.rows[k].assign(logits.begin(), logits.end());
        }
        if (i == n - 1) last.assign(logits.begin(), logits.end());
        return absl::OkStatus();
      }));
  for (size_t k = 0; k < ref.positions.size(); ++k) {
    EDGEQ_ASSIGN_OR_RETURN(double rel, MaxRelativeDifference(r.rows[k], ref.rows[k]));
    r.max_relative_difference = std::max(r.max_relative_difference, rel);
  }
  absl::Span<const float> logits = last;
  for (int g = 0; g < n_greedy; ++g) {
    const int next = static_cast<int>(std::max_element(logits.begin(), logits.end()) -
                                      logits.begin());  // first maximum
    r.greedy.push_back(next);
    if (g + 1 == n_greedy) break;
    EDGEQ_ASSIGN_OR_RETURN(logits, model.Forward(next, n + g));
  }
  return r;
}

absl::StatusOr<checkpoint::TensorDict> RandomModelDict(const std::string& shape,
                                                       const std::string& vocab_path, int layers) {
  EDGEQ_ASSIGN_OR_RETURN(llm::RandomModelSpec spec, llm::RandomModelPreset(shape));
  if (layers != 0) spec.layers = layers;
  absl::StatusOr<checkpoint::TensorDict> vocab = checkpoint::ReadGguf(vocab_path);
  if (!vocab.ok()) {
    return absl::Status(vocab.status().code(),
                        absl::StrCat(vocab_path, ": ", vocab.status().message()));
  }
  return llm::RandomModel(spec, &*vocab);
}

uint64_t TensorDataXxh3(const checkpoint::TensorDict& dict) {
  std::vector<std::string> names = dict.Keys();
  std::sort(names.begin(), names.end());
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  for (const std::string& name : names) {
    const Tensor* t = *dict.Get(name);
    XXH3_64bits_update(&state, t->raw_data(), t->size_bytes());
  }
  return XXH3_64bits_digest(&state);
}

absl::StatusOr<std::vector<int>> ReadIds(const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseIds(absl::StripAsciiWhitespace(text), path);
}

absl::StatusOr<std::vector<double>> RunningPerplexity(llm::Model& model,
                                                      absl::Span<const int> tokens, int n_ctx,
                                                      int n_chunks, bool add_bos, int bos) {
  if (static_cast<int64_t>(tokens.size()) < int64_t{n_ctx} * n_chunks) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%d tokens do not hold %d chunks of %d", tokens.size(), n_chunks, n_ctx));
  }
  llm::PerplexityOptions po;
  po.n_ctx = n_ctx;
  po.max_chunks = n_chunks;
  po.bos = add_bos ? bos : -1;
  EDGEQ_ASSIGN_OR_RETURN(llm::PerplexityResult r, llm::Perplexity(model, tokens, po));
  return r.running;
}

absl::StatusOr<std::shared_ptr<const std::string>> RandomGguf(const std::string& shape,
                                                              const std::string& vocab_path,
                                                              int layers) {
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict model, RandomModelDict(shape, vocab_path, layers));
  EDGEQ_ASSIGN_OR_RETURN(std::string bytes, checkpoint::WriteGgufToString(model));
  return std::make_shared<const std::string>(std::move(bytes));
}

}  // namespace parity
}  // namespace edgeq
