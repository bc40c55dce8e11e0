// libFuzzer target: the safetensors reader and its write/read round trip.
#include <cstdint>
#include <cstdlib>

#include "checkpoint/safetensors.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  fuzz::AlignedCopy in(data, size);
  absl::StatusOr<checkpoint::TensorDict> d =
      checkpoint::ReadSafetensorsFromBuffer(in.span, in.owner);
  if (!d.ok()) return 0;
  fuzz::TouchAll(*d);
  absl::StatusOr<std::string> bytes = checkpoint::WriteSafetensorsToString(*d);
  if (!bytes.ok()) std::abort();
  fuzz::AlignedCopy again(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
  absl::StatusOr<checkpoint::TensorDict> back =
      checkpoint::ReadSafetensorsFromBuffer(again.span, again.owner);
  if (!back.ok()) std::abort();
  fuzz::CheckSameTensors(*d, *back, "safetensors");
  return 0;
}
