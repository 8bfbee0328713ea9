#include "client/result_log.h"

#include "common/util/event_log.h"
#include "wire/envelope.h"

namespace fedmf::client {

void LogRoundResult(absl::string_view client, const v1::RoundResult& result) {
  if (result.training_done() || result.run_done()) {
    EventLine(result.training_done() ? "training_done" : "run_done")
        .Add("client", client)
        .Add("rounds_completed", result.rounds_completed())
        .Add("reason", result.reason())
        .Add("final_model", result.has_final_model() ? "yes" : "no");
    return;
  }
  EventLine("round_result")
      .Add("client", client)
      .Add("round", result.round())
      .Add("kind", result.phase() == wire::kEvaluationPhase ? "evaluation" : "training")
      .Add("applied", result.applied() ? "yes" : "no")
      .Add("contributors", result.contributors())
      .Add("reason", result.reason());
}

}  // namespace fedmf::client
