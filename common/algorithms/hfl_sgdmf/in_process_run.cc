#include "common/algorithms/hfl_sgdmf/in_process_run.h"

#include <optional>
#include <utility>

#include "common/algorithms/hfl_sgdmf/initial_embeddings.h"
#include "common/algorithms/hfl_sgdmf/local_stage.h"
#include "common/algorithms/hfl_sgdmf/syn_step.h"
#include "common/algorithms/lib/fmf_party/party_round.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/algorithms/lib/fmf_sgd/privacy.h"
#include "common/algorithms/party_split.h"
#include "common/data/splits.h"

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

struct Party {
  PartyShard shard;
  data::RatingsDataset trimmed;
  fmf_sgd::Embeddings model;
  double weight = 0;               // n_k / n
  uint64_t noise_key[2] = {0, 0};  // sync t's noise: fmf_party::RoundNoiseRng(noise_key, t)
  std::optional<dp::PrivacyLedger> ledger;
  PartyModel out;
};

// Appends one ledger entry per noisy step to the party's ledger.
absl::Status Record(const HflConfig& config, const std::optional<dp::RdpCurve>& curve,
                    int64_t first_step, const std::vector<int64_t>& sampled, Party& party) {
  if (!curve) return absl::OkStatus();
  const fmf_sgd::DpSgdMfConfig noisy = NoisyStageConfig(config);
  for (size_t k = 0; k < sampled.size(); ++k) {
    absl::StatusOr<dp::LedgerEntry> entry = fmf_sgd::StepEntry(
        noisy, /*update_users=*/false, first_step + static_cast<int64_t>(k), sampled[k], *curve);
    if (!entry.ok()) return entry.status();
    if (absl::Status s = party.ledger->Append(*std::move(entry)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// HFL-SGDMF and train-both: T syncs of T' local noisy V steps, V = sum_k (n_k / n) V^(k).
absl::Status AveragedSyncs(const HflConfig& config, const std::optional<dp::RdpCurve>& curve,
                           std::vector<Party>& parties, Eigen::MatrixXd& items) {
  for (int64_t t = 0; t < config.syncs; ++t) {
    const int64_t first = t * config.local_steps;
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(items.rows(), items.cols());
    for (Party& p : parties) {
      p.model.items = items;
      dp::Rng noise = fmf_party::RoundNoiseRng(p.noise_key, t);
      absl::StatusOr<PartyUpload> upload =
          PartySync(*p.shard.train, p.trimmed, config, first, p.weight, noise, p.model);
      if (!upload.ok()) return upload.status();
      if (absl::Status s = Record(config, curve, first, upload->sampled, p); !s.ok()) return s;
      sum += upload->weighted_items;
    }
    items = std::move(sum);
  }
  return absl::OkStatus();
}

// HFL-synSGD: T T' syncs, each one step V <- Pi(V - gamma_t / (eta n) sum_k G~_k).
absl::Status SynchronousSteps(const HflConfig& config, const std::optional<dp::RdpCurve>& curve,
                              int32_t num_users, std::vector<Party>& parties,
                              Eigen::MatrixXd& items) {
  for (int64_t step = 0; step < SyncCount(config); ++step) {
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(items.rows(), items.cols());
    for (Party& p : parties) {
      p.model.items = items;
      dp::Rng noise = fmf_party::RoundNoiseRng(p.noise_key, step);
      absl::StatusOr<fmf_sgd::NoisyGradient> g =
          PartySynGradient(p.trimmed, config, p.model, noise);
      if (!g.ok()) return g.status();
      sum += g->items;
      const std::vector<int64_t> sampled{static_cast<int64_t>(g->sampled.size())};
      if (absl::Status s = Record(config, curve, step, sampled, p); !s.ok()) return s;
    }
    if (absl::Status s = ApplySynStep(sum, config, step, num_users, items); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HflRun> RunInProcess(const data::RatingsDataset& train, const HflConfig& config,
                                    uint64_t seed, uint64_t noise_seed) {
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  const fmf_sgd::DpSgdMfConfig noisy = NoisyStageConfig(config);
  absl::StatusOr<InitialModel> initial =
      InitialEmbeddings(seed, config, train.num_users(), train.num_items());
  if (!initial.ok()) return initial.status();
  const Eigen::MatrixXd& users = initial->users;
  const Eigen::MatrixXd& items = initial->items;
  std::optional<dp::RdpCurve> curve;
  if (config.mode != Mode::kLocalOnly && noisy.noise_multiplier > 0) {
    absl::StatusOr<dp::RdpCurve> c = fmf_sgd::StepCurve(noisy);
    if (!c.ok()) return c.status();
    curve = *std::move(c);
  }

  std::vector<Party> parties(static_cast<size_t>(config.parties));
  for (int32_t k = 0; k < config.parties; ++k) {
    Party& p = parties[static_cast<size_t>(k)];
    absl::StatusOr<PartyShard> shard = HorizontalParty(train, nullptr, k, config.parties);
    if (!shard.ok()) return shard.status();
    p.shard = *std::move(shard);
    absl::StatusOr<data::RatingsDataset> trimmed =
        data::TrimPerUser(*p.shard.train, noisy.max_ratings_per_user, PartyTrimSeed(seed, k));
    if (!trimmed.ok()) return trimmed.status();
    p.trimmed = *std::move(trimmed);
    p.model.users.resize(static_cast<Eigen::Index>(p.shard.global_users.size()), noisy.rank);
    for (size_t u = 0; u < p.shard.global_users.size(); ++u) {
      p.model.users.row(static_cast<Eigen::Index>(u)) = users.row(p.shard.global_users[u]);
    }
    p.model.items = items;
    dp::Rng party_rng(noise_seed, static_cast<uint64_t>(k) + 1);
    p.noise_key[0] = party_rng();
    p.noise_key[1] = party_rng();
    p.weight = static_cast<double>(p.shard.global_users.size()) / train.num_users();
    absl::StatusOr<dp::PrivacyLedger> ledger = dp::PrivacyLedger::Create();
    if (!ledger.ok()) return ledger.status();
    p.ledger = *std::move(ledger);
    if (config.mode != Mode::kTrainBoth) {
      if (absl::Status s = PretrainUsers(*p.shard.train, config, p.model); !s.ok()) return s;
    }
  }

  Eigen::MatrixXd shared = items;
  absl::Status stage2;
  switch (config.mode) {
    case Mode::kPretrainUsers:
    case Mode::kTrainBoth:
      stage2 = AveragedSyncs(config, curve, parties, shared);
      break;
    case Mode::kSynSgd:
      stage2 = SynchronousSteps(config, curve, train.num_users(), parties, shared);
      break;
    case Mode::kLocalOnly:
      for (Party& p : parties) {
        stage2 = LocalTrain(*p.shard.train, config, noisy.steps, p.model);
        if (!stage2.ok()) break;
      }
      break;
  }
  if (!stage2.ok()) return stage2;

  HflRun out;
  for (Party& p : parties) {
    if (config.mode != Mode::kLocalOnly) p.model.items = shared;
    p.out.users = p.shard.global_users;
    p.out.users_before = p.model.users;
    p.out.items_before = p.model.items;
    if (absl::Status s = LocalTrain(*p.shard.train, config, config.finetune_steps, p.model);
        !s.ok()) {
      return s;
    }
    p.out.users_after = std::move(p.model.users);
    p.out.items_after = std::move(p.model.items);
    out.parties.push_back(std::move(p.out));
    out.ledgers.push_back(*std::move(p.ledger));
  }
  return out;
}

PartyError MeanSquaredError(const std::vector<PartyModel>& parties,
                            const data::RatingsDataset& ratings, bool after_finetune) {
  PartyError error;
  double sum = 0;
  for (const PartyModel& p : parties) {
    const Eigen::MatrixXd& users = after_finetune ? p.users_after : p.users_before;
    const Eigen::MatrixXd& items = after_finetune ? p.items_after : p.items_before;
    for (size_t u = 0; u < p.users.size(); ++u) {
      const data::RatingRow row = ratings.user(p.users[u]);
      for (int64_t k = 0; k < row.size(); ++k) {
        const double e =
            row.ratings[k] - users.row(static_cast<Eigen::Index>(u)).dot(items.row(row.indices[k]));
        sum += e * e;
      }
      error.ratings += row.size();
    }
  }
  error.mse = error.ratings > 0 ? sum / static_cast<double>(error.ratings) : 0;
  return error;
}

}  // namespace fedmf::algorithms::hfl_sgdmf
