// Configuration of a DPMF-RP run (every field a user may tune, with the paper's defaults for
// MovieLens 100K, Section 6.1.3) and the quantities derived from it: the projected dimension p,
// the cohort size, n_min, the contribution clip Delta_1 and the privacy budget. Converts to and
// from fedmf.v1.DpmfRpConfig, the form the coordinator persists and broadcasts.
#ifndef FEDMF_COMMON_ALGORITHMS_DPMF_RP_CONFIG_H_
#define FEDMF_COMMON_ALGORITHMS_DPMF_RP_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/algorithms/scorer.h"
#include "common/dp/dp_conversion.h"
#include "common/mf/adam.h"
#include "fedmf/v1/dpmf_rp.pb.h"

namespace fedmf::algorithms::dpmf_rp {

inline constexpr absl::string_view kAlgorithmName = "dpmf-rp";

enum class Mechanism { kPbm, kGaussian, kNone, kDdg };
enum class Projection { kSparse, kNone };
// What the server keeps when the sparse projection is on (without it both are V itself):
//   kCompressed: B = S V (p x k) with one S for the whole run; clients use V = S^T B, so items in
//                one bucket share a factor up to sign (the paper's Algorithm 2; download p x k).
//   kFull:       V (m x k) with a fresh public S every round, updated with S^T (decoded sum of
//                S F): an unbiased count-sketch estimate of the gradient (E_S[S^T S] = I), the
//                reading of the paper's Lemma 5.1 and Theorem 5.7. Upload is still p' x k;
//                download is m x k. Far more accurate (docs/algorithms.md).
enum class ItemModel { kCompressed, kFull };
// How PBM bounds every coordinate it privatizes to [-c, c] (charged coordinate by coordinate, the
// noise is set by c and D alone and the signal is what fills c; charged by the L2 shift, the
// noise scales with the clip and gamma only trades clamping against theta <= 1/4):
//   kColumnL1:  X clipped to L1 norm Delta_1, FlatMat per column (p' x k): c = Delta_1 / sqrt(p'),
//               a deterministic bound (the paper's Algorithm 2). A typical X has
//               ||X||_2 << ||X||_1, so its entries use a small part of [-c, c].
//   kRotatedL2: X clipped to L2 norm C, flattened to one vector, zero-padded to D = 2^ceil(log2
//               pk) and rotated by one randomized Hadamard transform, entries clamped to
//               c = gamma C / sqrt(D). A rotated entry is about N(0, ||X||^2 / D), so with
//               gamma ~ 3 almost none is clamped and the signal fills a third of the range
//               (Chen et al. 2022, Section 4; Kairouz et al. 2021 do the same for DDG). The
//               clamp keeps every coordinate in [-c, c], so the guarantee never depends on the
//               rotation behaving; a clamped entry only biases that coordinate.
enum class PbmGeometry { kColumnL1, kRotatedL2 };
// How a PBM round is charged (docs/privacy-accounting.md, sections 4.4 and 4.6):
//   kCoordinate: every one of the D coordinates may move over its whole range (the paper's eq.
//                20); the guarantee does not depend on the clip.
//   kL2:         by the L2 shift of the whole vector, which the clip bounds (PbmL2OverClip); never
//                more than kCoordinate, and less by about D / PbmL2OverClip^2 (gamma^2 for
//                rotated_l2, k for column_l1).
enum class PbmAccounting { kCoordinate, kL2 };
// How the Gaussian mechanism's noise std varies over the T rounds (the whole-run cost is the same):
//   kConstant:  the calibrated std sigma in every round.
//   kPrefixSum: sigma * dp::PrefixSumNoiseFactor(T, t) in round t, proportional to (T - t)^(-1/4):
//               the best matrix-factorization noise for the prefix sums of the rounds' updates
//               when every user is in every round (docs/dp-mechanisms.md, "Noise schedule for
//               prefix sums"). Not a default: no gain at epsilon 5 on ML-100K
//               (docs/results/privacy-utility.md, "Correlated noise across rounds").
enum class NoiseSchedule { kConstant, kPrefixSum };

absl::string_view MechanismName(Mechanism mechanism);  // "pbm", "gaussian", "none", "ddg"
absl::StatusOr<Mechanism> ParseMechanism(absl::string_view name);
absl::string_view ProjectionName(Projection projection);  // "sparse", "none"
absl::StatusOr<Projection> ParseProjection(absl::string_view name);
absl::string_view ItemModelName(ItemModel model);  // "compressed", "full"
absl::StatusOr<ItemModel> ParseItemModel(absl::string_view name);
absl::string_view PbmGeometryName(PbmGeometry geometry);  // "column_l1", "rotated_l2"
absl::StatusOr<PbmGeometry> ParsePbmGeometry(absl::string_view name);
absl::string_view PbmAccountingName(PbmAccounting accounting);  // "coordinate", "l2"
absl::StatusOr<PbmAccounting> ParsePbmAccounting(absl::string_view name);
absl::string_view NoiseScheduleName(NoiseSchedule schedule);  // "constant", "prefix_sum"
absl::StatusOr<NoiseSchedule> ParseNoiseSchedule(absl::string_view name);

struct DpmfRpConfig {
  // The data's shape; no default.
  int32_t num_items = 0;  // m
  int64_t num_users = 0;  // n: the server scales a round's sum by n / contributors

  // Model and local update (eqs. 3-5, 16, 17).
  int rank = 14;         // k
  double lambda = 0.25;  // user regularization
  double mu = 0.9;       // item regularization
  double kappa = 15;     // confidence 1 + kappa on observed ratings, 1 elsewhere
  // The confidence of the user factor that ranks items for recommendations (eq. 5 again, local
  // to the client, no privacy cost); unset: kappa.
  std::optional<double> ranking_kappa;
  // Predicted ratings are clamped to it (unset in a state from before it was recorded).
  RatingScale rating_scale;
  double user_l1_clip = 0.001;  // B1: u_i is clipped to this L1 norm before the gradient
  double error_clip = 1;        // e: rating errors are clipped to [-e, e]

  // Communication and privacy.
  Mechanism mechanism = Mechanism::kPbm;
  Projection projection = Projection::kSparse;
  double compression = 3;  // m / p (sparse projection only), >= 1
  ItemModel item_model = ItemModel::kCompressed;
  bool secure_aggregation = true;  // false: the paper's non-SecAgg case, n_min = 1
  double participation = 0.1;      // beta: fraction of users sampled per round
  int64_t min_clients = 0;         // n_min under SecAgg; 0 means the whole cohort
  double contribution_clip = 0;    // Delta_1 / C; 0: ContributionClip's default
  PbmGeometry pbm_geometry = PbmGeometry::kColumnL1;
  double pbm_clip_multiplier = 3;  // gamma of kRotatedL2
  PbmAccounting pbm_accounting = PbmAccounting::kL2;
  // Gaussian only: how its noise std varies over the rounds.
  NoiseSchedule noise_schedule = NoiseSchedule::kConstant;
  double epsilon = 1;              // budget for the whole run ...
  double delta = 0;                // ... as (epsilon, delta)-DP if delta > 0,
  double rdp_order = 2;            // ... else as RDP epsilon at this order (the paper's way)
  int64_t rounds = 100;            // T: the budget is spent evenly over T rounds
  int64_t max_q = 16;              // PBM: largest number of trials the calibration may pick
  int fixed_point_bits = 24;       // none / gaussian: scale 2^fixed_point_bits per unit
  double wrap_probability = 1e-9;  // gaussian, ddg: chance a sum leaves its decodable range
  // ddg (Kairouz, Liu, Steinke 2021): X clipped to L2 norm C, flattened, zero-padded to D and
  // rotated as PBM's rotated_l2, every entry clamped to ddg_clip_multiplier C / sqrt(D), scaled
  // by the largest power of two gamma whose sum fits ddg_bits bits (calibration.h), rounded
  // conditionally, discrete Gaussian noise per client.
  int ddg_bits = 20;
  double ddg_clip_multiplier = 3;

  // Server optimizer (Section 6.1.3) and initialization.
  mf::AdamConfig adam;
  double init_scale = 0.1;  // V starts uniform in [-init_scale, init_scale), B = S V
  uint64_t seed = 1;        // initial V and the public seeds of S and of every round's D_xi
  // fedmf-sim --plain_sum --summed_noise only, Gaussian mechanism with secure aggregation: users
  // encode without noise and the updater draws the noise of each sum at once
  // (dp::GaussianSecAgg::AddSummedNoise, seeded from `seed` and the round).
  bool simulation_summed_noise = false;
};

// OK, or InvalidArgument naming the first field out of range and its value.
absl::Status ValidateConfig(const DpmfRpConfig& config);

// p: ceil(m / compression) with the sparse projection, m without.
int64_t ProjectedDim(const DpmfRpConfig& config);
// Rows of the server's model matrix: p for the compressed item model with projection, else m.
int64_t ModelRows(const DpmfRpConfig& config);
// Whether the server keeps B = S V (sparse projection and the compressed item model).
bool KeepsCompressedModel(const DpmfRpConfig& config);
// Clients per round: max(1, round(beta n)).
int64_t CohortSize(const DpmfRpConfig& config);
// The fewest clients whose noise protects a release: 1 without secure aggregation, else
// min_clients (or the cohort when 0).
int64_t MinContributors(const DpmfRpConfig& config);
// The clip on one contribution X: contribution_clip when set, else the default of its geometry:
// PBM column_l1 and Gaussian: the paper's Delta_1 = 4 e (1 + kappa) B1 / beta (an L1 bound used
// as the Gaussian's L2 bound too, as before); PBM rotated_l2 and DDG: e (1 + kappa) B1, the L2 norm
// of one observed item's term w_j u^T at its largest, below which almost every user's X lies, so
// nearly every contribution is scaled to the same norm (Adam's step does not depend on it).
double ContributionClip(const DpmfRpConfig& config);
// D, the number of PBM coordinates: p' k (column_l1) or NextPowerOfTwo(p k) (rotated_l2).
int64_t PbmDimension(const DpmfRpConfig& config);
// D of DDG: NextPowerOfTwo(p k), the rotated vector's length.
int64_t DdgDimension(const DpmfRpConfig& config);
// c, the range [-c, c] of every PBM coordinate.
double PbmCoordinateClip(const DpmfRpConfig& config);
// Relative allowance on the L2 norm of a clipped, rotated contribution: the fast Walsh-Hadamard
// transform's rounding changes the norm by ~log2(D) ulps, far below it. The codec refuses more.
inline constexpr double kPbmNormSlack = 1e-9;
// An upper bound on ||y||_2 / c for every vector y PBM privatizes: the clip (an L2 bound, or an
// L1 bound, which bounds the L2 norm too; the rotations keep it) times 1 + kPbmNormSlack over c,
// i.e. about sqrt(D) / gamma (rotated_l2) or sqrt(p') (column_l1).
double PbmL2OverClip(const DpmfRpConfig& config);
dp::PrivacyBudget Budget(const DpmfRpConfig& config);

v1::DpmfRpConfig ToProto(const DpmfRpConfig& config);
// Validates the result; `context` prefixes error messages (e.g. "broadcast").
absl::StatusOr<DpmfRpConfig> FromProto(const v1::DpmfRpConfig& proto, absl::string_view context);

}  // namespace fedmf::algorithms::dpmf_rp

#endif  // FEDMF_COMMON_ALGORITHMS_DPMF_RP_CONFIG_H_
