// What a cross-silo FMF party (VFL-SGDMF, HFL-SGDMF) reports in its final round: squared errors
// summed over its ratings, with their count. The round's sum adds them over the parties, so the
// coordinator learns the mean over every party's ratings and nothing per party. The test error is
// the run's result; the training error is the paper's criterion for choosing the learning rate
// (Sec. 4.3: the rate with the lowest training loss).
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_ERROR_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_ERROR_H_

#include <optional>

#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/data/ratings_dataset.h"

namespace fedmf::algorithms::fmf_party {

struct ErrorSum {
  double squared_error = 0;
  double ratings = 0;
};

// The model's summed squared error over `ratings` (null: a party without such ratings, zeros).
ErrorSum SumSquaredError(const data::RatingsDataset* ratings, const fmf_sgd::Embeddings& model);

// squared_error / ratings; nullopt without ratings.
std::optional<double> MeanOf(const ErrorSum& sum);

}  // namespace fedmf::algorithms::fmf_party

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_PARTY_PARTY_ERROR_H_
