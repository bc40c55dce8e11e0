// Stored repacked layouts in .max files (`edgeq convert --repack=NAME`, docs/stored_repack.md).
//
// A weight converted for a kernel layout is stored as a plain u8 tensor of the layout's bytes,
// tagged by metadata (FORMAT.md, "Stored layouts"). Loading such a .max gives the model a
// quantized view of the tensor's encoding and logical shape [n, k] over those bytes (so that the
// graph builders see a quantized constant as today) and registers the view's address here with
// the tag; the qmatmul op's factory looks the address up and makes a kernel on the stored bytes
// in place (kernels::QMatmulKernel::CreatePrepacked). The view's bytes are not GGML blocks: only
// the qmatmul factory may read them, which is why only matmul weights (blk.*, output.weight) are
// ever stored so.
#ifndef EDGEQ_CHECKPOINT_STORED_LAYOUTS_H_
#define EDGEQ_CHECKPOINT_STORED_LAYOUTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"
#include "core/tensor.h"

namespace edgeq {
namespace checkpoint {

// Metadata keys: kRepackIsaKey (file: the ISA named at conversion), and per tensor T
// kLayoutKeyPrefix + T = [layout, encoding, ISA] (strings), kLayoutVersionKeyPrefix + T (u32),
// kLayoutShapeKeyPrefix + T = [n, k] (u64).
inline constexpr char kRepackIsaKey[] = "edgeq.repack_isa";
inline constexpr char kLayoutKeyPrefix[] = "edgeq.layout.";
inline constexpr char kLayoutVersionKeyPrefix[] = "edgeq.layout_version.";
inline constexpr char kLayoutShapeKeyPrefix[] = "edgeq.layout_shape.";

struct StoredLayoutTag {
  std::string tensor;    // the tensor's name
  std::string layout;    // e.g. "q4_k_avx512vnni_gemv"
  std::string encoding;  // e.g. "q4_k"
  std::string isa;       // e.g. "avx512vnni"
  int64_t version = 0;
  int64_t n = 0, k = 0;
  absl::Span<const uint8_t> bytes;  // all the stored bytes (the view covers a prefix of them)
};

// Tags `tensor` (a plain u8 tensor of the layout's bytes) in `dict`'s metadata.
void TagStoredLayout(const StoredLayoutTag& tag, TensorDict* dict);

// Replaces every tagged tensor of `dict` (as Load read it) by a quantized view (tag.encoding,
// logical [n, k]) of its bytes owned by `owner`, registered for FindStoredLayout while the view
// lives. InvalidArgument, one line naming the tensor and the expected value, for a tag that does
// not fit its tensor (wrong types, not a plain u8 tensor, fewer bytes than n x k GGML blocks).
absl::Status ResolveStoredLayouts(const std::shared_ptr<const void>& owner, TensorDict* dict);

// For writers: if `t`, tensor `name` of `dict`, is a view ResolveStoredLayouts made (and `dict`
// still tags it), a plain u8 tensor of all its stored bytes (what the file held); else nullopt.
std::optional<Tensor> StoredLayoutBytes(const TensorDict& dict, const std::string& name,
                                        const Tensor& t);

// The tag of the stored layout whose view starts at `data`, if any.
std::optional<StoredLayoutTag> FindStoredLayout(const void* data);

}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_STORED_LAYOUTS_H_
