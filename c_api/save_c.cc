// The C API's checkpoint writer (edgeq_tensor_dict_*, edgeq_save) over checkpoint::TensorDict and
// checkpoint::WriteCheckpoint.
#include <sys/stat.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "c_api/internal.h"
#include "checkpoint/formats.h"
#include "checkpoint/tensor_dict.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "edgeq/edgeq.h"
#include "quantization/encoding.h"

struct edgeq_tensor_dict {
  edgeq::checkpoint::TensorDict dict;
};

namespace {

using edgeq::c_api::Encoding;
using edgeq::c_api::Fail;
using edgeq::c_api::FromStatus;

}  // namespace

extern "C" {

edgeq_status edgeq_tensor_dict_create(edgeq_tensor_dict** out) {
  EDGEQ_C_CHECK_ARG(out != nullptr, "out is NULL");
  *out = new edgeq_tensor_dict();
  return EDGEQ_OK;
}

void edgeq_tensor_dict_free(edgeq_tensor_dict* dict) { delete dict; }

size_t edgeq_tensor_dict_size(const edgeq_tensor_dict* dict) {
  return dict ? dict->dict.size() : 0;
}

edgeq_status edgeq_tensor_dict_set(edgeq_tensor_dict* dict, const char* name, const char* dtype,
                                   const char* encoding, int32_t rank, const int64_t* shape,
                                   const void* data, size_t data_bytes) {
  EDGEQ_C_CHECK_ARG(dict != nullptr && name != nullptr, "dict or name is NULL");
  EDGEQ_C_CHECK_ARG(dtype != nullptr, "dtype is NULL");
  EDGEQ_C_CHECK_ARG(*name != '\0', "the tensor name is empty");
  const std::string what = absl::StrCat("edgeq_tensor_dict_set: tensor '", name, "'");
  if (rank < 0 || rank > EDGEQ_MAX_RANK) {
    return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                absl::StrCat(what, ": rank ", rank, " is not in [0, ", EDGEQ_MAX_RANK, "]"));
  }
  EDGEQ_C_CHECK_ARG(rank == 0 || shape != nullptr, "shape is NULL");
  edgeq::Shape logical(std::vector<int64_t>(shape, shape + rank));
  if (absl::Status s = logical.Validate(); !s.ok()) {
    return Fail(EDGEQ_ERROR_INVALID_ARGUMENT, absl::StrCat(what, ": ", s.message()));
  }
  auto dt = edgeq::DTypeFromName(dtype);
  if (!dt.ok()) {
    return Fail(EDGEQ_ERROR_INVALID_ARGUMENT, absl::StrCat(what, ": ", dt.status().message()));
  }
  const bool quantized = encoding != nullptr && *encoding != '\0';
  edgeq::Shape stored = logical;
  const edgeq::QuantizationEncoding* enc = nullptr;
  if (quantized) {
    auto e = Encoding(encoding);
    if (!e.ok()) return FromStatus(e.status());
    enc = *e;
    if (*dt != edgeq::DType::kUInt8) {
      return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                  absl::StrCat(what, ": a quantized tensor (", enc->name(),
                               ") is stored as u8, got dtype ", dtype));
    }
    auto q = enc->QuantizedShape(logical);
    if (!q.ok()) {
      return Fail(EDGEQ_ERROR_INVALID_ARGUMENT, absl::StrCat(what, ": ", q.status().message()));
    }
    stored = *q;
  }
  const size_t need = static_cast<size_t>(stored.num_elements()) * edgeq::DTypeSize(*dt);
  if (data_bytes != need) {
    return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                absl::StrCat(what, ": ", quantized ? std::string(enc->name()) + " of " : "", dtype,
                             logical.ToString(), " is ", need, " bytes, got ", data_bytes));
  }
  EDGEQ_C_CHECK_ARG(data != nullptr || need == 0, "data is NULL");
  auto t = edgeq::Tensor::Create(*dt, stored);
  if (!t.ok()) return FromStatus(t.status());
  if (need > 0) std::memcpy(t->raw_mutable_data(), data, need);
  if (quantized) {
    t->SetQuantization(std::string(enc->name()), logical);
    // The same check the writers and readers make, naming the tensor.
    if (absl::Status s = edgeq::CheckQuantizedTensor(name, *t); !s.ok()) return FromStatus(s);
  }
  return FromStatus(dict->dict.Set(name, std::move(*t)));
}

edgeq_status edgeq_save(const edgeq_tensor_dict* dict, const char* path, int flags) {
  EDGEQ_C_CHECK_ARG(dict != nullptr && path != nullptr, "dict or path is NULL");
  struct stat st;
  if ((flags & EDGEQ_SAVE_OVERWRITE) == 0 && ::stat(path, &st) == 0) {
    return Fail(
        EDGEQ_ERROR_FAILED_PRECONDITION,
        absl::StrCat("edgeq_save: '", path,
                     "' exists; not overwritten (pass EDGEQ_SAVE_OVERWRITE to replace it)"));
  }
  return FromStatus(edgeq::checkpoint::WriteCheckpoint(dict->dict, path));
}

}  // extern "C"
