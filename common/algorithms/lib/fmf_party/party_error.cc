#include "common/algorithms/lib/fmf_party/party_error.h"

namespace fedmf::algorithms::fmf_party {

ErrorSum SumSquaredError(const data::RatingsDataset* ratings, const fmf_sgd::Embeddings& model) {
  if (ratings == nullptr || ratings->num_ratings() == 0) return {};
  const auto count = static_cast<double>(ratings->num_ratings());
  return {.squared_error = fmf_sgd::MeanSquaredError(*ratings, model) * count, .ratings = count};
}

std::optional<double> MeanOf(const ErrorSum& sum) {
  if (sum.ratings < 1) return std::nullopt;
  return sum.squared_error / sum.ratings;
}

}  // namespace fedmf::algorithms::fmf_party
