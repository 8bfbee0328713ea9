// PriviRec's client side (privirec.h): validates the plan, turns one user's items into its sparse
// degree or Gram contribution, and scores with the graph filter it builds from the broadcast sums.
// The filter (P~ and, for GF-CF and BSPM, Lanczos for the low-pass) is built on the first score,
// so a contributor that only contributes never pays for it.
#ifndef FEDMF_COMMON_ALGORITHMS_PRIVIREC_CONTRIBUTOR_H_
#define FEDMF_COMMON_ALGORITHMS_PRIVIREC_CONTRIBUTOR_H_

#include <memory>
#include <mutex>
#include <optional>

#include "absl/status/statusor.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/lib/graph_filter/config.h"
#include "common/dp/noise_committee.h"
#include "fedmf/v1/algorithm.pb.h"
#include "fedmf/v1/privirec.pb.h"

namespace fedmf::algorithms::privirec {

// The model as a Scorer: before both sums, the item degrees known so far (popularity; zeros
// before phase 0); after, the graph filter built from them on first use.
class PriviRecScorer final : public Scorer {
 public:
  PriviRecScorer(std::shared_ptr<const v1::PriviRecModel> model,
                 graph_filter::GraphFilterConfig filter);

  int32_t num_items() const override { return model_->config().num_items(); }
  absl::StatusOr<Eigen::VectorXd> Scores(const data::RatingRow& ratings) const override;
  absl::StatusOr<Eigen::MatrixXd> ScoresBatch(
      absl::Span<const data::RatingRow> users) const override;
  bool predicts_ratings() const override { return false; }
  absl::StatusOr<Eigen::VectorXd> PredictRatings(const data::RatingRow& ratings,
                                                 double fallback_mean) const override;

 private:
  // The scorer the model defines, built once.
  absl::StatusOr<const Scorer*> Model() const;

  std::shared_ptr<const v1::PriviRecModel> model_;
  graph_filter::GraphFilterConfig filter_;
  mutable std::once_flag once_;
  mutable absl::Status built_status_;
  mutable std::unique_ptr<Scorer> built_;
};

class PriviRecContributor final : public Contributor {
 public:
  // InvalidArgument for a plan this algorithm did not make: name, payload, config, model, and the
  // plan's phase, length, bits, combination and contributor range.
  static absl::StatusOr<std::unique_ptr<PriviRecContributor>> Create(const v1::RoundPlan& plan);

  // Users only: InvalidArgument for a party, an item outside the catalogue, or an unknown
  // participant id (0) with a noise committee (noise.h); FailedPrecondition once both sums are
  // applied. The state stays empty.
  absl::StatusOr<Contribution> Contribute(const LocalData& data, absl::string_view state,
                                          dp::Rng& rng) const override;
  const Scorer& scorer() const override { return scorer_; }

 private:
  PriviRecContributor(std::shared_ptr<const v1::PriviRecModel> model,
                      graph_filter::GraphFilterConfig filter,
                      std::optional<dp::NoiseCommittee> committee)
      : model_(model),
        alpha_(filter.alpha),
        committee_(std::move(committee)),
        scorer_(std::move(model), std::move(filter)) {}

  std::shared_ptr<const v1::PriviRecModel> model_;
  double alpha_;
  // The users that add noise, derived from the plan's config; none: every user.
  std::optional<dp::NoiseCommittee> committee_;
  PriviRecScorer scorer_;
};

}  // namespace fedmf::algorithms::privirec

#endif  // FEDMF_COMMON_ALGORITHMS_PRIVIREC_CONTRIBUTOR_H_
