// Loader of the user-item list format of LightGCN's public splits of Gowalla, Yelp2018 and
// Amazon-Book (used by NGCF, LightGCN, GF-CF, BSPM, Turbo-CF and PriviRec): one line per user,
// "USER ITEM ITEM ...", implicit feedback. Optionally a second file in the same format is the
// dataset's predefined test part (RatingsDataset::predefined_test(), --split=predefined). All or
// nothing: a malformed file gives InvalidArgument naming file, 1-based line and problem; a missing
// file NotFound.
#ifndef FEDMF_COMMON_DATA_USER_ITEM_LISTS_H_
#define FEDMF_COMMON_DATA_USER_ITEM_LISTS_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::data {

// Format: fields separated by spaces or tabs (runs of them, and leading or trailing ones, are
// fine); the first field is the user id, the others the ids of the items the user interacted
// with; a line with the user id alone is a user without interactions. Ids are non-negative
// decimal integers (strict: "7x", "+7", "-1" are errors). Every pair is a rating of 1, without
// timestamp. Errors: a user on two lines of one file, an item twice on one line, a pair in both
// files, an empty file; blank lines only at the end of a file.
//
// Dense indices follow the numeric order of the ids listed in either file: for the usual dense ids
// (0..N-1, each listed) the dense index of user u is u and that of item i is i, as the reference
// code of the papers above indexes them. The original ids are kept as their decimal text.
absl::StatusOr<RatingsDataset> LoadUserItemLists(
    absl::string_view train_path, const std::optional<std::string>& test_path = std::nullopt);

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_USER_ITEM_LISTS_H_
