// Writer of stored repacked layouts: the one writer of each layout is its KernelEntry::repack,
// reached through kernels::QMatmulKernel::WriteLayout.
#include "tools/cmd_convert_repack.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/formats.h"
#include "checkpoint/stored_layouts.h"
#include "core/status_macros.h"
#include "runtime/kernels/qmatmul.h"

namespace edgeq {
namespace tools {
namespace {

using kernels::Isa;
using kernels::QMatmulKernel;

absl::StatusOr<Isa> ParseIsa(absl::string_view name) {
  if (name == "native") return kernels::BestSupportedIsa();
  absl::StatusOr<Isa> isa = kernels::IsaFromName(name);
  if (!isa.ok() || *isa == Isa::kBest) {
    std::string known;
    for (Isa i : kernels::kAllIsas) absl::StrAppend(&known, kernels::IsaName(i), ", ");
    return absl::InvalidArgumentError(
        absl::StrCat("--repack=", name, ": expected an ISA (", known, "or native)"));
  }
  return *isa;
}

// Matmul weights only: their one reader is the qmatmul kernel (never Gather).
bool IsMatmulWeight(const std::string& name) {
  return name == "output.weight" ||
         (absl::StartsWith(name, "blk.") && absl::EndsWith(name, ".weight"));
}

// `t` (a quantized [n, k] weight) in its layout for `isa` under the name `name`, tagged in `out`;
// false if its kernels read GGML blocks (or the layout is smaller than the blocks: no view).
absl::StatusOr<bool> AddRepacked(const std::string& name, const Tensor& t, Isa isa,
                                 checkpoint::TensorDict* out) {
  const int64_t n = t.logical_shape().dim(0), k = t.logical_shape().dim(1);
  EDGEQ_ASSIGN_OR_RETURN(std::optional<QMatmulKernel::StoredLayout> layout,
                         QMatmulKernel::LayoutFor(t.encoding(), n, k, isa));
  if (!layout.has_value() || layout->bytes < t.size_bytes()) return false;
  absl::StatusOr<std::vector<uint8_t>> bytes =
      QMatmulKernel::WriteLayout(t.encoding(), n, k, t.bytes(), *layout);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(), absl::StrCat(name, ": ", bytes.status().message()));
  }
  auto storage = std::make_shared<std::vector<uint8_t>>(*std::move(bytes));
  EDGEQ_ASSIGN_OR_RETURN(Tensor packed,
                         Tensor::View(DType::kUInt8, Shape{static_cast<int64_t>(storage->size())},
                                      storage->data(), storage->size(), storage));
  EDGEQ_RETURN_IF_ERROR(out->Set(name, std::move(packed)));
  checkpoint::StoredLayoutTag tag;
  tag.tensor = name;
  tag.layout = layout->name;
  tag.encoding = t.encoding();
  tag.isa = std::string(kernels::IsaName(layout->isa));
  tag.version = layout->version;
  tag.n = n;
  tag.k = k;
  checkpoint::TagStoredLayout(tag, out);
  return true;
}

}  // namespace

absl::StatusOr<checkpoint::TensorDict> RepackCheckpoint(const checkpoint::TensorDict& in,
                                                        absl::string_view isa_name,
                                                        bool copy_tied) {
  EDGEQ_ASSIGN_OR_RETURN(Isa isa, ParseIsa(isa_name));
  if (in.HasMetadata(checkpoint::kRepackIsaKey)) {
    return absl::InvalidArgumentError(
        "the input already holds repacked layouts; convert the GGUF it was made from");
  }
  checkpoint::TensorDict out;
  for (const std::string& key : in.MetadataKeys()) out.SetMetadata(key, **in.GetMetadata(key));
  out.SetMetadata(checkpoint::kRepackIsaKey,
                  checkpoint::MetadataValue::String(std::string(kernels::IsaName(isa))));
  for (const std::string& name : in.Keys()) {
    const Tensor& t = **in.Get(name);
    const bool matrix = t.is_quantized() && t.logical_shape().rank() == 2;
    bool repacked = false;
    if (matrix && IsMatmulWeight(name)) {
      EDGEQ_ASSIGN_OR_RETURN(repacked, AddRepacked(name, t, isa, &out));
    }
    if (!repacked) EDGEQ_RETURN_IF_ERROR(out.Set(name, t));
  }
  // A tied classifier: the embedding's GGML rows stay for Gather, its layout becomes output.weight.
  if (copy_tied && !in.Contains("output.weight") && in.Contains("token_embd.weight")) {
    const Tensor& e = **in.Get("token_embd.weight");
    if (e.is_quantized() && e.logical_shape().rank() == 2) {
      EDGEQ_RETURN_IF_ERROR(AddRepacked("output.weight", e, isa, &out).status());
    }
  }
  return out;
}

absl::StatusOr<std::string> ConvertRepacked(const std::string& in, const std::string& out,
                                            absl::string_view isa_name, bool copy_tied) {
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::Format format, checkpoint::FormatFromExtension(out));
  if (format != checkpoint::Format::kMax) {
    return absl::InvalidArgumentError(
        absl::StrCat("--repack writes .max files; OUT ", out, " is not one"));
  }
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint c, checkpoint::OpenCheckpoint(in));
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict dict,
                         RepackCheckpoint(c.dict, isa_name, copy_tied));
  EDGEQ_RETURN_IF_ERROR(checkpoint::WriteCheckpoint(dict, out));
  int64_t layouts = 0;
  for (const std::string& key : dict.MetadataKeys()) {
    layouts += absl::StartsWith(key, checkpoint::kLayoutKeyPrefix) ? 1 : 0;
  }
  return absl::StrFormat(
      "%s (%s) -> %s (max, layouts for %s): %d tensors, %d in repacked layouts, %d bytes of data",
      in, checkpoint::FormatName(c.format), out, *dict.GetString(checkpoint::kRepackIsaKey),
      dict.size(), layouts, dict.TotalBytes());
}

}  // namespace tools
}  // namespace edgeq
