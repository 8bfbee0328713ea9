// fedmf-client's --party=KIND:I/N (one silo party of a cross-silo federation) and the shard it
// hosts: KIND hfl (party I of N holds the I-th block of users, every item), vfl (every user, the
// I-th block of items) or vfl-genre (every user, the MovieLens items whose genres
// data::AssignItemsByGenre gives party I); 0 <= I < N, participant id I + 1. fedmf-sim's
// --parties=KIND:N hosts all N parties of a federation in one process, each exactly as
// fedmf-client --party=KIND:I/N would (HostParty below).
#ifndef FEDMF_CLIENT_PARTY_SPEC_H_
#define FEDMF_CLIENT_PARTY_SPEC_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/participant_host.h"
#include "common/algorithms/local_data.h"
#include "common/algorithms/registry.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::client {

struct PartySpec {
  enum class Kind { kHorizontal, kVertical, kVerticalByGenre };
  Kind kind = Kind::kHorizontal;
  int32_t party = 0;        // I
  int32_t num_parties = 1;  // N
};

// InvalidArgument naming the text unless it is KIND:I/N as above.
absl::StatusOr<PartySpec> ParsePartySpec(absl::string_view text);

// fedmf-sim's --parties=KIND:N: the N specs KIND:0/N .. KIND:N-1/N; InvalidArgument naming the
// text unless it is KIND:N with a KIND as above and N >= 1.
absl::StatusOr<std::vector<PartySpec>> ParseParties(absl::string_view text);

// The hosting a party of `kind` gives its algorithm (algorithms/registry.h): HFL or VFL parties.
algorithms::Hosting HostingOf(PartySpec::Kind kind);

// The u.item a vfl-genre party reads: `item_genres` if non-empty, else the u.item beside the
// u.data of an ml-100k `data_spec` (ml-100k:DIR/u.data -> DIR/u.item); InvalidArgument for any
// other data spec.
absl::StatusOr<std::string> ItemGenresPath(absl::string_view item_genres,
                                           absl::string_view data_spec);

// The shard of `spec`'s party from a split (`test` may be null), reading the genres from
// `genres_path` for vfl-genre (algorithms/party_split.h, data/movie_genres.h); their errors.
absl::StatusOr<std::shared_ptr<const algorithms::PartyShard>> MakePartyShard(
    const PartySpec& spec, const data::RatingsDataset& train, const data::RatingsDataset* test,
    absl::string_view genres_path);

// fedmf-client --party (`spec`), --item_genres=`item_genres` and --data=`data_spec`: a host of
// the one participant I + 1 holding MakePartyShard's shard (ParticipantHost::CreateParty); the
// errors of the functions above, and InvalidArgument for `item_genres` with another kind than
// vfl-genre.
absl::StatusOr<std::unique_ptr<ParticipantHost>> HostParty(
    const PartySpec& spec, absl::string_view item_genres, absl::string_view data_spec,
    const data::RatingsDataset& train, const data::RatingsDataset* test,
    std::optional<uint64_t> insecure_noise_seed);

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_PARTY_SPEC_H_
