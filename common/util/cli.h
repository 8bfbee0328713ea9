// Command-line setup shared by every fedmf binary: usage text, --help listing the binary's own
// flags (not Abseil's internals), --version, and --flagfile=PATH for settings kept in a file.
#ifndef FEDMF_COMMON_UTIL_CLI_H_
#define FEDMF_COMMON_UTIL_CLI_H_

#include <vector>

#include "absl/strings/string_view.h"

namespace fedmf {

// Parses the command line (exits on --help or a bad flag, as Abseil does) and returns the
// positional arguments after the program name.
std::vector<char*> InitCommandLine(int argc, char** argv, absl::string_view usage);

}  // namespace fedmf

#endif  // FEDMF_COMMON_UTIL_CLI_H_
