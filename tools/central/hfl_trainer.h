// fedmf-central --model=hfl-sgdmf: the FMF privacy paper's HFL-SGDMF (or a comparison point,
// --hfl_mode) over s parties in process (common/algorithms/hfl_sgdmf/in_process_run.h) on the
// train split. Logs one event=privacy line (z calibrated to --sgdmf_epsilon per user, our epsilon
// over every noisy step next to the paper's Proposition 3) and one event=hfl line with the test
// MSE before and after stage-3 fine-tuning; the returned scorer predicts each user's ratings with
// its own party's fine-tuned U and V.
#ifndef FEDMF_TOOLS_CENTRAL_HFL_TRAINER_H_
#define FEDMF_TOOLS_CENTRAL_HFL_TRAINER_H_

#include "absl/status/statusor.h"
#include "common/data/splits.h"
#include "common/metrics/metrics.h"
#include "tools/central/trainer.h"

namespace fedmf::central {

absl::StatusOr<metrics::UserScorer> TrainHflSgdMf(const data::TrainTest& split,
                                                  const TrainerConfig& config, int fold);

}  // namespace fedmf::central

#endif  // FEDMF_TOOLS_CENTRAL_HFL_TRAINER_H_
