#include "common/data/user_item_lists.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/data/line_reader.h"
#include "common/data/strict_parse.h"

namespace fedmf::data {
namespace {

struct Pair {
  int32_t user = 0;
  int32_t item = 0;
  int64_t line = 0;
};

// One file's interactions, and the line each user is listed on.
struct ParsedFile {
  std::string path;
  std::vector<Pair> pairs;
  absl::flat_hash_map<int32_t, int64_t> user_lines;
};

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

// Splits `line` at runs of spaces and tabs into `fields` (capacity reused across lines).
void SplitFields(absl::string_view line, std::vector<absl::string_view>& fields) {
  fields.clear();
  size_t k = 0;
  while (k < line.size()) {
    while (k < line.size() && IsSpace(line[k])) ++k;
    const size_t start = k;
    while (k < line.size() && !IsSpace(line[k])) ++k;
    if (k > start) fields.push_back(line.substr(start, k - start));
  }
}

bool ParseId(absl::string_view text, int32_t& id) { return ParseInteger(text, id) && id >= 0; }

absl::StatusOr<ParsedFile> ParseFile(absl::string_view path) {
  absl::StatusOr<LineReader> reader = LineReader::Open(path);
  if (!reader.ok()) return reader.status();
  ParsedFile file;
  file.path = std::string(path);
  const auto error = [&](int64_t line, absl::string_view problem) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ": ", problem));
  };
  std::vector<absl::string_view> fields;
  std::vector<int32_t> items;
  int64_t first_blank = 0;  // a blank line is fine only if nothing but blank lines follows it
  absl::string_view line;
  while (reader->Next(line)) {
    SplitFields(line, fields);
    if (fields.empty()) {
      if (first_blank == 0) first_blank = reader->line_number();
      continue;
    }
    const int64_t number = reader->line_number();
    if (first_blank != 0) return error(first_blank, "empty line before the end of the file");
    int32_t user;
    if (!ParseId(fields[0], user)) {
      return error(number,
                   absl::StrCat("user id \"", fields[0], "\" is not an integer in [0, 2^31 - 1]"));
    }
    if (const auto [it, inserted] = file.user_lines.try_emplace(user, number); !inserted) {
      return error(
          number, absl::StrCat("user ", user, " is listed again (first at line ", it->second, ")"));
    }
    items.clear();
    for (size_t f = 1; f < fields.size(); ++f) {
      int32_t item;
      if (!ParseId(fields[f], item)) {
        return error(
            number, absl::StrCat("item id \"", fields[f], "\" is not an integer in [0, 2^31 - 1]"));
      }
      items.push_back(item);
      file.pairs.push_back({user, item, number});
    }
    std::sort(items.begin(), items.end());
    if (const auto twice = std::adjacent_find(items.begin(), items.end()); twice != items.end()) {
      return error(number, absl::StrCat("item ", *twice, " is listed twice for user ", user));
    }
  }
  if (!reader->status().ok()) return reader->status();
  if (file.user_lines.empty())
    return absl::InvalidArgumentError(absl::StrCat(path, ": file is empty"));
  return file;
}

uint64_t Key(int32_t user, int32_t item) {
  return (static_cast<uint64_t>(user) << 32) | static_cast<uint32_t>(item);
}

// InvalidArgument at the first pair of `test` that `train` also holds.
absl::Status CheckDisjoint(const ParsedFile& train, const ParsedFile& test) {
  absl::flat_hash_set<uint64_t> seen;
  seen.reserve(train.pairs.size());
  for (const Pair& p : train.pairs) seen.insert(Key(p.user, p.item));
  for (const Pair& p : test.pairs) {
    if (seen.contains(Key(p.user, p.item))) {
      return absl::InvalidArgumentError(absl::StrCat(test.path, ":", p.line, ": user ", p.user,
                                                     " item ", p.item, " is also in ", train.path,
                                                     " (line ", train.user_lines.at(p.user), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RatingsDataset> LoadUserItemLists(absl::string_view train_path,
                                                 const std::optional<std::string>& test_path) {
  std::vector<ParsedFile> files;
  absl::StatusOr<ParsedFile> train = ParseFile(train_path);
  if (!train.ok()) return train.status();
  files.push_back(*std::move(train));
  if (test_path.has_value()) {
    absl::StatusOr<ParsedFile> test = ParseFile(*test_path);
    if (!test.ok()) return test.status();
    if (absl::Status s = CheckDisjoint(files[0], *test); !s.ok()) return s;
    files.push_back(*std::move(test));
  }

  // Dense indices in the numeric order of the ids.
  std::vector<int32_t> users, items;
  for (const ParsedFile& file : files) {
    for (const auto& [user, line] : file.user_lines) users.push_back(user);
    for (const Pair& p : file.pairs) items.push_back(p.item);
  }
  for (std::vector<int32_t>* ids : {&users, &items}) {
    std::sort(ids->begin(), ids->end());
    ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  }
  RatingsBuilder builder(files.size() == 1 ? std::string(train_path)
                                           : absl::StrCat(train_path, " + ", *test_path));
  for (int32_t user : users) builder.AddUser(std::to_string(user));
  for (int32_t item : items) builder.AddItem(std::to_string(item));
  for (size_t f = 0; f < files.size(); ++f) {
    if (f == 1) builder.BeginPredefinedTest();
    for (const Pair& p : files[f].pairs) {
      builder.Add(std::to_string(p.user), std::to_string(p.item), 1.0f, std::nullopt, p.line);
    }
    std::vector<Pair>().swap(files[f].pairs);  // release as we go
  }
  return std::move(builder).Build(DuplicatePolicy::kError);
}

}  // namespace fedmf::data
