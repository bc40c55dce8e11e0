// `edgeq`: the command-line tool. Subcommands register themselves (tools/command.h).
#include <cstdio>
#include <string>

#include "absl/strings/str_format.h"
#include "tools/command.h"

namespace {

void PrintHelp(FILE* out) {
  absl::FPrintF(out, "Usage: edgeq <command> [arguments] [--flags]\n\nCommands:\n");
  for (const auto& [name, command] : edgeq::tools::Commands()) {
    absl::FPrintF(out, "  %-12s %s\n", name, command.summary);
    absl::FPrintF(out, "  %-12s   edgeq %s %s\n", "", name, command.usage);
  }
  absl::FPrintF(out, "\nRun 'edgeq <command> --help' for a command's usage.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    PrintHelp(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string name = argv[1];
  auto it = edgeq::tools::Commands().find(name);
  if (it == edgeq::tools::Commands().end()) {
    absl::FPrintF(stderr, "edgeq: unknown command '%s'\n\n", name);
    PrintHelp(stderr);
    return 2;
  }
  edgeq::tools::Args args = edgeq::tools::ParseArgs(argc, argv, 2);
  args.command = name;
  if (args.Has("help")) {
    absl::FPrintF(stdout, "Usage: edgeq %s %s\n%s\n", name, it->second.usage, it->second.summary);
    return 0;
  }
  return it->second.run(args);
}
