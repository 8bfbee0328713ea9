#include "common/algorithms/dp_als/privacy.h"

#include <cmath>
#include <utility>

#include "common/algorithms/dp_als/codec.h"
#include "common/algorithms/dp_als/config.h"
#include "common/dp/ddg_sums.h"
#include "common/dp/rdp_curve.h"
#include "common/dp/rdp_gaussian.h"

namespace fedmf::algorithms::dp_als {
namespace {

// The largest gamma = 2^j tried (as PriviRec's): gamma >> sqrt(D) / 2, so rounding barely
// inflates Delta_2.
constexpr int kMaxScaleExponent = 24;

}  // namespace

double GaussianSensitivity(const v1::DpAlsConfig& config) {
  return 2 * (1 + std::sqrt(static_cast<double>(StatisticsLength(config))) /
                      std::ldexp(1.0, config.fixed_point_bits()));
}

absl::StatusOr<v1::DpAlsNoise> CalibrateNoise(const v1::DpAlsConfig& config) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  v1::DpAlsNoise out;
  switch (config.mechanism()) {
    case v1::DpAlsConfig::MECHANISM_DDG: {
      const std::vector<dp::DdgSum> sums(static_cast<size_t>(config.iterations()),
                                         DdgStatistics(config));
      absl::StatusOr<std::vector<dp::DdgSumNoise>> noise = dp::CalibrateDdgSums(
          sums, DdgUsers(config), Budget(config), config.ddg_bits(), kMaxScaleExponent, "dp-als");
      if (!noise.ok()) return noise.status();
      out.set_noise_std(noise->front().noise_std);
      out.set_scale(noise->front().scale);
      break;
    }
    case v1::DpAlsConfig::MECHANISM_GAUSSIAN: {
      absl::StatusOr<double> z = dp::CalibrateGaussianNoiseMultiplier(
          Budget(config), /*sampling_rate=*/1.0, config.iterations(), dp::DefaultOrders());
      if (!z.ok()) return z.status();
      out.set_noise_std(*z * GaussianSensitivity(config));
      out.set_scale(std::ldexp(1.0, config.fixed_point_bits()));
      break;
    }
    default:
      break;
  }
  return out;
}

absl::StatusOr<std::optional<dp::LedgerEntry>> RoundLedgerEntry(const v1::DpAlsConfig& config,
                                                                const v1::DpAlsNoise& noise,
                                                                int64_t round, int64_t participants,
                                                                const std::vector<double>& orders) {
  if (!Noisy(config)) return std::nullopt;
  if (config.mechanism() == v1::DpAlsConfig::MECHANISM_DDG) {
    absl::StatusOr<dp::LedgerEntry> entry = dp::DdgSumLedgerEntry(
        DdgStatistics(config), {.scale = noise.scale(), .noise_std = noise.noise_std()},
        DdgUsers(config), /*phase=*/0, participants, orders);
    if (!entry.ok()) return entry.status();
    entry->round = round;
    return *std::move(entry);
  }
  dp::LedgerEntry entry;
  entry.round = round;
  entry.mechanism = "secagg-gaussian";
  entry.participants = participants;
  entry.n_min = GaussianMinClients(config);
  entry.unit = dp::PrivacyUnit::kUser;
  const double sensitivity = GaussianSensitivity(config);
  entry.params = {{"noise_std", noise.noise_std()},
                  {"l2_sensitivity", sensitivity},
                  {"dimension", static_cast<double>(StatisticsLength(config))}};
  absl::StatusOr<dp::RdpCurve> curve = dp::SecAggGaussianCurve(
      {.l2_sensitivity = sensitivity, .noise_stddev = noise.noise_std(), .n_min = entry.n_min},
      orders);
  if (!curve.ok()) return curve.status();
  entry.rdp = curve->values();
  if (absl::Status s = dp::ValidateEntry(entry); !s.ok()) return s;
  return entry;
}

}  // namespace fedmf::algorithms::dp_als
