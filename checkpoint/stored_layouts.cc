// Stored layout tags: metadata <-> quantized views, and the registry of the views' addresses.
#include "checkpoint/stored_layouts.h"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/tensor.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace checkpoint {
namespace {

std::mutex& RegistryMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}
// Address -> tag and the number of live loads registering it (one buffer may be loaded twice).
struct Registered {
  StoredLayoutTag tag;
  int64_t loads = 0;
};
std::map<const void*, Registered>& Registry() {
  static auto* registry = new std::map<const void*, Registered>;
  return *registry;
}

absl::Status Bad(const std::string& tensor, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(".max: tensor '", tensor, "' stored layout: ", what));
}

// The tag of tensor `name` from dict's metadata (the bytes not yet set).
absl::StatusOr<StoredLayoutTag> ReadTag(const TensorDict& dict, const std::string& name) {
  StoredLayoutTag tag;
  tag.tensor = name;
  const MetadataValue* names = *dict.GetMetadata(kLayoutKeyPrefix + name);
  if (names->kind() != MetadataValue::Kind::kString || !names->is_array() || names->size() != 3) {
    return Bad(name, absl::StrCat(kLayoutKeyPrefix, name, " is ", names->TypeName(),
                                  "; expected string[3] (layout, encoding, ISA)"));
  }
  tag.layout = names->strings()[0];
  tag.encoding = names->strings()[1];
  tag.isa = names->strings()[2];
  absl::StatusOr<int64_t> version = dict.GetInt(kLayoutVersionKeyPrefix + name);
  if (!version.ok()) return Bad(name, version.status().message());
  tag.version = *version;
  absl::StatusOr<const MetadataValue*> shape = dict.GetMetadata(kLayoutShapeKeyPrefix + name);
  if (!shape.ok()) return Bad(name, shape.status().message());
  if ((*shape)->kind() != MetadataValue::Kind::kInt || !(*shape)->is_array() ||
      (*shape)->size() != 2 || (*shape)->ints()[0] <= 0 || (*shape)->ints()[1] <= 0) {
    return Bad(name, absl::StrCat(kLayoutShapeKeyPrefix, name, " is ", (*shape)->DebugString(),
                                  "; expected [n, k], both positive"));
  }
  tag.n = (*shape)->ints()[0];
  tag.k = (*shape)->ints()[1];
  return tag;
}

// The quantized view of tag's tensor in `dict` (GGML-sized prefix of its bytes).
absl::StatusOr<Tensor> MakeView(const Tensor& stored, const StoredLayoutTag& tag,
                                std::shared_ptr<const void> owner) {
  if (stored.is_quantized() || stored.dtype() != DType::kUInt8 || stored.rank() != 1) {
    return Bad(tag.tensor, absl::StrFormat("the tensor is %s%s; expected plain u8 [bytes]",
                                           DTypeName(stored.dtype()), stored.shape().ToString()));
  }
  absl::StatusOr<const QuantizationEncoding*> enc = FindEncoding(tag.encoding);
  if (!enc.ok()) return Bad(tag.tensor, enc.status().message());
  const BlockParameters bp = (*enc)->block_parameters();
  if (tag.k % bp.elements_per_block != 0 || tag.n > (int64_t{1} << 40) ||
      tag.k > (int64_t{1} << 40)) {
    return Bad(tag.tensor, absl::StrFormat("shape [%d, %d] does not fit %s (k a multiple of %d)",
                                           tag.n, tag.k, tag.encoding, bp.elements_per_block));
  }
  const int64_t row_bytes = tag.k / bp.elements_per_block * bp.block_size;
  const uint64_t ggml = static_cast<uint64_t>(tag.n) * static_cast<uint64_t>(row_bytes);
  if (stored.size_bytes() < ggml) {
    return Bad(tag.tensor, absl::StrFormat("%d bytes, fewer than %s [%d, %d] needs (%d)",
                                           stored.size_bytes(), tag.encoding, tag.n, tag.k, ggml));
  }
  absl::StatusOr<Tensor> view = Tensor::View(DType::kUInt8, Shape{tag.n, row_bytes},
                                             stored.bytes().data(), ggml, std::move(owner));
  if (!view.ok()) return Bad(tag.tensor, view.status().message());
  view->SetQuantization(tag.encoding, Shape{tag.n, tag.k});
  return view;
}

}  // namespace

void TagStoredLayout(const StoredLayoutTag& tag, TensorDict* dict) {
  dict->SetMetadata(kLayoutKeyPrefix + tag.tensor,
                    MetadataValue::StringArray({tag.layout, tag.encoding, tag.isa}));
  dict->SetMetadata(kLayoutVersionKeyPrefix + tag.tensor,
                    MetadataValue::Int(tag.version, MetadataValue::Width::kU32));
  dict->SetMetadata(kLayoutShapeKeyPrefix + tag.tensor,
                    MetadataValue::IntArray({tag.n, tag.k}, MetadataValue::Width::kU64));
}

absl::Status ResolveStoredLayouts(const std::shared_ptr<const void>& owner, TensorDict* dict) {
  std::vector<StoredLayoutTag> tags;
  for (const std::string& key : dict->MetadataKeys()) {
    if (!absl::StartsWith(key, kLayoutKeyPrefix)) continue;
    const std::string name = key.substr(sizeof(kLayoutKeyPrefix) - 1);
    if (!dict->Contains(name)) {
      return Bad(name, absl::StrCat(key, " tags a tensor the file does not hold"));
    }
    absl::StatusOr<StoredLayoutTag> tag = ReadTag(*dict, name);
    if (!tag.ok()) return tag.status();
    tag->bytes = (*dict->Get(name))->bytes();
    tags.push_back(*std::move(tag));
  }
  if (tags.empty()) return absl::OkStatus();
  // Registered first: `views`' deleter below (run when the last view, or `views` itself on an
  // error, goes) undoes exactly this.
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    for (const StoredLayoutTag& t : tags) {
      Registered& r = Registry()[t.bytes.data()];
      r.tag = t;
      ++r.loads;
    }
  }
  // One owner for the views: when the last of them goes, their addresses leave the registry
  // (before the mapping is released).
  std::vector<const void*> addresses;
  for (const StoredLayoutTag& t : tags) addresses.push_back(t.bytes.data());
  std::shared_ptr<const void> views(owner.get(), [owner, addresses](const void*) {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    for (const void* a : addresses) {
      auto it = Registry().find(a);
      if (it != Registry().end() && --it->second.loads == 0) Registry().erase(it);
    }
  });
  std::vector<Tensor> made;
  for (const StoredLayoutTag& t : tags) {
    absl::StatusOr<Tensor> view = MakeView(**dict->Get(t.tensor), t, views);
    if (!view.ok()) return view.status();
    made.push_back(*std::move(view));
  }
  for (size_t i = 0; i < tags.size(); ++i) {
    if (absl::Status s = dict->Set(tags[i].tensor, std::move(made[i])); !s.ok()) return s;
  }
  return absl::OkStatus();
}

std::optional<Tensor> StoredLayoutBytes(const TensorDict& dict, const std::string& name,
                                        const Tensor& t) {
  if (!t.is_quantized() || t.size_bytes() == 0 || !dict.HasMetadata(kLayoutKeyPrefix + name)) {
    return std::nullopt;
  }
  std::optional<StoredLayoutTag> tag = FindStoredLayout(t.bytes().data());
  if (!tag.has_value() || tag->tensor != name) return std::nullopt;
  absl::StatusOr<Tensor> bytes =
      Tensor::View(DType::kUInt8, Shape{static_cast<int64_t>(tag->bytes.size())}, tag->bytes.data(),
                   tag->bytes.size(), nullptr);
  if (!bytes.ok()) return std::nullopt;
  return *std::move(bytes);
}

std::optional<StoredLayoutTag> FindStoredLayout(const void* data) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Registry().find(data);
  if (it == Registry().end()) return std::nullopt;
  return it->second.tag;
}

}  // namespace checkpoint
}  // namespace edgeq
