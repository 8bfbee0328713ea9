// Fuzzing support: a small Coordinator (6 users, every user in the cohort, no noise) built as
// fedmf-coordinator builds it, with event lines on stderr (run the fuzzers with -close_fd_mask=2).
// Traps (a finding) when the fixed configuration itself is refused.
#ifndef FEDMF_TESTS_FUZZ_COORDINATOR_FUZZ_SUPPORT_H_
#define FEDMF_TESTS_FUZZ_COORDINATOR_FUZZ_SUPPORT_H_

#include <memory>

#include "common/algorithms/dpmf_rp/updater.h"
#include "server/coordinator.h"

namespace fedmf::server::fuzzing {

inline constexpr int kUsers = 6;

inline std::unique_ptr<Coordinator> MakeCoordinator(bool secure_aggregation, bool signatures) {
  algorithms::dpmf_rp::DpmfRpConfig c;
  c.num_users = kUsers;
  c.num_items = 5;
  c.rank = 2;
  c.mechanism = algorithms::dpmf_rp::Mechanism::kNone;
  c.item_model = algorithms::dpmf_rp::ItemModel::kFull;
  c.compression = 1;
  c.participation = 1;
  c.min_clients = 2;
  c.rounds = 3;
  c.secure_aggregation = secure_aggregation;
  auto updater = algorithms::dpmf_rp::DpmfRpUpdater::Create(c);
  auto ledger = dp::PrivacyLedger::Create();
  if (!updater.ok() || !ledger.ok()) __builtin_trap();
  CoordinatorOptions options;
  options.enrollment_token = "token";
  options.num_users = kUsers;
  options.dropout_fraction = 0.5;
  options.stage_timeout = absl::Seconds(10);
  options.signatures = signatures;
  options.chunk_bytes = 256;
  options.max_upload_bytes = 1 << 16;
  return std::make_unique<Coordinator>(
      options, CoordinatorState{"dpmf-rp", std::move(*updater), std::move(*ledger), 1, c.rounds,
                                FixedPopulation()});
}

}  // namespace fedmf::server::fuzzing

#endif  // FEDMF_TESTS_FUZZ_COORDINATOR_FUZZ_SUPPORT_H_
