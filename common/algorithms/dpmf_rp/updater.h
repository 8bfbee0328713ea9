// The server side of DPMF-RP: owns B (p x k), the Adam moments and the round counter; plans each
// round's broadcast (fresh public D_xi seed, the run's fixed S seed and mechanism parameters) and
// turns a round's decoded sum into an Adam step on B (docs/algorithms.md):
//   gradient of eq. 4 w.r.t. B, with V = S^T B:
//     dJ/dB = S dJ/dV = -2 (n / |A|) sum_{i in A} S F^i + 2 mu S S^T B
//   The first term is the unbiased estimate, from the |A| contributors, of the data term summed
//   over all n users; S S^T = diag(items per bucket) (each item falls in exactly one bucket), so
//   the regularization 2 mu v_j of eq. 7 is carried exactly into the projected space. Without
//   projection S = I and this is eq. 7 itself.
#ifndef FEDMF_COMMON_ALGORITHMS_DPMF_RP_UPDATER_H_
#define FEDMF_COMMON_ALGORITHMS_DPMF_RP_UPDATER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/algorithm.h"
#include "common/algorithms/dpmf_rp/codec.h"
#include "common/algorithms/dpmf_rp/config.h"
#include "common/dp/sparse_projection.h"
#include "common/mf/adam.h"
#include "fedmf/v1/dpmf_rp.pb.h"

namespace fedmf::algorithms::dpmf_rp {

class DpmfRpUpdater final : public Updater {
 public:
  // Round 0: V uniform in [-init_scale, init_scale) from config.seed, B = S V; mechanism
  // parameters calibrated for the budget (calibration.h; for PBM this may take a second).
  static absl::StatusOr<std::unique_ptr<DpmfRpUpdater>> Create(const DpmfRpConfig& config);
  // From SerializeState() bytes (a fedmf.v1.DpmfRpState), every field validated.
  static absl::StatusOr<std::unique_ptr<DpmfRpUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return round_; }
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  absl::Status ApplySum(absl::Span<const uint64_t> sum, int64_t contributors) override;
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  std::optional<dp::PrivacyBudget> budget() const override;
  absl::StatusOr<mf::FactorMatrix> ItemFactors() const override;
  absl::StatusOr<std::string> SerializeState() const override;

  // dJ/dB for a decoded sum of X's over `contributors` users (the formula above).
  Eigen::MatrixXd Gradient(const Eigen::MatrixXd& decoded_sum, int64_t contributors) const;

  const DpmfRpConfig& config() const { return config_; }
  const v1::DpmfRpMechanism& mechanism() const { return mechanism_; }
  const Eigen::MatrixXd& b() const { return b_; }
  const mf::Adam& adam() const { return adam_; }
  uint64_t projection_seed() const { return projection_seed_; }
  // The public seed of D_xi in round t (a function of config.seed and t).
  uint64_t HadamardSeed(int64_t round) const;

 private:
  DpmfRpUpdater(DpmfRpConfig config, v1::DpmfRpMechanism mechanism, uint64_t projection_seed,
                std::optional<dp::SparseProjection> projection, Eigen::MatrixXd b, mf::Adam adam,
                int64_t round);
  absl::StatusOr<ContributionCodec> RoundCodec() const;

  DpmfRpConfig config_;
  v1::DpmfRpMechanism mechanism_;
  uint64_t projection_seed_;
  std::optional<dp::SparseProjection> projection_;
  Eigen::VectorXd bucket_items_;  // diag(S S^T): items per row of S (ones without projection)
  Eigen::MatrixXd b_;
  mf::Adam adam_;
  int64_t round_;
};

}  // namespace fedmf::algorithms::dpmf_rp

#endif  // FEDMF_COMMON_ALGORITHMS_DPMF_RP_UPDATER_H_
