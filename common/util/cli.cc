#include "common/util/cli.h"

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

}  // namespace

std::vector<char*> InitCommandLine(int argc, char** argv, absl::string_view usage) {
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

}  // namespace fedmf
