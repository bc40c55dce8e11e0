// `edgeq inspect FILE [--verify]` and `edgeq convert IN OUT`.
#include "absl/strings/str_format.h"
#include "tools/checkpoint_report.h"
#include "tools/command.h"

namespace edgeq {
namespace tools {
namespace {

int RunInspect(const Args& args) {
  absl::Status s = args.CheckFlags({"verify"});
  if (s.ok()) s = args.CheckPositional(1, "FILE [--verify]");
  if (!s.ok()) return Fail(args.command, s);
  absl::StatusOr<std::string> report =
      InspectCheckpoint(args.positional[0], args.Get("verify") == "true");
  if (!report.ok()) return Fail(args.command, report.status());
  absl::FPrintF(stdout, "%s", *report);
  return 0;
}

int RunConvert(const Args& args) {
  absl::Status s = args.CheckFlags({});
  if (s.ok()) s = args.CheckPositional(2, "IN OUT");
  if (!s.ok()) return Fail(args.command, s);
  absl::StatusOr<std::string> summary = ConvertCheckpoint(args.positional[0], args.positional[1]);
  if (!summary.ok()) return Fail(args.command, summary.status());
  absl::FPrintF(stdout, "%s\n", *summary);
  return 0;
}

}  // namespace

EDGEQ_REGISTER_COMMAND(inspect, "inspect", "FILE [--verify]",
                       "List the tensors and metadata of a checkpoint (.max, .gguf, .bin, "
                       ".safetensors); --verify checks .max data checksums",
                       RunInspect);
EDGEQ_REGISTER_COMMAND(convert, "convert", "IN OUT",
                       "Convert a checkpoint between .max, .gguf, .safetensors and llama2.c .bin "
                       "(format from OUT's extension)",
                       RunConvert);

}  // namespace tools
}  // namespace edgeq
