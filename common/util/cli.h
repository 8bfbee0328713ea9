// Command-line setup shared by every fedmf binary: usage text, --help listing the binary's own
// flags (not Abseil's internals) on stdout with exit status 0, --version (the version and the
// commit built from), and --flagfile=PATH for settings kept in a file.
#ifndef FEDMF_COMMON_UTIL_CLI_H_
#define FEDMF_COMMON_UTIL_CLI_H_

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fedmf {

// A list flag that may be given many times, each occurrence (--NAME=VALUE or --NAME VALUE) adding
// its value whole, commas included; Abseil alone keeps only the last occurrence.
struct RepeatedFlag {
  absl::string_view name;  // without the dashes
  absl::Flag<std::vector<std::string>>* flag;
};

// Parses the command line and returns the positional arguments after the program name. Exits 0
// after answering --help or --version, 1 on a bad flag (as Abseil does).
std::vector<char*> InitCommandLine(int argc, char** argv, absl::string_view usage,
                                   const std::vector<RepeatedFlag>& repeated = {});

// InitCommandLine for binaries that take flags only: a positional argument (a stray word, or a
// flag's value after a space where the flag was mistyped) exits 2 naming it, instead of being
// silently ignored.
void InitFlagsOnlyCommandLine(int argc, char** argv, absl::string_view usage,
                              const std::vector<RepeatedFlag>& repeated = {});

// main's result for the status of the binary's work: 0 when OK, else 1 after printing
// "PROGRAM: STATUS" to stderr (PROGRAM = the file name the binary was started as).
int ExitCode(const absl::Status& status);

}  // namespace fedmf

#endif  // FEDMF_COMMON_UTIL_CLI_H_
