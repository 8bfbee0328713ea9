// Prints the cross-validation summary of fedmf-central as a Markdown table (mean, sample standard
// deviation over folds, and each fold's value), ready to paste into docs/results.
#ifndef FEDMF_TOOLS_CENTRAL_CENTRAL_REPORT_H_
#define FEDMF_TOOLS_CENTRAL_CENTRAL_REPORT_H_

#include <cstdio>
#include <string>
#include <vector>

#include "tools/central/trainer.h"

namespace fedmf::central {

void PrintSummary(const TrainerConfig& config, const std::string& data, const std::string& split,
                  const std::vector<FoldResult>& folds, std::FILE* out);

}  // namespace fedmf::central

#endif  // FEDMF_TOOLS_CENTRAL_CENTRAL_REPORT_H_
