#include "common/util/cli.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/flags/internal/usage.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "fedmf/build_info.h"

namespace fedmf {
namespace {

// Flags defined in fedmf's sources; Abseil's own are reachable with --helpfull.
bool IsProjectFlagFile(absl::string_view file) { return !absl::StrContains(file, "absl/"); }

std::string Version() { return "fedmf " FEDMF_VERSION " (commit " FEDMF_COMMIT ")\n"; }

// The name errors are reported under; set once by InitCommandLine.
std::string& ProgramName() {
  static std::string* name = new std::string("fedmf");
  return *name;
}

// Answers --help, --helpfull, --version and the other usage flags on stdout with exit status 0.
// Abseil's parser (20220623, Debian 12) answers them itself but exits 1 after help, which scripts
// read as a failure; so they are found here first, with Abseil's own rules
// (flags_internal::DeduceUsageFlags, the one internal API used), and answered by Abseil's printer.
void AnswerUsageFlags(int argc, char** argv, absl::string_view usage) {
  namespace internal = absl::flags_internal;
  bool asked = false;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;  // what follows is positional
    if (!absl::ConsumePrefix(&arg, "--") && !absl::ConsumePrefix(&arg, "-")) continue;
    const size_t eq = arg.find('=');
    const absl::string_view value = eq == absl::string_view::npos ? "" : arg.substr(eq + 1);
    asked = internal::DeduceUsageFlags(arg.substr(0, eq), value) || asked;
  }
  // --only_check_args needs the parse: Abseil answers it.
  if (!asked || internal::GetFlagsHelpMode() == internal::HelpMode::kOnlyCheckArgs) return;
  internal::HandleUsageFlags(std::cout, usage);
  std::cout.flush();
  std::exit(0);
}

// Takes every occurrence of the `repeated` flags out of argv (what precedes a "--"), returning the
// other arguments and, per flag, its values in order.
std::vector<char*> TakeRepeatedFlags(int argc, char** argv,
                                     const std::vector<RepeatedFlag>& repeated,
                                     std::vector<std::vector<std::string>>& values) {
  values.assign(repeated.size(), {});
  std::vector<char*> rest;
  bool positional = false;
  for (int i = 0; i < argc; ++i) {
    absl::string_view arg = argv[i];
    positional = positional || arg == "--";
    bool taken = false;
    if (i > 0 && !positional &&
        (absl::ConsumePrefix(&arg, "--") || absl::ConsumePrefix(&arg, "-"))) {
      for (size_t f = 0; f < repeated.size() && !taken; ++f) {
        absl::string_view value = arg;
        if (absl::ConsumePrefix(&value, repeated[f].name)) {
          if (absl::ConsumePrefix(&value, "=")) {
            values[f].emplace_back(value);
            taken = true;
          } else if (value.empty() && i + 1 < argc) {
            values[f].emplace_back(argv[++i]);
            taken = true;
          }
        }
      }
    }
    if (!taken) rest.push_back(argv[i]);
  }
  return rest;
}

}  // namespace

std::vector<char*> InitCommandLine(int argc, char** argv, absl::string_view usage,
                                   const std::vector<RepeatedFlag>& repeated) {
  if (argc > 0) {
    const absl::string_view path = argv[0];
    ProgramName() = std::string(path.substr(path.find_last_of('/') + 1));
  }
  absl::FlagsUsageConfig config;
  config.contains_help_flags = IsProjectFlagFile;
  config.contains_helpshort_flags = IsProjectFlagFile;
  config.version_string = Version;
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(usage);
  AnswerUsageFlags(argc, argv, usage);
  std::vector<std::vector<std::string>> values;
  std::vector<char*> rest = TakeRepeatedFlags(argc, argv, repeated, values);
  std::vector<char*> args = absl::ParseCommandLine(static_cast<int>(rest.size()), rest.data());
  for (size_t f = 0; f < repeated.size(); ++f) {
    if (!values[f].empty()) absl::SetFlag(repeated[f].flag, values[f]);
  }
  args.erase(args.begin());
  return args;
}

void InitFlagsOnlyCommandLine(int argc, char** argv, absl::string_view usage,
                              const std::vector<RepeatedFlag>& repeated) {
  const std::vector<char*> args = InitCommandLine(argc, argv, usage, repeated);
  if (!args.empty()) {
    std::fprintf(stderr, "%s: unexpected argument '%s' (flags only; see --help)\n",
                 ProgramName().c_str(), args[0]);
    std::exit(2);
  }
}

int ExitCode(const absl::Status& status) {
  if (status.ok()) return 0;
  std::fprintf(stderr, "%s: %s\n", ProgramName().c_str(), status.ToString().c_str());
  return 1;
}

}  // namespace fedmf
