// privirec-k's flags and the factory of a fresh run (new_run.h). Linked only into the binaries
// that start runs (fedmf-coordinator, fedmf-sim).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "google/protobuf/empty.pb.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/graph_filter/config.h"
#include "common/algorithms/new_run.h"
#include "common/algorithms/privirec_k/noise.h"
#include "common/algorithms/privirec_k/privirec_k.h"
#include "common/algorithms/privirec_k/updater.h"
#include "common/util/event_log.h"

ABSL_FLAG(int32_t, privirec_k_rank, 256,
          "privirec-k: k, the columns of the power iterate, of P~_k and of GF-CF's ideal "
          "low-pass (the paper's Figure 3: 256..3584)");
ABSL_FLAG(int32_t, privirec_k_power_sums, 2,
          "privirec-k: L, the secure sums of the distributed power method after the degree sum "
          "(the paper's Figure 3: 2)");
ABSL_FLAG(bool, privirec_k_rayleigh_ritz, true,
          "privirec-k: eigenvalues of P~_k by Rayleigh-Ritz on the public k x k matrix; false: "
          "the paper's diag(T_L) of the last QR");
ABSL_FLAG(int32_t, privirec_k_frac_bits, 0,
          "privirec-k: fractional bits f of the power sums' fixed point (error <= n 2^-(f+1) per "
          "coordinate); 0: the most that fits 61 bits with the run's users, at most 52");

ABSL_FLAG(double, privirec_k_epsilon, 0,
          "privirec-k: > 0 adds distributed discrete Gaussian noise to the degree sum and to each "
          "power sum, whole-run user-level (E, --delta)-DP (noise.h; --delta unset: 1e-5); every "
          "user's noisy power vector is dense (m k coordinates); 0: no noise, the paper's protocol "
          "(the run-wide --epsilon does not apply to privirec-k)");
ABSL_FLAG(int64_t, privirec_k_noise_parties, 0,
          "privirec-k with --privirec_k_epsilon: c >= 1 makes a noise committee of c users (chosen "
          "from the run's public --seed) add all the noise, the others only their rounded sparse "
          "vectors (trust: docs/privacy-accounting.md 4.11); 0: every user adds noise");
ABSL_FLAG(int32_t, privirec_k_degree_clip, 100,
          "privirec-k with --privirec_k_epsilon: D, the degree sum's L2 clip is sqrt(D) (a user "
          "with more than D items counts sqrt(D / d_u) for each; noise.h)");

namespace fedmf::algorithms::privirec_k {
namespace {

absl::StatusOr<NewRun> StartPriviRecKRun(const RunSettings& run, const google::protobuf::Empty& /*options*/) {
  if (run.rounds != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("privirec-k sums once (L + 1 phases): --rounds=", run.rounds, " must be 1"));
  }
  if (!run.secure_aggregation) {
    return absl::InvalidArgumentError(
        "privirec-k: every sum is secure (--secure_aggregation=false would upload each user's "
        "items in the clear; fedmf-sim --plain_sum adds the same sums in-process)");
  }
  absl::StatusOr<graph_filter::GraphFilterConfig> gf_cf = graph_filter::PublishedConfig("gf-cf");
  if (!gf_cf.ok()) return gf_cf.status();
  v1::PriviRecKConfig c;
  c.set_num_items(run.num_items);
  c.set_num_users(run.num_users);
  c.set_rank(absl::GetFlag(FLAGS_privirec_k_rank));
  c.set_power_sums(absl::GetFlag(FLAGS_privirec_k_power_sums));
  const int32_t f = absl::GetFlag(FLAGS_privirec_k_frac_bits);
  c.set_frac_bits(f > 0 ? f : DefaultFracBits(run.num_users));
  c.set_seed(run.seed);
  c.set_rayleigh_ritz(absl::GetFlag(FLAGS_privirec_k_rayleigh_ritz));
  c.set_gamma(gf_cf->gamma);
  if (const double epsilon = absl::GetFlag(FLAGS_privirec_k_epsilon); epsilon != 0) {
    // The DP option (noise.h): whole-run (epsilon, delta) per user.
    c.set_epsilon(epsilon);
    c.set_delta(run.delta.value_or(kDefaultDelta));
    c.set_degree_clip(absl::GetFlag(FLAGS_privirec_k_degree_clip));
  }
  c.set_noise_parties(absl::GetFlag(FLAGS_privirec_k_noise_parties));  // checked with epsilon
  absl::StatusOr<std::unique_ptr<PriviRecKUpdater>> updater = PriviRecKUpdater::Create(c);
  if (!updater.ok()) return updater.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"population", absl::StrCat(c.num_users())},
      {"rank", absl::StrCat(c.rank())},
      {"power_sums", absl::StrCat(c.power_sums())},
      {"rayleigh_ritz", c.rayleigh_ritz() ? "yes" : "no"},
      {"gamma", EventValue(c.gamma())},
      {"frac_bits", absl::StrCat(c.frac_bits())},
      {"power_bits", absl::StrCat(PowerBits(c))},
      {"power_length", absl::StrCat(PowerLength(c))},
      {"power_error_bound", EventValue(PowerErrorBound(c))}};
  if (Noisy(c)) {
    const v1::PriviRecKNoise& noise = (*updater)->model().noise();
    fields.insert(fields.end(), {{"epsilon", EventValue(c.epsilon())},
                                 {"delta", EventValue(c.delta())},
                                 {"degree_clip", absl::StrCat(c.degree_clip())},
                                 {"noise_parties", absl::StrCat(NoiseParties(c))},
                                 {"degree_noise_std", EventValue(noise.degree_noise_std())},
                                 {"power_noise_std", EventValue(noise.power_noise_std())},
                                 {"noise_scale", EventValue(noise.scale())}});
  }
  return NewRun{*std::move(updater), std::move(fields)};
}

// One release: --rounds may be left out.
const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, google::protobuf::Empty(), StartPriviRecKRun,
                                       {.rounds = 1, .outlook_points = {}});

}  // namespace
}  // namespace fedmf::algorithms::privirec_k
