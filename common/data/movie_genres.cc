#include "common/data/movie_genres.h"

#include <algorithm>
#include <array>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/data/line_reader.h"

namespace fedmf::data {
namespace {

// Fields before the genre flags: id, title, release date, video release date, IMDb URL.
constexpr size_t kFieldsBeforeFlags = 5;

absl::Status LineError(absl::string_view path, int64_t line, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ": ", problem));
}

// Genre mask of item `i`: its flags, or genre 0 when it has none or is not in `genres`.
uint32_t GenresOf(const RatingsDataset& data, int32_t i, const MovieGenres& genres) {
  const auto it = genres.find(data.item_id(i));
  return it == genres.end() || it->second == 0 ? 1u : it->second;
}

}  // namespace

absl::StatusOr<MovieGenres> LoadMovieLens100KGenres(absl::string_view path) {
  absl::StatusOr<LineReader> reader = LineReader::Open(path);
  if (!reader.ok()) return reader.status();
  MovieGenres genres;
  absl::string_view line;
  int64_t first_blank = 0;  // a blank line is fine only if nothing but blank lines follows it
  while (reader->Next(line)) {
    const int64_t n = reader->line_number();
    if (line.empty()) {
      if (first_blank == 0) first_blank = n;
      continue;
    }
    if (first_blank != 0) return LineError(path, first_blank, "empty line before the end");
    const std::vector<absl::string_view> fields = absl::StrSplit(line, '|');
    if (fields.size() < kFieldsBeforeFlags + kMovieLens100KGenres) {
      return LineError(path, n,
                       absl::StrCat("expected at least ", kFieldsBeforeFlags + kMovieLens100KGenres,
                                    " '|'-separated fields, found ", fields.size()));
    }
    if (fields[0].empty()) return LineError(path, n, "field 'id' is empty");
    uint32_t mask = 0;
    const size_t first_flag = fields.size() - kMovieLens100KGenres;
    for (int g = 0; g < kMovieLens100KGenres; ++g) {
      const absl::string_view flag = fields[first_flag + static_cast<size_t>(g)];
      if (flag != "0" && flag != "1") {
        return LineError(path, n, absl::StrCat("genre flag ", g, " is \"", flag, "\", not 0 or 1"));
      }
      if (flag == "1") mask |= 1u << g;
    }
    if (!genres.emplace(std::string(fields[0]), mask).second) {
      return LineError(path, n, absl::StrCat("movie id '", fields[0], "' given twice"));
    }
  }
  if (!reader->status().ok()) return reader->status();
  if (genres.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": file is empty"));
  return genres;
}

absl::StatusOr<std::vector<int32_t>> AssignItemsByGenre(const RatingsDataset& data,
                                                        const MovieGenres& genres,
                                                        int32_t num_parties) {
  if (num_parties < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("genre split: number of parties must be >= 1, got ", num_parties));
  }
  const int32_t num_items = data.num_items();
  std::array<int64_t, kMovieLens100KGenres> carried{};  // items carrying each genre
  bool any_known = false;
  for (int32_t i = 0; i < num_items; ++i) {
    any_known = any_known || genres.contains(data.item_id(i));
    const uint32_t mask = GenresOf(data, i, genres);
    for (int g = 0; g < kMovieLens100KGenres; ++g) carried[g] += (mask >> g) & 1u;
  }
  if (!any_known) {
    return absl::InvalidArgumentError(
        absl::StrCat("genre split: none of the dataset's ", num_items,
                     " items is in the genre file (a genre file of another dataset?)"));
  }
  std::vector<int32_t> primary(static_cast<size_t>(num_items));
  std::array<int64_t, kMovieLens100KGenres> size{};  // items whose primary genre each genre is
  for (int32_t i = 0; i < num_items; ++i) {
    const uint32_t mask = GenresOf(data, i, genres);
    int best = -1;
    for (int g = 0; g < kMovieLens100KGenres; ++g) {
      if (((mask >> g) & 1u) != 0 && (best < 0 || carried[g] < carried[best])) best = g;
    }
    primary[static_cast<size_t>(i)] = best;
    ++size[best];
  }
  std::vector<int> order;
  for (int g = 0; g < kMovieLens100KGenres; ++g) {
    if (size[g] > 0) order.push_back(g);
  }
  if (static_cast<int32_t>(order.size()) < num_parties) {
    return absl::InvalidArgumentError(absl::StrCat("genre split: only ", order.size(),
                                                   " genres are some item's primary genre, ",
                                                   "too few for ", num_parties, " parties"));
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return size[a] > size[b]; });
  std::array<int32_t, kMovieLens100KGenres> party_of{};
  std::vector<int64_t> load(static_cast<size_t>(num_parties), 0);
  for (int g : order) {
    const auto lightest = std::min_element(load.begin(), load.end());  // first of equals
    party_of[g] = static_cast<int32_t>(lightest - load.begin());
    *lightest += size[g];
  }
  std::vector<int32_t> party(static_cast<size_t>(num_items));
  for (size_t i = 0; i < party.size(); ++i) party[i] = party_of[primary[i]];
  return party;
}

}  // namespace fedmf::data
