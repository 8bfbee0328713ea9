#include "common/algorithms/vfl_sgdmf/contributor.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/lib/fmf_party/party_error.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/plan_check.h"
#include "common/algorithms/vfl_sgdmf/codec.h"
#include "common/algorithms/vfl_sgdmf/config.h"
#include "common/algorithms/vfl_sgdmf/local_stage.h"
#include "common/algorithms/vfl_sgdmf/party_state.h"
#include "common/algorithms/vfl_sgdmf/privacy.h"
#include "common/data/splits.h"

namespace fedmf::algorithms::vfl_sgdmf {
namespace {

// The party's training ratings: per-user privacy trims them to theta per user, with the run's
// public seed (as fmf_sgd's central run does).
absl::StatusOr<data::RatingsDataset> TrainingRatings(const v1::VflSgdmfConfig& config,
                                                     const data::RatingsDataset& train) {
  if (!config.per_user()) return train;
  return data::TrimPerUser(train, config.max_ratings_per_user(), config.seed());
}

}  // namespace

absl::StatusOr<std::unique_ptr<VflSgdmfContributor>> VflSgdmfContributor::Create(
    const v1::RoundPlan& plan) {
  absl::StatusOr<v1::VflSgdmfBroadcast> parsed =
      ParsePlanPayload<v1::VflSgdmfBroadcast>(plan, kAlgorithmName);
  if (!parsed.ok()) return parsed.status();
  v1::VflSgdmfBroadcast& broadcast = *parsed;
  if (absl::Status s = ValidateConfig(broadcast.config()); !s.ok()) return s;
  if (broadcast.round() != plan.round()) {
    return PlanMismatch(kAlgorithmName, "round", plan.round(), broadcast.round());
  }
  if (absl::Status s = CheckPlanShape(broadcast.config(), plan); !s.ok()) return s;
  absl::StatusOr<Eigen::MatrixXd> users =
      MatrixFromProto(broadcast.users(), broadcast.config().num_users(), broadcast.config().rank(),
                      "vfl-sgdmf user embeddings");
  if (!users.ok()) return users.status();
  return std::unique_ptr<VflSgdmfContributor>(
      new VflSgdmfContributor(std::move(broadcast), *std::move(users)));
}

absl::StatusOr<Contribution> VflSgdmfContributor::Contribute(const LocalData& data,
                                                             absl::string_view state,
                                                             dp::Rng& rng) const {
  const v1::VflSgdmfConfig& c = broadcast_.config();
  const int64_t round = broadcast_.round();
  if (!data.is_party()) {
    return absl::InvalidArgumentError(
        "vfl-sgdmf: contributions come from VFL silo parties (fedmf-client --party=vfl:I/N), "
        "not users");
  }
  if (round >= TotalRounds(c)) {
    return absl::FailedPreconditionError(
        absl::StrCat("vfl-sgdmf: all ", TotalRounds(c), " rounds are done"));
  }
  const PartyShard& shard = *data.party;
  if (absl::Status s = shard.Validate(); !s.ok()) return s;
  if (shard.train->num_users() != c.num_users() || shard.train->num_items() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("vfl-sgdmf: a VFL party holds every one of the ", c.num_users(),
                     " users and at least one item; this shard has ", shard.train->num_users(),
                     " users and ", shard.train->num_items(), " items"));
  }
  if (shard.global_items.back() >= c.num_items()) {
    return absl::InvalidArgumentError(absl::StrCat("vfl-sgdmf: the party's item ",
                                                   shard.global_items.back(), " is outside [0, ",
                                                   c.num_items(), ")"));
  }
  if (data.participant_id > static_cast<uint32_t>(c.num_parties())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vfl-sgdmf: participant ", data.participant_id, " in a run of ", c.num_parties(),
        " parties (ids 1..s: --party=vfl:I/N needs N = the run's option parties)"));
  }
  absl::StatusOr<data::RatingsDataset> train = TrainingRatings(c, *shard.train);
  if (!train.ok()) return train.status();
  absl::StatusOr<RoundStart> start = StartRound(c, state, round, shard.global_items, rng);
  if (!start.ok()) return start.status();
  const fmf_sgd::DpSgdMfConfig step = StepConfig(c);
  fmf_sgd::Embeddings model{users_, start->held};
  if (absl::Status s = fmf_sgd::CheckTrainingData(*train, model, step); !s.ok()) return s;

  absl::StatusOr<Codec> codec = RoundCodec(c, round);
  if (!codec.ok()) return codec.status();
  // eq. 7's m_k / m; a local-only party trains alone, its V step unscaled.
  const double item_weight =
      c.local_only() ? 1.0 : static_cast<double>(shard.global_items.size()) / c.num_items();
  dp::Rng noise = RoundNoiseRng(start->key, round);
  Eigen::VectorXd upload;
  if (!IsFinalRound(c, round)) {
    absl::StatusOr<PartyUpload> synced =
        PartySync(*train, users_, model.items, step, round * c.local_steps(), c.local_steps(),
                  item_weight, noise);
    if (!synced.ok()) return synced.status();
    upload = FlattenRows(synced->weighted_users);
  } else {
    const auto unlogged = [](int64_t, const fmf_sgd::NoisyGradient&) { return absl::OkStatus(); };
    // Local-only: the party alone runs all T T' steps of its own U^(k) and V_Fk first.
    if (c.local_only()) {
      if (absl::Status s =
              fmf_sgd::RunNoisySteps(*train, step, 0, step.steps,
                                     /*update_users=*/true, item_weight, noise, model, unlogged);
          !s.ok()) {
        return s;
      }
    }
    if (absl::Status s =
            fmf_sgd::RunNoisySteps(*train, step, step.steps, c.item_only_steps(),
                                   /*update_users=*/false, item_weight, noise, model, unlogged);
        !s.ok()) {
      return s;
    }
    const fmf_party::ErrorSum test = fmf_party::SumSquaredError(shard.test.get(), model);
    const fmf_party::ErrorSum trained = fmf_party::SumSquaredError(shard.train.get(), model);
    upload =
        Eigen::Vector4d(test.squared_error, test.ratings, trained.squared_error, trained.ratings);
  }
  absl::StatusOr<std::vector<uint64_t>> encoded = Encode(*codec, upload);
  if (!encoded.ok()) return encoded.status();
  return Contribution{.vector = ContributionVector::Dense(*std::move(encoded)),
                      .state = fmf_party::EncodeState(*start, round, model.items),
                      .user_factor = {}};
}

absl::StatusOr<std::optional<dp::LedgerEntry>> VflSgdmfContributor::ParticipantCost(
    const LocalData&, absl::string_view) const {
  return RoundEntry(broadcast_.config(), broadcast_.round(), /*parties=*/1, dp::DefaultOrders());
}

}  // namespace fedmf::algorithms::vfl_sgdmf
