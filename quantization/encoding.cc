// QuantizationEncoding's shared logic (shape translation, validation, row parallelism), the
// built-in encodings generated from the codec table, and the registry.
#include "quantization/encoding.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "core/dtype.h"
#include "core/parallel.h"
#include "core/status_macros.h"
#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"
#include "sdk/selection.h"

namespace edgeq {
namespace {

using quantization_internal::BlockCodec;
using quantization_internal::BuiltinCodecs;

// A built-in encoding: a thin wrapper around one row of the codec table.
class BuiltinEncoding final : public QuantizationEncoding {
 public:
  explicit BuiltinEncoding(const BlockCodec& codec) : codec_(codec) {}
  absl::string_view name() const override { return codec_.name; }
  BlockParameters block_parameters() const override {
    return {codec_.elements_per_block, codec_.block_size};
  }
  // A selective build keeps only its encodings' quantizers (codec_table.cc); Quantize fails for
  // the others before it gets here, a direct call writes zero blocks.
  bool has_quantizer() const { return codec_.quantize_row != nullptr; }
  void QuantizeRow(const float* x, uint8_t* out, int64_t num_elements) const override {
    if (!has_quantizer()) {
      std::memset(out, 0, num_elements / codec_.elements_per_block * codec_.block_size);
      return;
    }
    codec_.quantize_row(x, out, num_elements);
  }
  void DequantizeRow(const uint8_t* in, float* y, int64_t num_elements) const override {
    codec_.dequantize_row(in, y, num_elements);
  }

 private:
  const BlockCodec& codec_;
};

// The built-ins, in table order; never destroyed.
const std::vector<const BuiltinEncoding*>& Builtins() {
  static const auto* builtins = [] {
    auto* v = new std::vector<const BuiltinEncoding*>;
    for (const BlockCodec& codec : BuiltinCodecs()) v->push_back(new BuiltinEncoding(codec));
    return v;
  }();
  return *builtins;
}

const QuantizationEncoding& BuiltinByName(absl::string_view name) {
  for (const BuiltinEncoding* e : Builtins()) {
    if (e->name() == name) return *e;
  }
  // The names below are the table's; reaching here is a programming error in this file.
  return *Builtins().front();
}

// Work is split into units that can be processed independently: blocks for the built-ins (a
// block never depends on its neighbours), whole rows for user encodings (they may use per-row
// statistics). Tasks cover about kTargetElementsPerTask values.
constexpr int64_t kTargetElementsPerTask = 4096;

struct WorkSplit {
  int64_t units;              // number of units
  int64_t elements_per_unit;  // logical values per unit
  int64_t bytes_per_unit;     // encoded bytes per unit
  int64_t units_per_task;
};

WorkSplit SplitWork(const QuantizationEncoding& enc, const Shape& logical) {
  const BlockParameters bp = enc.block_parameters();
  const int64_t row = logical.dim(-1);
  const int64_t rows = row == 0 ? 0 : logical.num_elements() / row;
  WorkSplit s;
  if (dynamic_cast<const BuiltinEncoding*>(&enc) != nullptr) {
    s.elements_per_unit = bp.elements_per_block;
    s.bytes_per_unit = bp.block_size;
    s.units = rows * (row / bp.elements_per_block);
  } else {
    s.elements_per_unit = row;
    s.bytes_per_unit = row / bp.elements_per_block * bp.block_size;
    s.units = rows;
  }
  s.units_per_task =
      std::max<int64_t>(1, kTargetElementsPerTask / std::max<int64_t>(1, s.elements_per_unit));
  return s;
}

// Element operations per value (core/parallel.h): a quantizer searches scales (K-quants iterate),
// a dequantizer is one multiply-add.
constexpr int64_t kQuantizeWorkPerValue = 8;
constexpr int64_t kDequantizeWorkPerValue = 2;

// Runs fn(first_unit, unit_count) over all units, `work_per_value` element operations each value,
// on `pool` when worthwhile (the one rule in core/parallel.h).
template <typename Fn>
void RunSplit(pthreadpool_t pool, const WorkSplit& s, int64_t work_per_value, Fn fn) {
  ParallelFor(pool, static_cast<size_t>(s.units), static_cast<size_t>(s.units_per_task),
              s.units * s.elements_per_unit * work_per_value, [&](size_t first, size_t count) {
                fn(static_cast<int64_t>(first), static_cast<int64_t>(count));
              });
}

// Index of the first NaN or Inf in x[0, n), or -1.
int64_t FirstNonFinite(const float* x, int64_t n) {
  // Exponent all ones <=> NaN or Inf; checked without branches per element.
  constexpr uint32_t kExp = 0x7f800000u;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint32_t any = 0;
    for (int k = 0; k < 8; ++k) any |= ((blocks::FloatBits(x[i + k]) & kExp) == kExp) ? 1u : 0u;
    if (any != 0) break;
  }
  for (; i < n; ++i) {
    if ((blocks::FloatBits(x[i]) & kExp) == kExp) return i;
  }
  return -1;
}

absl::Status CheckBlockParameters(absl::string_view name, const BlockParameters& bp) {
  if (bp.elements_per_block <= 0 || bp.block_size <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "encoding '%s': block parameters must be positive, got elements_per_block=%d "
        "block_size=%d",
        name, bp.elements_per_block, bp.block_size));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> QuantizationEncoding::QuantizedShape(const Shape& logical) const {
  const BlockParameters bp = block_parameters();
  EDGEQ_RETURN_IF_ERROR(CheckBlockParameters(name(), bp));
  EDGEQ_RETURN_IF_ERROR(logical.Validate());
  if (logical.rank() == 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "encoding '%s' needs a tensor of rank >= 1 whose last dimension is a multiple of %d; "
        "got a scalar (shape [])",
        name(), bp.elements_per_block));
  }
  const int64_t k = logical.dim(-1);
  if (k % bp.elements_per_block != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "encoding '%s' needs the last dimension to be a multiple of %d; shape %s has %d", name(),
        bp.elements_per_block, logical.ToString(), k));
  }
  const int64_t bytes = k / bp.elements_per_block * bp.block_size;
  Shape q = logical.WithLastDim(bytes);
  EDGEQ_RETURN_IF_ERROR(q.Validate());
  return q;
}

absl::StatusOr<Shape> QuantizationEncoding::LogicalShape(const Shape& quantized) const {
  const BlockParameters bp = block_parameters();
  EDGEQ_RETURN_IF_ERROR(CheckBlockParameters(name(), bp));
  EDGEQ_RETURN_IF_ERROR(quantized.Validate());
  if (quantized.rank() == 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "encoding '%s': a quantized tensor needs rank >= 1 (its last dimension counts bytes, "
        "a multiple of the block size %d); got a scalar",
        name(), bp.block_size));
  }
  const int64_t bytes = quantized.dim(-1);
  if (bytes % bp.block_size != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "encoding '%s': the last dimension of quantized shape %s is %d bytes, not a whole "
        "number of %d-byte blocks",
        name(), quantized.ToString(), bytes, bp.block_size));
  }
  Shape logical = quantized.WithLastDim(bytes / bp.block_size * bp.elements_per_block);
  EDGEQ_RETURN_IF_ERROR(logical.Validate());
  return logical;
}

absl::StatusOr<Tensor> QuantizationEncoding::Quantize(const Tensor& input,
                                                      pthreadpool_t pool) const {
  if (input.dtype() != DType::kFloat32 || input.is_quantized()) {
    return absl::InvalidArgumentError(absl::StrFormat("encoding '%s' quantizes f32 tensors; got %s",
                                                      name(), input.DebugString()));
  }
  if (const auto* builtin = dynamic_cast<const BuiltinEncoding*>(this);
      builtin != nullptr && !builtin->has_quantizer()) {
    return absl::UnimplementedError(
        absl::StrFormat("encoding '%s': its quantizer is not in this build (quantizers built: %s)",
                        name(), selection::BuiltWith(selection::kEncodings)));
  }
  EDGEQ_ASSIGN_OR_RETURN(const Shape qshape, QuantizedShape(input.shape()));
  EDGEQ_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(DType::kUInt8, qshape));
  out.SetQuantization(std::string(name()), input.shape());

  const float* x = static_cast<const float*>(input.raw_data());
  uint8_t* q = static_cast<uint8_t*>(out.raw_mutable_data());
  const WorkSplit s = SplitWork(*this, input.shape());
  const bool per_row = dynamic_cast<const BuiltinEncoding*>(this) == nullptr;
  std::atomic<int64_t> first_bad{INT64_MAX};
  RunSplit(pool, s, kQuantizeWorkPerValue, [&](int64_t first, int64_t count) {
    const float* xs = x + first * s.elements_per_unit;
    const int64_t n = count * s.elements_per_unit;
    const int64_t bad = FirstNonFinite(xs, n);
    if (bad >= 0) {
      const int64_t index = first * s.elements_per_unit + bad;
      int64_t cur = first_bad.load(std::memory_order_relaxed);
      while (index < cur && !first_bad.compare_exchange_weak(cur, index)) {
      }
      return;
    }
    if (per_row) {
      for (int64_t r = first; r < first + count; ++r) {
        QuantizeRow(x + r * s.elements_per_unit, q + r * s.bytes_per_unit, s.elements_per_unit);
      }
    } else {
      QuantizeRow(xs, q + first * s.bytes_per_unit, n);
    }
  });
  const int64_t bad = first_bad.load();
  if (bad != INT64_MAX) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "encoding '%s': input %s has a non-finite value (%g) at flat index %d; only finite "
        "values can be quantized",
        name(), input.DebugString(), x[bad], bad));
  }
  return out;
}

absl::StatusOr<Tensor> QuantizationEncoding::Dequantize(const Tensor& input,
                                                        pthreadpool_t pool) const {
  if (input.dtype() != DType::kUInt8) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "encoding '%s' dequantizes u8 tensors; got %s", name(), input.DebugString()));
  }
  if (input.is_quantized() && input.encoding() != name()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("encoding '%s' cannot decode %s: it is tagged with encoding '%s'", name(),
                        input.DebugString(), input.encoding()));
  }
  EDGEQ_ASSIGN_OR_RETURN(const Shape derived, LogicalShape(input.shape()));
  Shape logical = derived;
  if (input.is_quantized()) {
    // The tag's logical shape must agree with the bytes (it may have more structure, e.g. a
    // reshaped view, but the same row length and element count).
    const Shape& tagged = input.logical_shape();
    if (tagged.rank() == 0 || tagged.dim(-1) != derived.dim(-1) ||
        tagged.num_elements() != derived.num_elements()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "encoding '%s': tensor %s has a logical shape %s that does not match its bytes "
          "(expected %s)",
          name(), input.DebugString(), tagged.ToString(), derived.ToString()));
    }
    logical = tagged;
  }
  EDGEQ_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(DType::kFloat32, logical));
  const uint8_t* q = static_cast<const uint8_t*>(input.raw_data());
  float* y = static_cast<float*>(out.raw_mutable_data());
  const WorkSplit s = SplitWork(*this, logical);
  const bool per_row = dynamic_cast<const BuiltinEncoding*>(this) == nullptr;
  RunSplit(pool, s, kDequantizeWorkPerValue, [&](int64_t first, int64_t count) {
    if (per_row) {
      for (int64_t r = first; r < first + count; ++r) {
        DequantizeRow(q + r * s.bytes_per_unit, y + r * s.elements_per_unit, s.elements_per_unit);
      }
    } else {
      DequantizeRow(q + first * s.bytes_per_unit, y + first * s.elements_per_unit,
                    count * s.elements_per_unit);
    }
  });
  return out;
}

const QuantizationEncoding& Q4_0Encoding() { return BuiltinByName("q4_0"); }
const QuantizationEncoding& Q8_0Encoding() { return BuiltinByName("q8_0"); }
const QuantizationEncoding& Q4_KEncoding() { return BuiltinByName("q4_k"); }
const QuantizationEncoding& Q5_KEncoding() { return BuiltinByName("q5_k"); }
const QuantizationEncoding& Q6_KEncoding() { return BuiltinByName("q6_k"); }
const QuantizationEncoding& BFloat16Encoding() { return BuiltinByName("bf16"); }

// ---- registry ----

namespace {

struct RegistryState {
  absl::Mutex mu;
  std::map<std::string, const QuantizationEncoding*, std::less<>> by_name ABSL_GUARDED_BY(mu);
  std::vector<std::unique_ptr<QuantizationEncoding>> owned ABSL_GUARDED_BY(mu);
};

RegistryState& State() {
  static RegistryState* state = [] {
    auto* s = new RegistryState;
    absl::MutexLock lock(&s->mu);
    for (const BuiltinEncoding* e : Builtins()) s->by_name[std::string(e->name())] = e;
    return s;
  }();
  return *state;
}

}  // namespace

EncodingRegistry& EncodingRegistry::Global() {
  static EncodingRegistry* registry = new EncodingRegistry;
  return *registry;
}

absl::Status EncodingRegistry::Register(std::unique_ptr<QuantizationEncoding> encoding) {
  if (encoding == nullptr) {
    return absl::InvalidArgumentError("EncodingRegistry::Register: null encoding");
  }
  const std::string name(encoding->name());
  if (name.empty()) {
    return absl::InvalidArgumentError("EncodingRegistry::Register: the encoding's name is empty");
  }
  EDGEQ_RETURN_IF_ERROR(CheckBlockParameters(name, encoding->block_parameters()));
  RegistryState& s = State();
  absl::MutexLock lock(&s.mu);
  for (const auto& [existing, e] : s.by_name) {
    if (absl::EqualsIgnoreCase(existing, name)) {
      return absl::AlreadyExistsError(
          absl::StrFormat("EncodingRegistry::Register: an encoding named '%s' is already "
                          "registered (names are compared ignoring case)",
                          existing));
    }
  }
  s.by_name[name] = encoding.get();
  s.owned.push_back(std::move(encoding));
  return absl::OkStatus();
}

absl::StatusOr<const QuantizationEncoding*> EncodingRegistry::Find(absl::string_view name) const {
  RegistryState& s = State();
  absl::MutexLock lock(&s.mu);
  auto it = s.by_name.find(name);
  if (it == s.by_name.end()) {
    // Names are matched case-insensitively: GGML and the seeds spell them "Q4_K", the registry
    // "q4_k". Register keeps names unique ignoring case, so at most one matches.
    it = std::find_if(s.by_name.begin(), s.by_name.end(),
                      [&](const auto& entry) { return absl::EqualsIgnoreCase(entry.first, name); });
  }
  if (it == s.by_name.end()) {
    std::vector<std::string> names;
    for (const auto& [n, e] : s.by_name) names.push_back(n);
    return absl::NotFoundError(absl::StrFormat("unknown encoding '%s'; known encodings: %s", name,
                                               absl::StrJoin(names, ", ")));
  }
  return it->second;
}

std::vector<std::string> EncodingRegistry::Names() const {
  RegistryState& s = State();
  absl::MutexLock lock(&s.mu);
  std::vector<std::string> names;
  for (const auto& [n, e] : s.by_name) names.push_back(n);
  return names;  // std::map keeps them sorted
}

absl::StatusOr<const QuantizationEncoding*> FindEncoding(absl::string_view name) {
  return EncodingRegistry::Global().Find(name);
}

absl::Status CheckQuantizedTensor(absl::string_view name, const Tensor& tensor) {
  if (!tensor.is_quantized()) return absl::OkStatus();
  const std::string& enc_name = tensor.encoding();
  const Shape& logical = tensor.logical_shape();
  const std::string what = absl::StrFormat(
      "quantized tensor '%s' (encoding '%s', logical shape %s, %s%s)", name, enc_name,
      logical.ToString(), DTypeName(tensor.dtype()), tensor.shape().ToString());
  if (tensor.dtype() != DType::kUInt8) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: quantized bytes must be u8, got %s", what, DTypeName(tensor.dtype())));
  }
  absl::StatusOr<const QuantizationEncoding*> enc = FindEncoding(enc_name);
  if (!enc.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", enc.status().message()));
  }
  if ((*enc)->name() != enc_name) {  // found ignoring case: a tag holds the registered name
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: the encoding tag must be the registered name '%s'", what, (*enc)->name()));
  }
  const BlockParameters bp = (*enc)->block_parameters();
  if (absl::Status s = logical.Validate(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", s.message()));
  }
  if (logical.rank() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the logical shape needs rank >= 1 (rows of blocks), got a scalar"));
  }
  for (int i = 0; i < logical.rank(); ++i) {
    if (logical.dim(i) == 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: logical dimension %d is 0; a quantized tensor holds at least one block", what, i));
    }
  }
  const int64_t k = logical.dim(-1);
  if (k % bp.elements_per_block != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: the logical last dimension %d is not a multiple of %d values per block", what, k,
        bp.elements_per_block));
  }
  const int64_t rows = logical.num_elements() / k;
  const int64_t blocks = k / bp.elements_per_block;
  // rows * blocks <= 2^48 (Validate); the product with block_size is checked for overflow.
  const int64_t row_bytes_limit = INT64_MAX / rows;
  const bool overflow =
      blocks > INT64_MAX / bp.block_size || blocks * bp.block_size > row_bytes_limit;
  const int64_t actual = static_cast<int64_t>(tensor.size_bytes());
  if (overflow) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %d rows x %d blocks x %d bytes overflows; got %d bytes", what, rows,
                        blocks, bp.block_size, actual));
  }
  const int64_t row_bytes = blocks * bp.block_size;
  const int64_t expected = rows * row_bytes;
  if (actual != expected || tensor.num_elements() != expected) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: expected %d bytes (%d rows x %d blocks x %d bytes), got %d", what,
                        expected, rows, blocks, bp.block_size, actual));
  }
  if (tensor.shape().rank() == 0 || tensor.shape().dim(-1) != row_bytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: the last byte dimension must be one row's %d bytes (%d blocks x %d bytes), got %s",
        what, row_bytes, blocks, bp.block_size, tensor.shape().ToString()));
  }
  return absl::OkStatus();
}

}  // namespace edgeq
