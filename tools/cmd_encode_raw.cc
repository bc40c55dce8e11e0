// `edgeq encode-raw` and `edgeq decode-raw`: raw float32 <-> quantized blocks.
#include <string>

#include "absl/strings/str_format.h"
#include "tools/command.h"
#include "tools/raw_codec.h"

namespace edgeq {
namespace tools {
namespace {

constexpr char kEncodeUsage[] = "--encoding=NAME IN.f32 OUT.bin";
constexpr char kDecodeUsage[] = "--encoding=NAME IN.bin OUT.f32";

int RunRaw(const Args& args, const char* usage, bool encode) {
  absl::Status s = args.CheckFlags({"encoding"});
  if (s.ok()) s = args.CheckPositional(2, usage);
  if (s.ok() && args.Get("encoding").empty()) {
    s = absl::InvalidArgumentError(
        absl::StrFormat("--encoding=NAME is required (see 'edgeq encodings'; usage: edgeq %s %s)",
                        args.command, usage));
  }
  if (!s.ok()) return Fail(args.command, s);
  absl::StatusOr<std::string> r =
      encode ? EncodeRawFile(args.Get("encoding"), args.positional[0], args.positional[1])
             : DecodeRawFile(args.Get("encoding"), args.positional[0], args.positional[1]);
  if (!r.ok()) return Fail(args.command, r.status());
  absl::FPrintF(stdout, "%s\n", *r);
  return 0;
}

int RunEncodeRaw(const Args& args) { return RunRaw(args, kEncodeUsage, /*encode=*/true); }
int RunDecodeRaw(const Args& args) { return RunRaw(args, kDecodeUsage, /*encode=*/false); }

}  // namespace

EDGEQ_REGISTER_COMMAND(encode_raw, "encode-raw", kEncodeUsage,
                       "Quantize a raw little-endian float32 file into an encoding's blocks",
                       RunEncodeRaw);
EDGEQ_REGISTER_COMMAND(decode_raw, "decode-raw", kDecodeUsage,
                       "Decode a raw file of an encoding's blocks into float32", RunDecodeRaw);

}  // namespace tools
}  // namespace edgeq
