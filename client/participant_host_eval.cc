// ParticipantHost's side of a federated evaluation round (docs/runtime.md): validate the task,
// build the model's contributor and start every listed participant's metric-sum session.
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "client/participant_host.h"
#include "wire/envelope.h"
#include "wire/secagg_params.h"

namespace fedmf::client {

absl::StatusOr<std::vector<v1::ClientMessage>> ParticipantHost::HandleEvaluationTask(
    const v1::EvaluationTask& task) {
  absl::StatusOr<secagg::SessionConfig> config = wire::FromProto(task.secagg());
  if (!config.ok()) return config.status();
  // The fixed-point format is a function of the cohort: recompute it rather than trust the task.
  absl::StatusOr<metrics::MetricCodec> codec =
      metrics::MetricCodec::ForContributors(config->num_clients);
  if (!codec.ok()) return codec.status();
  if (task.fraction_bits() != codec->fraction_bits() || config->bits != codec->bits() ||
      config->length != codec->length()) {
    return absl::InvalidArgumentError(
        absl::StrCat("evaluation round ", task.round(), ": fraction bits/SecAgg bits/length (",
                     task.fraction_bits(), "/", config->bits, "/", config->length,
                     ") differ from the ", config->num_clients, "-user metric format (",
                     codec->fraction_bits(), "/", codec->bits(), "/", codec->length(), ")"));
  }
  const metrics::RankingOptions options{.top_n = task.top_n(),
                                        .relevance_threshold = task.relevance_threshold()};
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  if (absl::Status s =
          BeginTask({task.round(), wire::kEvaluationPhase}, task.participant_ids(), task.plan());
      !s.ok()) {
    return s;
  }
  std::vector<v1::ClientMessage> replies;
  for (uint32_t id : task.participant_ids()) {
    absl::StatusOr<v1::secagg::ClientToServer> advertise =
        participants_.at(id).StartEvaluation(contributor_->scorer(), options, *codec, *config);
    if (!advertise.ok()) return advertise.status();
    replies.push_back(wire::FromParticipant(tag_, id, std::move(*advertise)));
  }
  return replies;
}

}  // namespace fedmf::client
