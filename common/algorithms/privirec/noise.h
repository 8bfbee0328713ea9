// PriviRec's DP option (beyond the paper; docs/privacy-accounting.md section 4.8): with
// config.epsilon > 0 every user adds distributed discrete Gaussian noise (dp/distributed_discrete_
// gaussian.h, Kairouz, Liu, Steinke 2021, as DPMF-RP's mechanism ddg) to both secure sums, and
// the two releases together are whole-run, user-level (epsilon, delta)-DP (replace-one).
//   degrees: the item indicator R_u, L2 norm sqrt(d_u), L2-clipped to sqrt(D) (D = degree_clip:
//            a user with more than D items sends R_u sqrt(D / d_u));
//   Gram:    the upper triangle of d_u^-2alpha R_u^T R_u: d_u diagonal and d_u (d_u - 1) / 2
//            off-diagonal entries of d_u^-2alpha, squared L2 norm d_u^(1-4alpha) (d_u + 1) / 2 <= 1
//            for alpha >= 1/2 (equality at d_u = 1). Each pair is sent once, so this is below the
//            full matrix's Frobenius norm (d_u^(1-2alpha) = 1 at alpha 1/2): the mirrored half of
//            P' is the same noisy number, post-processing. Clip 1 (never active).
// Both are dense once noisy (every coordinate carries noise), scaled by one gamma = 2^j (the
// largest j <= 24 whose sums fit kMaxSumBits), conditionally rounded, noised with N_Z(0, v) per
// coordinate. Budget split (dp/ddg_sums.h, shared with PriviRec-k): one noise multiplier z for
// both sums (total std = z times each sum's L2 sensitivity), the smallest whose two composed KLS
// curves fit (epsilon, delta): each sum takes half of the Gaussian RDP term. Every user is in both
// sums; the noise comes from every user (noise_parties 0) or from a noise committee of c =
// noise_parties users (docs/privacy-accounting.md section 4.11; the others send their rounded
// vectors without noise, sparse), and n_min is the number of noise parties.
// Post-processing of the decoded sums (any function of a DP release is DP): a noisy degree below 1
// becomes 0 (the item is treated as unseen), a noisy Gram entry <= t sigma_Gram is dropped
// (t = config.gram_threshold >= 0; t = 0 keeps P' >= 0, a larger t drops the noise-only entries).
#ifndef FEDMF_COMMON_ALGORITHMS_PRIVIREC_NOISE_H_
#define FEDMF_COMMON_ALGORITHMS_PRIVIREC_NOISE_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/algorithms/contribution_vector.h"
#include "common/dp/ddg_sums.h"
#include "common/dp/distributed_discrete_gaussian.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/noise_committee.h"
#include "common/dp/privacy_ledger.h"
#include "common/dp/rng.h"
#include "fedmf/v1/privirec.pb.h"

namespace fedmf::algorithms::privirec {

// Largest gamma exponent tried: gamma c >> sqrt(d) / 2, so rounding barely inflates Delta_2.
inline constexpr int kMaxNoiseScaleExponent = 24;
// A noise party's vector is dense and travels as one message, which protobuf caps at 2^31 - 1
// bytes: at most this many codes of up to kMaxSumBits = 61 bits (varints of up to 9 bytes).
inline constexpr uint64_t kMaxDenseCodes = uint64_t{std::numeric_limits<int>::max()} / 9;

// InvalidArgument, prefixed by `who`, when a noise party's dense `vector` (what it is, e.g.
// "Gram vector") of `codes` codes exceeds kMaxDenseCodes; `remedy` says what to lower.
absl::Status ValidateDenseCodes(absl::string_view who, uint64_t codes, absl::string_view vector,
                                absl::string_view remedy);

// Whether a user adds its noise share (a noise party) or only its rounded vector.
enum class NoiseShare { kAdd, kNone };

// InvalidArgument naming `flag` (the option that sets it, e.g. "option noise_parties") unless
// noise_parties is 0 (every user adds noise), or in [1, users] with the DP option on (`noisy`;
// else naming `epsilon_flag`, e.g. "option epsilon"). `who` prefixes the message.
absl::Status ValidateNoiseParties(int64_t noise_parties, int64_t users, bool noisy,
                                  absl::string_view who, absl::string_view flag,
                                  absl::string_view epsilon_flag);
// A run's noise committee (dp/noise_committee.h) from its public seed; none when noise_parties is
// 0 (every user adds noise).
absl::StatusOr<std::optional<dp::NoiseCommittee>> RunCommittee(uint64_t seed, int64_t users,
                                                               int64_t noise_parties);
// A participant's share: kAdd without a committee or for a member. InvalidArgument for the
// unknown id 0 with a committee.
absl::StatusOr<NoiseShare> ShareOf(const std::optional<dp::NoiseCommittee>& committee,
                                   uint32_t participant_id);
// `ddg`'s encoding of the real vector whose support is `indices` (increasing, < d) with `values`:
// dense and noisy (kAdd), or sparse, rounded without noise (kNone: EncodeSupport).
absl::StatusOr<ContributionVector> EncodeShare(const dp::DistributedDiscreteGaussian& ddg,
                                               std::vector<uint64_t> indices,
                                               const Eigen::VectorXd& values, NoiseShare share,
                                               dp::Rng& rng);

bool Noisy(const v1::PriviRecConfig& config);
// The users that add noise: noise_parties, or every user when it is 0.
int64_t NoiseParties(const v1::PriviRecConfig& config);
// InvalidArgument naming the field: epsilon >= 0 finite; noise_parties as ValidateNoiseParties;
// with epsilon > 0, delta in (0, 1), gram_threshold >= 0 finite, degree_clip >= 1, the
// filter's alpha >= 1/2 (the Gram bound above) and m (m + 1) / 2 <= kMaxDenseCodes (one message).
absl::Status ValidateNoiseConfig(const v1::PriviRecConfig& config, double alpha);
// The whole-run budget: (epsilon, delta)-DP per user.
dp::PrivacyBudget NoiseBudget(const v1::PriviRecConfig& config);

// The mechanism of `phase` (kDegreePhase or kGramPhase).
absl::StatusOr<dp::DistributedDiscreteGaussian> PhaseDdg(const v1::PriviRecConfig& config,
                                                         const v1::PriviRecNoise& noise, int phase);
// gamma and both noise stds for the budget (see above).
absl::StatusOr<v1::PriviRecNoise> CalibrateNoise(const v1::PriviRecConfig& config);
// The ledger entry of `phase`'s release (mechanism "ddg", round 0, n_min the noise parties).
absl::StatusOr<dp::LedgerEntry> PhaseLedgerEntry(const v1::PriviRecConfig& config,
                                                 const v1::PriviRecNoise& noise, int phase,
                                                 int64_t participants,
                                                 const std::vector<double>& orders);

// A user's contribution to `phase` from its sorted, distinct items: dense and noisy (kAdd), or
// sparse and rounded (kNone).
absl::StatusOr<ContributionVector> NoisyContribution(const v1::PriviRecConfig& config,
                                                     const v1::PriviRecNoise& noise, int phase,
                                                     absl::Span<const int32_t> items, double alpha,
                                                     NoiseShare share, dp::Rng& rng);
// Decodes `phase`'s SecAgg sum of `clients` noisy contributions into model's noisy_degrees
// (degree phase) or gram_index / noisy_gram (Gram phase), post-processed as above.
absl::Status ApplyNoisySum(const v1::PriviRecNoise& noise, int phase,
                           absl::Span<const uint64_t> sum, int64_t clients,
                           v1::PriviRecModel& model);

}  // namespace fedmf::algorithms::privirec

#endif  // FEDMF_COMMON_ALGORITHMS_PRIVIREC_NOISE_H_
