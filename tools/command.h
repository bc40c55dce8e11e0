// Subcommands of the `edgeq` command-line tool.
//
// Each subcommand lives in its own cc_library (alwayslink = 1) and registers itself:
//
//   int RunInspect(const edgeq::tools::Args& args);
//   EDGEQ_REGISTER_COMMAND(inspect, "inspect", "FILE [--verify]",
//                          "List the tensors of a checkpoint", RunInspect);
//
// Arguments are parsed by the dispatcher into positional arguments and --name=value flags
// (a bare --name means "true"); each command checks them with Args::CheckFlags so that a
// misspelt flag is an error naming the flag and the expected ones.
#ifndef EDGEQ_TOOLS_COMMAND_H_
#define EDGEQ_TOOLS_COMMAND_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace edgeq {
namespace tools {

struct Args {
  std::string command;                       // e.g. "inspect"
  std::vector<std::string> positional;       // in order
  std::map<std::string, std::string> flags;  // "--verify" -> "true", "--encoding=q4_0" -> "q4_0"
  std::vector<std::string> raw;              // every argument after the command, as given

  // InvalidArgument naming the first flag not in `allowed` and listing the allowed ones.
  absl::Status CheckFlags(const std::vector<std::string>& allowed) const;
  // InvalidArgument unless there are exactly `n` positional arguments (usage in the message).
  absl::Status CheckPositional(size_t n, absl::string_view usage) const;
  bool Has(absl::string_view flag) const { return flags.count(std::string(flag)) > 0; }
  std::string Get(absl::string_view flag, absl::string_view default_value = "") const;
  // Parses an integer flag (strict decimal, 64-bit, see ParseDecimalInt64) in [lo, hi];
  // InvalidArgument naming the flag, the value (quoted, cut) and the range otherwise.
  absl::StatusOr<int64_t> GetInt(absl::string_view flag, int64_t default_value,
                                 int64_t lo = INT64_MIN, int64_t hi = INT64_MAX) const;
};

// Splits argv[first..] into positional arguments and flags. "--" ends flag parsing.
Args ParseArgs(int argc, char** argv, int first);

using CommandFn = int (*)(const Args& args);

struct Command {
  const char* name;
  const char* usage;    // arguments after the name, for --help
  const char* summary;  // one line
  CommandFn run;        // returns the process exit code
};

// Registers a command at static-initialization time; returns true.
bool RegisterCommand(const Command& command);
const std::map<std::string, Command>& Commands();

// Prints "edgeq <command>: <status message>" to stderr and returns 1.
int Fail(absl::string_view command, const absl::Status& status);

}  // namespace tools
}  // namespace edgeq

#define EDGEQ_REGISTER_COMMAND(id, name, usage, summary, fn)         \
  static const bool edgeq_command_registered_##id [[maybe_unused]] = \
      ::edgeq::tools::RegisterCommand(::edgeq::tools::Command{name, usage, summary, fn})

#endif  // EDGEQ_TOOLS_COMMAND_H_
