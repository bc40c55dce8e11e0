// The file-level work behind `edgeq encode-raw`, `edgeq decode-raw` and `edgeq encodings`.
//
// Raw files hold no header: an .f32 file is little-endian float32 values, a quantized file is the
// encoding's blocks back to back. Outputs are written atomically (a temporary file in the same
// directory, then rename), and an output path naming the input file is refused.
#ifndef EDGEQ_TOOLS_RAW_CODEC_H_
#define EDGEQ_TOOLS_RAW_CODEC_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace edgeq {
namespace tools {

// Quantizes the floats of `in_path` with the named encoding into `out_path`. Returns a one-line
// summary ("encoded 1024 values (4096 bytes) with q4_0 into 576 bytes"). Errors name the problem:
// a missing file, a size that is not a whole number of floats or of blocks, an unknown encoding
// (listing the known ones), a non-finite value (with its index).
absl::StatusOr<std::string> EncodeRawFile(absl::string_view encoding, const std::string& in_path,
                                          const std::string& out_path);

// Decodes whole blocks of `in_path` into float32 values in `out_path`.
absl::StatusOr<std::string> DecodeRawFile(absl::string_view encoding, const std::string& in_path,
                                          const std::string& out_path);

// A table of the registered encodings: name, values per block, bytes per block, bits per value.
std::string EncodingsTable();

}  // namespace tools
}  // namespace edgeq

#endif  // EDGEQ_TOOLS_RAW_CODEC_H_
