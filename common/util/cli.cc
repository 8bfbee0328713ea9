#include "common/util/cli.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"

namespace fedmf {
namespace {

// Flags defined in fedmf's sources; Abseil's own are reachable with --helpfull.
bool IsProjectFlagFile(absl::string_view file) { return !absl::StrContains(file, "absl/"); }

std::string Version() { return "fedmf " FEDMF_VERSION "\n"; }

// The name errors are reported under; set once by InitCommandLine.
std::string& ProgramName() {
  static std::string* name = new std::string("fedmf");
  return *name;
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
