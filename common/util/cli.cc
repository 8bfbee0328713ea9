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

}  // namespace

std::vector<char*> InitCommandLine(int argc, char** argv, absl::string_view usage) {
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
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  args.erase(args.begin());
  return args;
}

void InitFlagsOnlyCommandLine(int argc, char** argv, absl::string_view usage) {
  const std::vector<char*> args = InitCommandLine(argc, argv, usage);
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
