#include "tools/command.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/bounded_input.h"

namespace edgeq {
namespace tools {

absl::Status Args::CheckFlags(const std::vector<std::string>& allowed) const {
  for (const auto& [flag, value] : flags) {
    bool ok = false;
    for (const std::string& a : allowed) ok = ok || a == flag;
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrFormat("unknown flag %s (expected %s)", QuoteForError(absl::StrCat("--", flag)),
                          allowed.empty() ? std::string("no flags")
                                          : absl::StrCat("--", absl::StrJoin(allowed, ", --"))));
    }
  }
  return absl::OkStatus();
}

absl::Status Args::CheckPositional(size_t n, absl::string_view usage) const {
  if (positional.size() == n) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrFormat("expected %d argument%s, got %d (usage: edgeq %s %s)", n, n == 1 ? "" : "s",
                      positional.size(), command, usage));
}

std::string Args::Get(absl::string_view flag, absl::string_view default_value) const {
  auto it = flags.find(std::string(flag));
  return it == flags.end() ? std::string(default_value) : it->second;
}

absl::StatusOr<int64_t> Args::GetInt(absl::string_view flag, int64_t default_value, int64_t lo,
                                     int64_t hi) const {
  auto it = flags.find(std::string(flag));
  if (it == flags.end()) return default_value;
  const std::optional<int64_t> v = ParseDecimalInt64(it->second);
  if (!v.has_value() || *v < lo || *v > hi) {
    return absl::InvalidArgumentError(absl::StrFormat("--%s=%s: expected an integer in [%d, %d]",
                                                      flag, QuoteForError(it->second), lo, hi));
  }
  return *v;
}

Args ParseArgs(int argc, char** argv, int first) {
  Args args;
  bool flags_done = false;
  for (int i = first; i < argc; ++i) {
    absl::string_view a = argv[i];
    args.raw.emplace_back(a);
    if (!flags_done && a == "--") {
      flags_done = true;
    } else if (!flags_done && absl::StartsWith(a, "--") && a.size() > 2) {
      a.remove_prefix(2);
      const size_t eq = a.find('=');
      if (eq == absl::string_view::npos) {
        args.flags[std::string(a)] = "true";
      } else {
        args.flags[std::string(a.substr(0, eq))] = std::string(a.substr(eq + 1));
      }
    } else {
      args.positional.emplace_back(a);
    }
  }
  return args;
}

namespace {
std::map<std::string, Command>& Registry() {
  static auto* commands = new std::map<std::string, Command>();
  return *commands;
}
}  // namespace

bool RegisterCommand(const Command& command) {
  Registry()[command.name] = command;
  return true;
}

const std::map<std::string, Command>& Commands() { return Registry(); }

int Fail(absl::string_view command, const absl::Status& status) {
  std::string message(status.message());
  std::replace(message.begin(), message.end(), '\n', ' ');  // one line, whatever it quotes
  absl::FPrintF(stderr, "edgeq %s: %s\n", command, message);
  return 1;
}

}  // namespace tools
}  // namespace edgeq
