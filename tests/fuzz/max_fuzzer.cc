// libFuzzer target: the .max reader (with data verification) and Save's round trip.
#include <cstdint>
#include <cstdlib>

#include "checkpoint/max_format.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  fuzz::AlignedCopy in(data, size);
  checkpoint::LoadOptions options;
  options.verify_data = (size % 2) == 0;
  absl::StatusOr<checkpoint::TensorDict> d = checkpoint::LoadFromBuffer(in.span, in.owner, options);
  if (!d.ok()) return 0;
  fuzz::TouchAll(*d);
  absl::StatusOr<std::string> bytes = checkpoint::SaveToString(*d);
  if (!bytes.ok()) std::abort();  // everything the reader accepts must be writable
  fuzz::AlignedCopy again(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
  checkpoint::LoadOptions verify;
  verify.verify_data = true;
  absl::StatusOr<checkpoint::TensorDict> back =
      checkpoint::LoadFromBuffer(again.span, again.owner, verify);
  if (!back.ok()) std::abort();
  fuzz::CheckSameTensors(*d, *back, "max");
  return 0;
}
