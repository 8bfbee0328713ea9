// MovieLens 100K genres (u.item's 19 genre flags per movie) and the split of a dataset's items
// among VFL parties by genre, after the paper's MovieLens experiments (FMF privacy guarantee,
// §4.3: one genre per party, a movie of several genres going to the genre with the fewest movies).
#ifndef FEDMF_COMMON_DATA_MOVIE_GENRES_H_
#define FEDMF_COMMON_DATA_MOVIE_GENRES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::data {

// u.genre's genres, in flag order; genre 0 is "unknown".
inline constexpr int kMovieLens100KGenres = 19;

// Movie id (u.item's first field, as in u.data) -> bit g set when the movie has genre g.
using MovieGenres = absl::flat_hash_map<std::string, uint32_t>;

// Reads u.item: lines "id|title|release date|video release date|URL|f0|...|f18" with each flag
// 0 or 1 (a title may itself contain '|': the flags are the last 19 fields). InvalidArgument
// naming file and 1-based line for a line with fewer than 24 fields, an empty id, a flag other
// than 0/1 or an id seen before; NotFound for a missing file; an empty file is an error.
absl::StatusOr<MovieGenres> LoadMovieLens100KGenres(absl::string_view path);

// The party (0 .. num_parties - 1) of every dense item of `data`, by genre:
//  1. an item's genres are its flags in `genres`; an item without any flag, or absent from
//     `genres`, has genre 0 ("unknown") only, so every item lands somewhere;
//  2. its primary genre is, among its genres, the one carried by the fewest items of `data`
//     (ties: the lower genre index) -- the paper's rule for movies of several categories;
//  3. the genres that are some item's primary genre, largest first (by their primary items; ties:
//     lower index), each go to the party with the fewest items so far (ties: lower party), so
//     that with num_parties = the number of such genres every party holds exactly one genre, as
//     in the paper, and with fewer parties the blocks stay balanced.
// Deterministic in (data's item ids, genres, num_parties). InvalidArgument if num_parties < 1,
// if no item of `data` is in `genres` (a genre file of another dataset), or if fewer genres than
// parties are primary (a party would own no item).
absl::StatusOr<std::vector<int32_t>> AssignItemsByGenre(const RatingsDataset& data,
                                                        const MovieGenres& genres,
                                                        int32_t num_parties);

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_MOVIE_GENRES_H_
