#include "common/dp/ddg_sums.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dp/monotone_search.h"
#include "common/dp/rdp_curve.h"
#include "common/dp/rdp_ddg.h"

namespace fedmf::dp {
namespace {

// Only the noise parties' shares enter KLS's bound (n v with n the noise parties).
DdgRdpParams Release(const DistributedDiscreteGaussian& ddg, const DdgPopulation& population,
                     double total_std_grid) {
  return ReplaceOneDdgRelease(ddg.rounded_l2_bound(), ddg.params().dim, population.noise_parties,
                              total_std_grid);
}

}  // namespace

absl::StatusOr<DistributedDiscreteGaussian> SumDdg(const DdgSum& sum, const DdgSumNoise& noise,
                                                   const DdgPopulation& population) {
  return DistributedDiscreteGaussian::Create({.dim = sum.dim,
                                              .clip_norm = sum.clip_norm,
                                              .linf_bound = sum.linf_bound,
                                              .noise_std = noise.noise_std,
                                              .min_clients = population.users,
                                              .max_clients = population.users,
                                              .noise_clients = population.noise_parties,
                                              .scale = noise.scale});
}

absl::StatusOr<std::vector<DdgSumNoise>> CalibrateDdgSums(absl::Span<const DdgSum> sums,
                                                          const DdgPopulation& population,
                                                          const PrivacyBudget& budget, int max_bits,
                                                          int max_scale_exponent,
                                                          absl::string_view who) {
  // v >= 1/4 (grid units) for each noise party's share.
  const double floor = std::sqrt(static_cast<double>(population.noise_parties)) / 2;
  for (int j = max_scale_exponent; j >= 0; --j) {
    const double scale = std::ldexp(1.0, j);
    // Delta_2 does not depend on the noise: any valid std gives it.
    std::vector<DistributedDiscreteGaussian> ddgs;
    for (const DdgSum& sum : sums) {
      absl::StatusOr<DistributedDiscreteGaussian> ddg = SumDdg(sum, {scale, 1 / scale}, population);
      if (!ddg.ok()) break;  // gamma c + sqrt(d) beyond 2^31
      ddgs.push_back(*std::move(ddg));
    }
    if (ddgs.size() != sums.size()) continue;
    // Total stds (grid units) for the noise multiplier z.
    auto stds = [&](double z) {
      std::vector<double> out;
      for (const DistributedDiscreteGaussian& ddg : ddgs) {
        out.push_back(std::max(z * (2 * ddg.rounded_l2_bound()), floor));
      }
      return out;
    };
    absl::StatusOr<double> z = SmallestFitting(
        [&](double z) -> absl::StatusOr<bool> {
          absl::StatusOr<RdpCurve> curve = RdpCurve::Zero(DefaultOrders());
          if (!curve.ok()) return curve.status();
          const std::vector<double> s = stds(z);
          for (size_t i = 0; i < ddgs.size(); ++i) {
            absl::StatusOr<RdpCurve> one =
                DdgCurve(Release(ddgs[i], population, s[i]), 1, DefaultOrders());
            if (!one.ok()) return one.status();
            if (absl::Status st = curve->Compose(*one); !st.ok()) return st;
          }
          return WithinBudget(*curve, budget);
        },
        absl::StrCat(who, "'s noise multiplier"));
    if (!z.ok()) return z.status();
    const std::vector<double> s = stds(*z);
    std::vector<DdgSumNoise> out;
    bool fits = true;
    for (size_t i = 0; i < sums.size() && fits; ++i) {
      out.push_back({scale, s[i] / scale});
      absl::StatusOr<DistributedDiscreteGaussian> ddg = SumDdg(sums[i], out.back(), population);
      fits = ddg.ok() && ddg->modulus_bits() <= max_bits;
    }
    if (fits) return out;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      who, " DP option: no scale 2^j, j in [0, ", max_scale_exponent, "], fits ", max_bits,
      " bits with ", population.users, " users and ", population.noise_parties, " noise parties"));
}

absl::StatusOr<LedgerEntry> DdgSumLedgerEntry(const DdgSum& sum, const DdgSumNoise& noise,
                                              const DdgPopulation& population, int phase,
                                              int64_t participants,
                                              const std::vector<double>& orders) {
  absl::StatusOr<DistributedDiscreteGaussian> ddg = SumDdg(sum, noise, population);
  if (!ddg.ok()) return ddg.status();
  // The calibrated variance, not the sampler's (rounded up to a rational, so never smaller).
  const DdgRdpParams release = Release(*ddg, population, noise.noise_std * noise.scale);
  absl::StatusOr<RdpCurve> curve = DdgCurve(release, 1, orders);
  if (!curve.ok()) return curve.status();
  LedgerEntry entry;
  entry.round = 0;
  entry.mechanism = "ddg";
  entry.params = {{"phase", static_cast<double>(phase)},
                  {"noise_std", noise.noise_std},
                  {"scale", noise.scale},
                  {"l2_sensitivity", release.l2_sensitivity},
                  {"dimension", static_cast<double>(release.dim)},
                  {"bits", static_cast<double>(ddg->modulus_bits())},
                  {"noise_parties", static_cast<double>(population.noise_parties)}};
  entry.participants = participants;
  entry.n_min = population.noise_parties;
  entry.unit = PrivacyUnit::kUser;
  entry.rdp = curve->values();
  if (absl::Status s = ValidateEntry(entry); !s.ok()) return s;
  return entry;
}

}  // namespace fedmf::dp
