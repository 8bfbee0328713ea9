// fedmf-data: loads or generates a --data spec and prints its shape (ratings per user and per
// item, the most-rated tenth of items' share, the share of each rating value) as one key=value
// line on stdout, with the time and peak memory the load took. The calibration of the synthetic
// shapes against real data (docs/results/synthetic-data.md) is measured with it.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/data/dataset_shape.h"
#include "common/data/dataset_source.h"
#include "common/util/cli.h"
#include "common/util/event_log.h"
#include "common/util/proc_stats.h"

ABSL_FLAG(std::string, data, "synthetic",
          "dataset spec (synthetic[:SHAPE][,KEY=VALUE...], ml-100k:PATH, user-items:DIR/train.txt"
          "?test=DIR/test.txt, ...; README's Datasets table)");

namespace fedmf {
namespace {

absl::Status Run() {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<data::RatingsDataset> dataset = data::LoadDataset(absl::GetFlag(FLAGS_data));
  if (!dataset.ok()) return dataset.status();
  const double load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Every field a key=value of one line on stdout, for scripts.
  std::string line = absl::StrCat("data=", absl::GetFlag(FLAGS_data), " ",
                                  data::DescribeShape(data::MeasureShape(*dataset)),
                                  " load_s=", EventValue(load_s));
  if (absl::StatusOr<util::ProcStats> self = util::ReadProcStats(getpid()); self.ok()) {
    absl::StrAppend(&line, " peak_rss_mib=", self->peak_rss_bytes / (1024 * 1024));
  }
  std::cout << line << "\n";
  return absl::OkStatus();
}

}  // namespace
}  // namespace fedmf

int main(int argc, char** argv) {
  fedmf::InitFlagsOnlyCommandLine(
      argc, argv,
      "fedmf-data --data=SPEC: prints the dataset's shape (ratings per user and per item, top "
      "tenth of items' share, rating values) and the load's time and peak memory");
  return fedmf::ExitCode(fedmf::Run());
}
