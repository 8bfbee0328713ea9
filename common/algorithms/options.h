// An algorithm's options: its typed message fedmf.v1.<Name>Options, what a user chooses for a
// fresh run apart from the run-level settings every algorithm shares (rounds, budget, cohort,
// seed: the runtime's flags). ResolveOptions makes them from the algorithm's registered defaults
// (new_run.h), then a protobuf text-format file (--config=FILE), then FIELD=VALUE overrides
// (--set, nested fields by dotted path), later ones winning. DescribeOptions prints every field
// with its type, default and the comment of its .proto declaration (fedmf/descriptor_set.h).
//
// Errors are InvalidArgument and name where: FILE:LINE:COLUMN for the file, the override as
// given for --set. A field the algorithm does not have is an error naming it (and the algorithm
// whose options have it, when one does); so is a value that is not of the field's type. Whether
// a value is in range is the algorithm's to say when its run starts, naming field and value.
#ifndef FEDMF_COMMON_ALGORITHMS_OPTIONS_H_
#define FEDMF_COMMON_ALGORITHMS_OPTIONS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace fedmf::algorithms {

// The options of a fresh run of `algorithm` (FailedPrecondition when this binary cannot start
// one):
// its defaults, then the file at `config_path` (empty: none; NotFound when it cannot be read),
// then each "FIELD=VALUE" of `overrides` in order. VALUE is in text format, except that a string
// needs no quotes and an enum may be named without its type's prefix, in any case ("gaussian"
// for MECHANISM_GAUSSIAN).
absl::StatusOr<std::unique_ptr<google::protobuf::Message>> ResolveOptions(
    absl::string_view algorithm, absl::string_view config_path,
    const std::vector<std::string>& overrides);

// The options of a fresh run of `algorithm` from `text`, the whole options in text format as
// OptionsText prints them (a field left out is zero, not its default), then `overrides` as
// ResolveOptions applies them. A parse error is "WHERE:LINE:COLUMN: MESSAGE" (`where` names the
// text), an unknown field named as ResolveOptions names it.
absl::StatusOr<std::unique_ptr<google::protobuf::Message>> OptionsFromText(
    absl::string_view algorithm, absl::string_view text, absl::string_view where,
    const std::vector<std::string>& overrides = {});

// Applies one "FIELD=VALUE" override to `options` (ResolveOptions' rules).
absl::Status ApplyOverride(absl::string_view override, google::protobuf::Message& options);

// `options` in text format on one line, as the event=new_run line and the checkpoint record them
// (a field at zero is left out, as proto3 does; parsing the text gives `options` back).
std::string OptionsText(const google::protobuf::Message& options);

// Every field of `algorithm`'s options as ResolveOptions makes them from the same arguments:
// "FIELD = VALUE  (TYPE)", "(default D)" after a value that is not the default, then the
// field's documentation; nested messages' fields by their dotted path. ResolveOptions' errors.
absl::StatusOr<std::string> DescribeOptions(absl::string_view algorithm,
                                            absl::string_view config_path = "",
                                            const std::vector<std::string>& overrides = {});

}  // namespace fedmf::algorithms

#endif  // FEDMF_COMMON_ALGORITHMS_OPTIONS_H_
