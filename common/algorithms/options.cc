#include "common/algorithms/options.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/algorithms/new_run.h"
#include "fedmf/descriptor_set.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace fedmf::algorithms {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// " (an option of A, B)" naming the other algorithms whose options have a field `name`; empty when
// none has.
std::string OtherAlgorithmWith(absl::string_view name, const Descriptor& own) {
  std::vector<std::string> with;
  for (const std::string& algorithm : NewRunAlgorithms()) {
    absl::StatusOr<const Message*> options = RegisteredDefaultOptions(algorithm);
    if (!options.ok() || (*options)->GetDescriptor() == &own) continue;
    if ((*options)->GetDescriptor()->FindFieldByName(std::string(name)) != nullptr) {
      with.push_back(algorithm);
    }
  }
  if (with.empty()) return "";
  return absl::StrCat(" (an option of ", absl::StrJoin(with, ", "), ")");
}

// The first error of a text-format parse, as FILE:LINE:COLUMN: MESSAGE.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  FirstError(std::string file, const Descriptor& options)
      : file_(std::move(file)), options_(options) {}

  void AddError(int line, int column, const std::string& message) override {
    if (!error_.empty()) return;
    std::string hint;
    // The parser's words for an unknown field: Message type "T" has no field named "NAME".
    constexpr absl::string_view kUnknownField = "has no field named \"";
    if (const size_t at = absl::string_view(message).find(kUnknownField);
        at != absl::string_view::npos) {
      absl::string_view name = absl::string_view(message).substr(at + kUnknownField.size());
      name = name.substr(0, name.find('"'));
      hint = OtherAlgorithmWith(name, options_);
    }
    error_ = absl::StrCat(file_, ":", line + 1, ":", column + 1, ": ", message, hint);
  }

  const std::string& error() const { return error_; }

 private:
  const std::string file_;
  const Descriptor& options_;
  std::string error_;
};

// Merges `text` into `options`; errors as FirstError words them, `where` naming the text.
absl::Status MergeText(absl::string_view text, absl::string_view where, Message& options) {
  FirstError errors(std::string(where), *options.GetDescriptor());
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.MergeFromString(std::string(text), &options)) {
    return absl::InvalidArgumentError(
        absl::StrCat(errors.error().empty() ? absl::StrCat(where, ": does not parse")
                                            : errors.error(),
                     " (", options.GetDescriptor()->full_name(), " in text format)"));
  }
  return absl::OkStatus();
}

absl::Status MergeFile(absl::string_view path, Message& options) {
  std::ifstream in{std::string(path)};
  if (!in) return absl::NotFoundError(absl::StrCat("--config=", path, ": cannot be read"));
  std::stringstream text;
  text << in.rdbuf();
  return MergeText(text.str(), path, options);
}

// The value of `enum_type` that `name` means: its full name, or without the prefix its
// UNSPECIFIED value shares with the others ("gaussian", "MECHANISM_GAUSSIAN"), in any case, '-'
// for '_'.
const EnumValueDescriptor* FindEnumValue(const EnumDescriptor& enum_type, absl::string_view name) {
  const std::string upper = absl::AsciiStrToUpper(absl::StrReplaceAll(name, {{"-", "_"}}));
  if (const EnumValueDescriptor* value = enum_type.FindValueByName(upper)) return value;
  for (int i = 0; i < enum_type.value_count(); ++i) {
    absl::string_view full = enum_type.value(i)->name();
    if (absl::EndsWith(full, upper) && full.size() > upper.size() &&
        full[full.size() - upper.size() - 1] == '_') {
      return enum_type.value(i);
    }
  }
  return nullptr;
}

std::string EnumValueNames(const EnumDescriptor& enum_type) {
  std::vector<std::string> names;
  for (int i = 0; i < enum_type.value_count(); ++i) {
    if (enum_type.value(i)->number() != 0) names.push_back(enum_type.value(i)->name());
  }
  return absl::StrJoin(names, ", ");
}

// A singular scalar field of `message` set from the text `value`.
absl::Status SetField(const FieldDescriptor& field, absl::string_view value, Message& message) {
  const google::protobuf::Reflection& reflection = *message.GetReflection();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      reflection.SetString(&message, &field, std::string(value));
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_ENUM:
      if (const EnumValueDescriptor* v = FindEnumValue(*field.enum_type(), value)) {
        reflection.SetEnum(&message, &field, v);
        return absl::OkStatus();
      }
      return absl::InvalidArgumentError(absl::StrCat("is not one of ",
                                                     EnumValueNames(*field.enum_type())));
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return absl::InvalidArgumentError("is a message: set its fields (FIELD.SUBFIELD=VALUE)");
    default: {
      // The parser's own message would go to the log; the caller's names the override instead.
      FirstError ignored("", *message.GetDescriptor());
      google::protobuf::TextFormat::Parser parser;
      parser.RecordErrorsTo(&ignored);
      if (!parser.ParseFieldValueFromString(std::string(value), &field, &message)) {
        return absl::InvalidArgumentError(absl::StrCat("is not a valid ", field.type_name()));
      }
      return absl::OkStatus();
    }
  }
}

// The declared comment of `field` in its .proto file, from the embedded descriptor set (empty
// when there is none).
std::string FieldComment(const FieldDescriptor& field) {
  static const google::protobuf::DescriptorPool* const pool = [] {
    auto* built = new google::protobuf::DescriptorPool;
    google::protobuf::FileDescriptorSet files;
    if (files.ParseFromArray(kDescriptorSet.data(), static_cast<int>(kDescriptorSet.size()))) {
      for (const google::protobuf::FileDescriptorProto& file : files.file()) built->BuildFile(file);
    }
    return built;
  }();
  const Descriptor* message = pool->FindMessageTypeByName(field.containing_type()->full_name());
  if (message == nullptr) return "";
  const FieldDescriptor* documented = message->FindFieldByName(field.name());
  google::protobuf::SourceLocation location;
  if (documented == nullptr || !documented->GetSourceLocation(&location)) return "";
  return std::string(absl::StripAsciiWhitespace(
      absl::StrCat(location.leading_comments, " ", location.trailing_comments)));
}

// `field` of `message` in text format (a repeated field's values joined by ", ").
std::string FieldValue(const Message& message, const FieldDescriptor& field) {
  google::protobuf::TextFormat::Printer printer;
  if (!field.is_repeated()) {
    std::string value;
    printer.PrintFieldValueToString(message, &field, -1, &value);
    return value;
  }
  std::vector<std::string> values;
  for (int i = 0; i < message.GetReflection()->FieldSize(message, &field); ++i) {
    printer.PrintFieldValueToString(message, &field, i, &values.emplace_back());
  }
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

void DescribeFields(const Message& options, const Message& defaults, absl::string_view prefix,
                    std::string& out) {
  const Descriptor& type = *options.GetDescriptor();
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor& field = *type.field(i);
    const std::string path = absl::StrCat(prefix, field.name());
    if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !field.is_repeated()) {
      DescribeFields(options.GetReflection()->GetMessage(options, &field),
                     defaults.GetReflection()->GetMessage(defaults, &field),
                     absl::StrCat(path, "."), out);
      continue;
    }
    const std::string value = FieldValue(options, field);
    const std::string default_value = FieldValue(defaults, field);
    const std::string type_name =
        field.cpp_type() == FieldDescriptor::CPPTYPE_ENUM
            ? absl::StrCat("one of ", EnumValueNames(*field.enum_type()))
            : std::string(field.type_name());
    absl::StrAppend(&out, "  ", path, " = ", value,
                    value == default_value ? "" : absl::StrCat(" (default ", default_value, ")"),
                    "    (", type_name, ")\n");
    const std::string comment = FieldComment(field);
    for (absl::string_view line : absl::StrSplit(comment, '\n', absl::SkipWhitespace())) {
      absl::StrAppend(&out, "      ", absl::StripAsciiWhitespace(line), "\n");
    }
  }
}

}  // namespace

absl::Status ApplyOverride(absl::string_view override, Message& options) {
  const size_t eq = override.find('=');
  if (eq == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("--set ", override, ": expected FIELD=VALUE"));
  }
  const absl::string_view path = override.substr(0, eq);
  const absl::string_view value = override.substr(eq + 1);
  Message* message = &options;
  const std::vector<absl::string_view> names = absl::StrSplit(path, '.');
  for (size_t i = 0; i < names.size(); ++i) {
    const Descriptor& type = *message->GetDescriptor();
    const FieldDescriptor* field = type.FindFieldByName(std::string(names[i]));
    if (field == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--set ", override, ": ", type.full_name(), " has no field '", names[i], "'",
          i == 0 ? OtherAlgorithmWith(names[i], type) : ""));
    }
    if (field->is_repeated()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--set ", override, ": field '", names[i], "' is repeated: set it in --config"));
    }
    if (i + 1 < names.size()) {
      if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
        return absl::InvalidArgumentError(absl::StrCat("--set ", override, ": field '",
                                                       names[i], "' has no fields"));
      }
      message = message->GetReflection()->MutableMessage(message, field);
      continue;
    }
    if (absl::Status s = SetField(*field, value, *message); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--set ", override, ": '", value, "' ", s.message()));
    }
  }
  return absl::OkStatus();
}

namespace {

// Each override of `overrides` in order (ApplyOverride); the first error.
absl::Status ApplyOverrides(const std::vector<std::string>& overrides, Message& options) {
  for (const std::string& override : overrides) {
    if (absl::Status s = ApplyOverride(override, options); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Message>> ResolveOptions(absl::string_view algorithm,
                                                        absl::string_view config_path,
                                                        const std::vector<std::string>& overrides) {
  absl::StatusOr<const Message*> defaults = RegisteredDefaultOptions(algorithm);
  if (!defaults.ok()) return defaults.status();
  std::unique_ptr<Message> options((*defaults)->New());
  options->CopyFrom(**defaults);
  if (!config_path.empty()) {
    if (absl::Status s = MergeFile(config_path, *options); !s.ok()) return s;
  }
  if (absl::Status s = ApplyOverrides(overrides, *options); !s.ok()) return s;
  return options;
}

absl::StatusOr<std::unique_ptr<Message>> OptionsFromText(absl::string_view algorithm,
                                                         absl::string_view text,
                                                         absl::string_view where,
                                                         const std::vector<std::string>& overrides) {
  absl::StatusOr<const Message*> defaults = RegisteredDefaultOptions(algorithm);
  if (!defaults.ok()) return defaults.status();
  std::unique_ptr<Message> options((*defaults)->New());
  if (absl::Status s = MergeText(text, where, *options); !s.ok()) return s;
  if (absl::Status s = ApplyOverrides(overrides, *options); !s.ok()) return s;
  return options;
}

std::string OptionsText(const Message& options) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  std::string text;
  printer.PrintToString(options, &text);
  return std::string(absl::StripAsciiWhitespace(text));
}

absl::StatusOr<std::string> DescribeOptions(absl::string_view algorithm,
                                            absl::string_view config_path,
                                            const std::vector<std::string>& overrides) {
  absl::StatusOr<std::unique_ptr<Message>> options =
      ResolveOptions(algorithm, config_path, overrides);
  if (!options.ok()) return options.status();
  const Message& defaults = *RegisteredDefaultOptions(algorithm).value();
  std::string out = absl::StrCat(
      algorithm, " options (", defaults.GetDescriptor()->full_name(),
      "): --config=FILE in protobuf text format, then --set FIELD=VALUE; FIELD = VALUE:\n");
  DescribeFields(**options, defaults, "", out);
  return out;
}

}  // namespace fedmf::algorithms
