#include "common/algorithms/hfl_sgdmf/contributor.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/algorithms/hfl_sgdmf/initial_embeddings.h"
#include "common/algorithms/hfl_sgdmf/local_stage.h"
#include "common/algorithms/hfl_sgdmf/privacy.h"
#include "common/algorithms/hfl_sgdmf/run_config.h"
#include "common/algorithms/hfl_sgdmf/syn_step.h"
#include "common/algorithms/lib/fmf_party/fixed_point_codec.h"
#include "common/algorithms/lib/fmf_party/party_error.h"
#include "common/algorithms/lib/fmf_party/party_round.h"
#include "common/algorithms/lib/fmf_sgd/dp_sgd_step.h"
#include "common/algorithms/matrix_proto.h"
#include "common/algorithms/plan_check.h"
#include "common/data/splits.h"
#include "common/util/event_log.h"

namespace fedmf::algorithms::hfl_sgdmf {
namespace {

// OK iff `data` is party k = participant_id - 1 of the run, with a block of its users and every
// item.
absl::Status CheckParty(const v1::HflSgdmfConfig& c, const LocalData& data) {
  if (!data.is_party()) {
    return absl::InvalidArgumentError(
        "hfl-sgdmf: contributions come from HFL silo parties (fedmf-client --party=hfl:I/N), "
        "not users");
  }
  const PartyShard& shard = *data.party;
  if (absl::Status s = shard.Validate(); !s.ok()) return s;
  if (shard.train->num_items() != c.num_items() || shard.train->num_users() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("hfl-sgdmf: an HFL party holds every one of the ", c.num_items(),
                     " items and at least one user; this shard has ", shard.train->num_items(),
                     " items and ", shard.train->num_users(), " users"));
  }
  if (shard.global_users.back() >= c.num_users()) {
    return absl::InvalidArgumentError(absl::StrCat("hfl-sgdmf: the party's user ",
                                                   shard.global_users.back(), " is outside [0, ",
                                                   c.num_users(), ")"));
  }
  if (data.participant_id < 1 || data.participant_id > static_cast<uint32_t>(c.num_parties())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hfl-sgdmf: participant ", data.participant_id, " in a run of ", c.num_parties(),
        " parties (ids 1..s: --party=hfl:I/N needs N = the run's option parties)"));
  }
  return absl::OkStatus();
}

// HFL-synSGD's upload: G~_k clamped and encoded (run_config.h SynGradientCodec), a saturated
// coordinate logged (its probability is negligible, lib/fmf_party/noisy_sum_codec.h).
absl::StatusOr<std::vector<uint64_t>> SynUpload(const v1::HflSgdmfConfig& c,
                                                const data::RatingsDataset& trimmed,
                                                const fmf_sgd::Embeddings& model, int64_t round,
                                                uint32_t participant, dp::Rng& noise) {
  absl::StatusOr<fmf_sgd::NoisyGradient> gradient =
      PartySynGradient(trimmed, ToHflConfig(c), model, noise);
  if (!gradient.ok()) return gradient.status();
  absl::StatusOr<fmf_party::NoisySumCodec> codec = SynGradientCodec(c);
  if (!codec.ok()) return codec.status();
  absl::StatusOr<fmf_party::SaturatedUpload> upload =
      fmf_party::EncodeSaturating(*codec, fmf_party::FlattenRows(gradient->items));
  if (!upload.ok()) return upload.status();
  if (upload->saturated > 0) {
    EventLine("hfl_syn_saturated")
        .Add("round", round)
        .Add("participant", participant)
        .Add("coordinates", upload->saturated);
  }
  return std::move(upload->encoded);
}

}  // namespace

absl::StatusOr<std::unique_ptr<HflSgdmfContributor>> HflSgdmfContributor::Create(
    const v1::RoundPlan& plan) {
  absl::StatusOr<v1::HflSgdmfBroadcast> parsed =
      ParsePlanPayload<v1::HflSgdmfBroadcast>(plan, kAlgorithmName);
  if (!parsed.ok()) return parsed.status();
  v1::HflSgdmfBroadcast& broadcast = *parsed;
  if (absl::Status s = ValidateRunConfig(broadcast.config()); !s.ok()) return s;
  if (broadcast.round() != plan.round()) {
    return PlanMismatch(kAlgorithmName, "round", plan.round(), broadcast.round());
  }
  if (absl::Status s = CheckPlanShape(broadcast.config(), plan); !s.ok()) return s;
  absl::StatusOr<Eigen::MatrixXd> items =
      MatrixFromProto(broadcast.items(), broadcast.config().num_items(), broadcast.config().rank(),
                      "hfl-sgdmf item embeddings");
  if (!items.ok()) return items.status();
  return std::unique_ptr<HflSgdmfContributor>(
      new HflSgdmfContributor(std::move(broadcast), *std::move(items)));
}

absl::StatusOr<Contribution> HflSgdmfContributor::Contribute(const LocalData& data,
                                                             absl::string_view state,
                                                             dp::Rng& rng) const {
  const v1::HflSgdmfConfig& c = broadcast_.config();
  const int64_t round = broadcast_.round();
  if (round >= TotalRounds(c)) {
    return absl::FailedPreconditionError(
        absl::StrCat("hfl-sgdmf: all ", TotalRounds(c), " rounds are done"));
  }
  if (absl::Status s = CheckParty(c, data); !s.ok()) return s;
  const PartyShard& shard = *data.party;
  const HflConfig config = ToHflConfig(c);
  const int32_t party = static_cast<int32_t>(data.participant_id) - 1;
  const auto num_users = static_cast<int64_t>(shard.global_users.size());
  // Round 0's U_k: the public initial rows, fitted to the broadcast (public initial) V in stage 1.
  const auto stage_one = [&]() -> absl::StatusOr<Eigen::MatrixXd> {
    absl::StatusOr<Eigen::MatrixXd> users =
        InitialPartyUsers(c.seed(), config, c.num_users(), shard.global_users);
    if (!users.ok()) return users.status();
    fmf_sgd::Embeddings model{*std::move(users), items_};
    if (config.mode != Mode::kTrainBoth) {
      if (absl::Status s = PretrainUsers(*shard.train, config, model); !s.ok()) return s;
    }
    return std::move(model.users);
  };
  absl::StatusOr<fmf_party::RoundStart> start =
      fmf_party::StartRound(kAlgorithmName, state, round, num_users, c.rank(), stage_one, rng);
  if (!start.ok()) return start.status();
  fmf_sgd::Embeddings model{start->held, items_};
  absl::StatusOr<fmf_party::Codec> codec = RoundCodec(c, round);
  if (!codec.ok()) return codec.status();

  Eigen::VectorXd upload;
  if (!IsFinalRound(c, round)) {
    absl::StatusOr<data::RatingsDataset> trimmed =
        data::TrimPerUser(*shard.train, c.max_ratings_per_user(), PartyTrimSeed(c.seed(), party));
    if (!trimmed.ok()) return trimmed.status();
    dp::Rng noise = fmf_party::RoundNoiseRng(start->key, round);
    if (config.mode == Mode::kSynSgd) {
      absl::StatusOr<std::vector<uint64_t>> gradient =
          SynUpload(c, *trimmed, model, round, data.participant_id, noise);
      if (!gradient.ok()) return gradient.status();
      return Contribution{.vector = ContributionVector::Dense(*std::move(gradient)),
                          .state = fmf_party::EncodeState(*start, round, model.users),
                          .user_factor = {}};
    }
    absl::StatusOr<PartyUpload> synced =
        PartySync(*shard.train, *trimmed, config, round * c.local_steps(),
                  static_cast<double>(num_users) / c.num_users(), noise, model);
    if (!synced.ok()) return synced.status();
    upload = fmf_party::FlattenRows(synced->weighted_items);
  } else {
    const fmf_party::ErrorSum before = fmf_party::SumSquaredError(shard.test.get(), model);
    if (absl::Status s = LocalTrain(*shard.train, config, config.finetune_steps, model); !s.ok()) {
      return s;
    }
    const fmf_party::ErrorSum test = fmf_party::SumSquaredError(shard.test.get(), model);
    const fmf_party::ErrorSum trained = fmf_party::SumSquaredError(shard.train.get(), model);
    upload.resize(5);
    upload << before.squared_error, test.squared_error, test.ratings, trained.squared_error,
        trained.ratings;
  }
  absl::StatusOr<std::vector<uint64_t>> encoded = fmf_party::Encode(*codec, upload);
  if (!encoded.ok()) return encoded.status();
  return Contribution{.vector = ContributionVector::Dense(*std::move(encoded)),
                      .state = fmf_party::EncodeState(*start, round, model.users),
                      .user_factor = {}};
}

absl::StatusOr<std::optional<dp::LedgerEntry>> HflSgdmfContributor::ParticipantCost(
    const LocalData&, absl::string_view) const {
  return RoundEntry(ToHflConfig(broadcast_.config()), broadcast_.round(), /*parties=*/1,
                    dp::DefaultOrders());
}

}  // namespace fedmf::algorithms::hfl_sgdmf
