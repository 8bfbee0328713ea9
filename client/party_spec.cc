#include "client/party_spec.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/party_split.h"
#include "common/data/dataset_source.h"
#include "common/data/movie_genres.h"

namespace fedmf::client {

namespace {

constexpr std::pair<absl::string_view, PartySpec::Kind> kKinds[] = {
    {"hfl", PartySpec::Kind::kHorizontal},
    {"vfl", PartySpec::Kind::kVertical},
    {"vfl-genre", PartySpec::Kind::kVerticalByGenre}};

bool ParseKind(absl::string_view name, PartySpec::Kind& kind) {
  for (const auto& [known, k] : kKinds) {
    if (name == known) {
      kind = k;
      return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<PartySpec> ParsePartySpec(absl::string_view text) {
  const auto error = [&](absl::string_view problem) {
    return absl::InvalidArgumentError(
        absl::StrCat("--party must be KIND:I/N with KIND hfl, vfl or vfl-genre and 0 <= I < N, "
                     "got '",
                     text, "': ", problem));
  };
  const size_t colon = text.find(':');
  if (colon == absl::string_view::npos) return error("no ':'");
  PartySpec spec;
  const absl::string_view kind = text.substr(0, colon);
  if (!ParseKind(kind, spec.kind)) return error(absl::StrCat("unknown kind '", kind, "'"));
  const absl::string_view numbers = text.substr(colon + 1);
  const size_t slash = numbers.find('/');
  if (slash == absl::string_view::npos ||
      !absl::SimpleAtoi(numbers.substr(0, slash), &spec.party) ||
      !absl::SimpleAtoi(numbers.substr(slash + 1), &spec.num_parties)) {
    return error("I/N are not two integers");
  }
  if (spec.num_parties < 1) return error("N < 1");
  if (spec.party < 0 || spec.party >= spec.num_parties) return error("I is outside [0, N)");
  return spec;
}

absl::StatusOr<std::vector<PartySpec>> ParseParties(absl::string_view text) {
  const auto error = [&](absl::string_view problem) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--parties must be KIND:N with KIND hfl, vfl or vfl-genre and N >= 1, got '", text,
        "': ", problem));
  };
  const size_t colon = text.find(':');
  if (colon == absl::string_view::npos) return error("no ':'");
  PartySpec spec;
  const absl::string_view kind = text.substr(0, colon);
  if (!ParseKind(kind, spec.kind)) return error(absl::StrCat("unknown kind '", kind, "'"));
  if (!absl::SimpleAtoi(text.substr(colon + 1), &spec.num_parties)) {
    return error("N is not an integer");
  }
  if (spec.num_parties < 1) return error("N < 1");
  std::vector<PartySpec> parties;
  for (spec.party = 0; spec.party < spec.num_parties; ++spec.party) parties.push_back(spec);
  return parties;
}

algorithms::Hosting HostingOf(PartySpec::Kind kind) {
  return kind == PartySpec::Kind::kHorizontal ? algorithms::Hosting::kHorizontalParties
                                               : algorithms::Hosting::kVerticalParties;
}

absl::StatusOr<std::string> ItemGenresPath(absl::string_view item_genres,
                                           absl::string_view data_spec) {
  if (!item_genres.empty()) return std::string(item_genres);
  absl::StatusOr<data::DataSpec> spec = data::ParseDataSpec(data_spec);
  if (spec.ok() && spec->kind == data::DataSpec::Kind::kMovieLens100K) {
    const size_t slash = spec->path.rfind('/');
    return absl::StrCat(slash == std::string::npos ? "" : spec->path.substr(0, slash + 1),
                        "u.item");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--party=vfl-genre needs MovieLens 100K genres: --item_genres=PATH/u.item, or "
                   "--data=ml-100k:DIR/u.data with u.item beside it (--data is '",
                   data_spec, "')"));
}

absl::StatusOr<std::shared_ptr<const algorithms::PartyShard>> MakePartyShard(
    const PartySpec& spec, const data::RatingsDataset& train, const data::RatingsDataset* test,
    absl::string_view genres_path) {
  absl::StatusOr<algorithms::PartyShard> shard;
  switch (spec.kind) {
    case PartySpec::Kind::kHorizontal:
      shard = algorithms::HorizontalParty(train, test, spec.party, spec.num_parties);
      break;
    case PartySpec::Kind::kVertical:
      shard = algorithms::VerticalParty(train, test, spec.party, spec.num_parties);
      break;
    case PartySpec::Kind::kVerticalByGenre: {
      absl::StatusOr<data::MovieGenres> genres = data::LoadMovieLens100KGenres(genres_path);
      if (!genres.ok()) return genres.status();
      absl::StatusOr<std::vector<int32_t>> owners =
          data::AssignItemsByGenre(train, *genres, spec.num_parties);
      if (!owners.ok()) return owners.status();
      shard = algorithms::VerticalPartyOf(train, test, *owners, spec.party, spec.num_parties);
      break;
    }
  }
  if (!shard.ok()) return shard.status();
  return std::make_shared<const algorithms::PartyShard>(std::move(*shard));
}

absl::StatusOr<std::unique_ptr<ParticipantHost>> HostParty(
    const PartySpec& spec, absl::string_view item_genres, absl::string_view data_spec,
    const data::RatingsDataset& train, const data::RatingsDataset* test,
    std::optional<uint64_t> insecure_noise_seed) {
  std::string genres_path;
  if (spec.kind == PartySpec::Kind::kVerticalByGenre) {
    absl::StatusOr<std::string> path = ItemGenresPath(item_genres, data_spec);
    if (!path.ok()) return path.status();
    genres_path = std::move(*path);
  } else if (!item_genres.empty()) {
    return absl::InvalidArgumentError("--item_genres is read by --party=vfl-genre only");
  }
  absl::StatusOr<std::shared_ptr<const algorithms::PartyShard>> shard =
      MakePartyShard(spec, train, test, genres_path);
  if (!shard.ok()) return shard.status();
  return ParticipantHost::CreateParty(std::move(*shard), static_cast<uint32_t>(spec.party) + 1,
                                      insecure_noise_seed);
}

}  // namespace fedmf::client
