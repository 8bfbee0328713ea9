// privirec's flags and the factory of a fresh run (new_run.h). Linked only into the binaries that
// start runs (fedmf-coordinator, fedmf-sim).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "google/protobuf/empty.pb.h"
#include "absl/strings/str_cat.h"
#include "common/algorithms/new_run.h"
#include "common/algorithms/privirec/noise.h"
#include "common/algorithms/privirec/privirec.h"
#include "common/algorithms/privirec/updater.h"
#include "common/util/event_log.h"

ABSL_FLAG(std::string, privirec_filter, "gf-cf",
          "privirec: the graph filter every client builds from the sums: gf-cf, turbo-cf, "
          "bspm-lm or bspm-em (their published Gowalla configurations, graph_filter/config.h)");
ABSL_FLAG(int32_t, privirec_frac_bits, 0,
          "privirec: fractional bits f of the Gram sum's fixed point (error <= n 2^-(f+1) per "
          "entry); 0: the most that fits 61 bits with the run's users, at most 52");

ABSL_FLAG(double, privirec_epsilon, 0,
          "privirec: > 0 adds distributed discrete Gaussian noise to both secure sums, whole-run "
          "user-level (E, --delta)-DP (noise.h; --delta unset: 1e-5); 0: no noise, the paper's "
          "protocol (the run-wide --epsilon, whose default is 1, does not apply to privirec)");
ABSL_FLAG(int32_t, privirec_degree_clip, 100,
          "privirec with --privirec_epsilon: D, the degree sum's L2 clip is sqrt(D) (a user with "
          "more than "
          "D items counts sqrt(D / d_u) for each; noise.h)");

ABSL_FLAG(int64_t, privirec_noise_parties, 0,
          "privirec with --privirec_epsilon: c >= 1 makes a noise committee of c users (chosen "
          "from the run's public --seed) add all the noise, the others only their rounded sparse "
          "vectors (trust: docs/privacy-accounting.md 4.11); 0: every user adds noise");
ABSL_FLAG(double, privirec_gram_threshold, 0,
          "privirec with --privirec_epsilon: t, noisy Gram entries <= t times the Gram noise std "
          "are dropped before the clients build P~ (post-processing; 0: only P' <= 0)");

namespace fedmf::algorithms::privirec {
namespace {

absl::StatusOr<NewRun> StartPriviRecRun(const RunSettings& run, const google::protobuf::Empty& /*options*/) {
  if (run.rounds != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("privirec sums once (two phases): --rounds=", run.rounds, " must be 1"));
  }
  if (!run.secure_aggregation) {
    return absl::InvalidArgumentError(
        "privirec: every sum is secure (--secure_aggregation=false would upload each user's "
        "items in the clear; fedmf-sim --plain_sum adds the same sums in-process)");
  }
  v1::PriviRecConfig c;
  c.set_num_items(run.num_items);
  c.set_num_users(run.num_users);
  c.set_filter(absl::GetFlag(FLAGS_privirec_filter));
  const int32_t f = absl::GetFlag(FLAGS_privirec_frac_bits);
  c.set_frac_bits(f > 0 ? f : DefaultFracBits(run.num_users));
  if (const double epsilon = absl::GetFlag(FLAGS_privirec_epsilon); epsilon != 0) {
    // The DP option (noise.h): whole-run (epsilon, delta) per user.
    c.set_epsilon(epsilon);
    c.set_delta(run.delta.value_or(kDefaultDelta));
    c.set_degree_clip(absl::GetFlag(FLAGS_privirec_degree_clip));
    c.set_gram_threshold(absl::GetFlag(FLAGS_privirec_gram_threshold));
  }
  c.set_seed(run.seed);
  c.set_noise_parties(absl::GetFlag(FLAGS_privirec_noise_parties));  // checked with epsilon
  absl::StatusOr<std::unique_ptr<PriviRecUpdater>> updater = PriviRecUpdater::Create(c);
  if (!updater.ok()) return updater.status();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"filter", c.filter()},
      {"population", absl::StrCat(c.num_users())},
      {"frac_bits", absl::StrCat(c.frac_bits())},
      {"degree_bits", absl::StrCat(DegreeBits(c))},
      {"gram_bits", absl::StrCat(GramBits(c))},
      {"gram_length", absl::StrCat(UpperLength(c.num_items()))},
      {"gram_error_bound", EventValue(GramErrorBound(c))}};
  if (Noisy(c)) {
    const v1::PriviRecNoise& noise = (*updater)->model().noise();
    fields.insert(fields.end(), {{"epsilon", EventValue(c.epsilon())},
                                 {"delta", EventValue(c.delta())},
                                 {"degree_clip", absl::StrCat(c.degree_clip())},
                                 {"gram_threshold", EventValue(c.gram_threshold())},
                                 {"noise_parties", absl::StrCat(NoiseParties(c))},
                                 {"degree_noise_std", EventValue(noise.degree_noise_std())},
                                 {"gram_noise_std", EventValue(noise.gram_noise_std())},
                                 {"noise_scale", EventValue(noise.gram_scale())}});
  }
  return NewRun{*std::move(updater), std::move(fields)};
}

// One release: --rounds may be left out.
const NewRunRegistrar kNewRunRegistrar(kAlgorithmName, google::protobuf::Empty(), StartPriviRecRun,
                                       {.rounds = 1, .outlook_points = {}});

}  // namespace
}  // namespace fedmf::algorithms::privirec
