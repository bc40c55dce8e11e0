// `edgeq encodings`: the registered encodings and their block parameters.
#include "absl/strings/str_format.h"
#include "tools/command.h"
#include "tools/raw_codec.h"

namespace edgeq {
namespace tools {
namespace {

int RunEncodings(const Args& args) {
  absl::Status s = args.CheckFlags({});
  if (s.ok()) s = args.CheckPositional(0, "");
  if (!s.ok()) return Fail(args.command, s);
  absl::FPrintF(stdout, "%s", EncodingsTable());
  return 0;
}

}  // namespace

EDGEQ_REGISTER_COMMAND(encodings, "encodings", "",
                       "List the quantization encodings and their block parameters", RunEncodings);

}  // namespace tools
}  // namespace edgeq
