#include "common/algorithms/registry.h"

#include "absl/strings/str_cat.h"
#include "common/algorithms/dpmf_rp/contributor.h"
#include "common/algorithms/dpmf_rp/updater.h"

namespace fedmf::algorithms {
namespace {

absl::Status Unknown(absl::string_view algorithm) {
  return absl::NotFoundError(
      absl::StrCat("unknown algorithm '", algorithm, "' (known: ", dpmf_rp::kAlgorithmName, ")"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Contributor>> MakeContributor(const v1::RoundPlan& plan) {
  if (plan.algorithm() == dpmf_rp::kAlgorithmName) {
    absl::StatusOr<std::unique_ptr<dpmf_rp::DpmfRpContributor>> c =
        dpmf_rp::DpmfRpContributor::Create(plan);
    if (!c.ok()) return c.status();
    return std::unique_ptr<Contributor>(*std::move(c));
  }
  return Unknown(plan.algorithm());
}

absl::StatusOr<std::unique_ptr<Updater>> RestoreUpdater(absl::string_view algorithm,
                                                        absl::string_view state) {
  if (algorithm == dpmf_rp::kAlgorithmName) {
    absl::StatusOr<std::unique_ptr<dpmf_rp::DpmfRpUpdater>> u =
        dpmf_rp::DpmfRpUpdater::Restore(state);
    if (!u.ok()) return u.status();
    return std::unique_ptr<Updater>(*std::move(u));
  }
  return Unknown(algorithm);
}

}  // namespace fedmf::algorithms
