// The server side of DPMF-RP: owns the item model (B = S V, p x k, for the compressed item model;
// V, m x k, otherwise), the Adam moments and the round counter; plans each round's broadcast
// (public seeds of S and D_xi, the run's mechanism parameters) and turns a round's decoded sum of
// X^i = S F^i into one Adam step on its matrix (docs/algorithms.md). The gradient of eq. 4:
//   compressed, V = S^T B:  dJ/dB = S dJ/dV = -2 (n / |A|) sum_{i in A} S F^i + 2 mu S S^T B
//   full, fresh S_t:        dJ/dV ~ -2 (n / |A|) S_t^T sum_{i in A} S_t F^i + 2 mu V
//   no projection:          dJ/dV = -2 (n / |A|) sum_{i in A} F^i + 2 mu V        (eq. 7)
// (n / |A|) makes the contributors' sum an unbiased estimate of the data term over all n users.
// S S^T = diag(items per bucket) since every item falls in exactly one bucket, so the 2 mu v_j of
// eq. 7 is carried exactly into the compressed space; E_S[S_t^T S_t] = I makes the full model's
// data term unbiased over the fresh S_t.
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
#include "common/mf/factor_model.h"
#include "fedmf/v1/dpmf_rp.pb.h"

namespace fedmf::algorithms::dpmf_rp {

class DpmfRpUpdater final : public Updater {
 public:
  // Round 0: V uniform in [-init_scale, init_scale) from config.seed, or `start_items` (a
  // published model's V, start_model.h; InvalidArgument unless num_items x rank and finite); B =
  // S V when compressed. Mechanism parameters calibrated for the budget (calibration.h; PBM may
  // take a second).
  static absl::StatusOr<std::unique_ptr<DpmfRpUpdater>> Create(
      const DpmfRpConfig& config, std::optional<mf::FactorMatrix> start_items = std::nullopt);
  // From SerializeState() bytes (a fedmf.v1.DpmfRpState), every field validated.
  static absl::StatusOr<std::unique_ptr<DpmfRpUpdater>> Restore(absl::string_view state);

  int64_t round() const override { return round_; }
  absl::StatusOr<v1::RoundPlan> Plan() const override;
  absl::Status ApplySum(absl::Span<const uint64_t> sum,
                        absl::Span<const uint32_t> contributors) override;
  absl::StatusOr<std::optional<dp::LedgerEntry>> RoundPrivacy(
      int64_t participants, const std::vector<double>& orders) const override;
  std::optional<dp::PrivacyBudget> budget() const override;
  absl::StatusOr<std::string> SerializeState() const override;

  // The planned round's item factors V (num_items x rank): the model, or S^T B for the
  // compressed one (what DpmfRpContributor scores with).
  absl::StatusOr<mf::FactorMatrix> ItemFactors() const;

  // The planned round's gradient for a decoded sum (p x k) of `contributors` users' X (above).
  absl::StatusOr<Eigen::MatrixXd> Gradient(const Eigen::MatrixXd& decoded_sum,
                                           int64_t contributors) const;

  const DpmfRpConfig& config() const { return config_; }
  // As calibrated for the run; round t's is RoundMechanism(config(), mechanism(), t).
  const v1::DpmfRpMechanism& mechanism() const { return mechanism_; }
  const Eigen::MatrixXd& model() const { return model_; }  // B or V
  const mf::Adam& adam() const { return adam_; }
  // Public seeds of round t: S (constant for the compressed model) and D_xi, functions of
  // config.seed and t.
  uint64_t ProjectionSeed(int64_t round) const;
  uint64_t HadamardSeed(int64_t round) const;

 private:
  DpmfRpUpdater(DpmfRpConfig config, v1::DpmfRpMechanism mechanism, uint64_t projection_seed,
                Eigen::MatrixXd model, mf::Adam adam, int64_t round);
  // S of the planned round (empty without projection) and the codec it implies.
  absl::StatusOr<std::optional<dp::SparseProjection>> RoundProjection() const;
  absl::StatusOr<ContributionCodec> RoundCodec(
      const std::optional<dp::SparseProjection>& projection) const;
  absl::StatusOr<Eigen::MatrixXd> GradientWith(
      const std::optional<dp::SparseProjection>& projection, const Eigen::MatrixXd& decoded_sum,
      int64_t contributors) const;

  DpmfRpConfig config_;
  v1::DpmfRpMechanism mechanism_;
  uint64_t projection_seed_;  // S of the compressed model
  Eigen::MatrixXd model_;
  mf::Adam adam_;
  int64_t round_;
};

}  // namespace fedmf::algorithms::dpmf_rp

#endif  // FEDMF_COMMON_ALGORITHMS_DPMF_RP_UPDATER_H_
