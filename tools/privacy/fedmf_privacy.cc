// fedmf-privacy: for DPMF-RP (PBM + secure aggregation + sparse random projection), prints the PBM
// parameters (theta, q) and bits per coordinate that meet each privacy budget, computed with the
// numeric RDP accountant of common/dp, as a Markdown table (used by docs/privacy-accounting.md).
// With --ledger, prints instead what a coordinator checkpoint's or a participant's ledger has
// spent, with its unit.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/dp/dp_conversion.h"
#include "common/dp/ledger_text_format.h"
#include "common/dp/participant_budget.h"
#include "common/dp/pbm_calibration.h"
#include "common/dp/privacy_cost.h"
#include "common/dp/rdp_curve.h"
#include "common/dp/rdp_pbm.h"
#include "common/util/atomic_file.h"
#include "common/util/cli.h"
#include "fedmf/v1/federation.pb.h"

ABSL_FLAG(int64_t, users, 943, "n: number of users (ML100K: 943)");
ABSL_FLAG(double, participation, 0.1, "beta: fraction of users sampled per round");
ABSL_FLAG(int64_t, participants, 0, "clients per round; 0 means floor(beta * users)");
ABSL_FLAG(int64_t, n_min, 0,
          "fewest honest clients whose noise is in every secure sum (the SecAgg threshold minus "
          "clients that may collude with the server); 0 means all participants; 1 means no secure "
          "aggregation (the paper's ablation case 2)");
ABSL_FLAG(int64_t, items, 1682, "m: number of items (ML100K: 1682)");
ABSL_FLAG(int64_t, k, 14, "latent dimension");
ABSL_FLAG(std::vector<std::string>, ratios, std::vector<std::string>({"1", "2", "3", "5", "10"}),
          "values of m/p; p = ceil(m / ratio), flattened to p' = next power of two");
ABSL_FLAG(std::vector<std::string>, epsilons, std::vector<std::string>({"0.1", "1", "10"}),
          "privacy budgets for the whole training run");
ABSL_FLAG(double, alpha, 2, "RDP order at which the budgets are expressed (the paper uses 2)");
ABSL_FLAG(double, delta, 0,
          "if > 0, budgets are (epsilon, delta)-DP (improved conversion) instead of RDP at alpha");
ABSL_FLAG(int64_t, rounds, 100,
          "T: training rounds, all charged to the worst-case user (the server knows the sample, "
          "so there is no amplification by sampling)");
ABSL_FLAG(double, report_delta, 1e-5, "delta at which (epsilon, delta)-DP is also reported");
ABSL_FLAG(int64_t, max_q, 16, "largest number of PBM trials per coordinate considered");
ABSL_FLAG(std::string, ledger, "",
          "instead of the tables, print what this file's privacy ledger has spent (at "
          "--report_delta): a coordinator checkpoint (STATE_DIR/checkpoint.pb) or a participant's "
          "budget file (fedmf-participant-budget)");

namespace fedmf::dp {
namespace {

absl::StatusOr<std::vector<double>> ParseList(const std::vector<std::string>& items,
                                              absl::string_view flag) {
  std::vector<double> out;
  for (const std::string& item : items) {
    double x;
    if (!absl::SimpleAtod(item, &x) || !(x > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, ": '", item, "' is not a positive number"));
    }
    out.push_back(x);
  }
  return out;
}

int64_t NextPowerOfTwo(int64_t x) {
  int64_t p = 1;
  while (p < x) p *= 2;
  return p;
}

struct Settings {
  int64_t participants;
  int64_t n_min;
  int64_t items;
  int64_t k;
  int64_t rounds;
  double alpha;
  double delta;
  double report_delta;
  int64_t max_q;
};

absl::StatusOr<Settings> ReadSettings() {
  Settings s;
  s.participants = absl::GetFlag(FLAGS_participants);
  if (s.participants == 0) {
    s.participants = static_cast<int64_t>(
        std::floor(absl::GetFlag(FLAGS_participation) * absl::GetFlag(FLAGS_users)));
  }
  s.n_min = absl::GetFlag(FLAGS_n_min) == 0 ? s.participants : absl::GetFlag(FLAGS_n_min);
  s.items = absl::GetFlag(FLAGS_items);
  s.k = absl::GetFlag(FLAGS_k);
  s.rounds = absl::GetFlag(FLAGS_rounds);
  s.alpha = absl::GetFlag(FLAGS_alpha);
  s.delta = absl::GetFlag(FLAGS_delta);
  s.report_delta = absl::GetFlag(FLAGS_report_delta);
  s.max_q = absl::GetFlag(FLAGS_max_q);
  if (s.participants < 1 || s.n_min < 1 || s.n_min > s.participants || s.items < 1 || s.k < 1 ||
      s.rounds < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "need participants >= n_min >= 1 and items, k, rounds >= 1; got participants=",
        s.participants, " n_min=", s.n_min, " items=", s.items, " k=", s.k, " rounds=", s.rounds));
  }
  return s;
}

// One table row: calibrate for the budget, then report the whole run's curve.
absl::StatusOr<std::string> Row(const Settings& s, double ratio, double epsilon) {
  const int64_t p = static_cast<int64_t>(std::ceil(static_cast<double>(s.items) / ratio));
  const int64_t p_flat = NextPowerOfTwo(p);
  const int64_t dimension = p_flat * s.k;
  PbmCalibrationRequest request;
  request.budget = s.delta > 0 ? PrivacyBudget::ApproxDp(epsilon, s.delta)
                               : PrivacyBudget::Rdp(epsilon, s.alpha);
  request.rounds = s.rounds;
  request.dimension = dimension;
  request.n_min = s.n_min;
  request.participants = s.participants;
  request.max_q = s.max_q;
  absl::StatusOr<PbmCalibration> c = CalibratePbm(request);
  if (!c.ok()) return c.status();

  absl::StatusOr<RdpCurve> coordinate = PbmCoordinateCurve(c->params, DefaultOrders());
  if (!coordinate.ok()) return coordinate.status();
  absl::StatusOr<RdpCurve> total = RdpCurve::Zero(DefaultOrders());
  if (!total.ok()) return total.status();
  const double times = static_cast<double>(s.rounds) * dimension;
  if (absl::Status st = total->Compose(*coordinate, times); !st.ok()) return st;
  // PBM releases protect one user's whole contribution per round.
  absl::StatusOr<PrivacyReport> report =
      Report(PrivacyCost::FromRdp(*std::move(total), PrivacyUnit::kUser), s.report_delta);
  if (!report.ok()) return report.status();

  // The paper's eq. (19) at alpha = 2 reads rdp = 4 C_0 theta^2 q / ((1 - 2 theta)^4 n); the
  // constant that makes it equal to the numeric bound.
  const double theta = c->params.theta;
  const double rdp2 = *coordinate->At(2.0);
  const double c0 = rdp2 * std::pow(1 - 2 * theta, 4) * s.n_min /
                    (4 * theta * theta * static_cast<double>(c->params.q));
  // Without secure aggregation each client sends its value in the clear: no SecAgg word.
  const std::string secagg_bits = s.n_min == 1 ? "n/a" : absl::StrCat(c->secagg_bits);
  return absl::StrFormat(
      "| %g | %d | %d | %d | %g | %.6g | %d | %d | %s | %.4g | %.4g | %.4g | %.4g |", ratio, p,
      p_flat, dimension, epsilon, theta, c->params.q, c->local_bits, secagg_bits, rdp2,
      report->rdp_order2, report->improved.epsilon, c0);
}

// --ledger: the releases in the file's ledger, what they spent and, for a participant, its budget.
absl::Status PrintLedgerReport(const std::string& path, double delta) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  std::optional<ParticipantBudget> participant;
  absl::StatusOr<PrivacyLedger> ledger = absl::InvalidArgumentError("no ledger");
  if (absl::StartsWith(*bytes, "fedmf-participant-budget ")) {
    absl::StatusOr<ParticipantBudget> parsed = ParseParticipantBudget(*bytes);
    if (!parsed.ok())
      return absl::InvalidArgumentError(absl::StrCat(path, ": ", parsed.status().message()));
    participant = *std::move(parsed);
    ledger = participant->ledger();
  } else {
    v1::CoordinatorCheckpoint checkpoint;
    if (!checkpoint.ParseFromString(*bytes)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": neither a participant's budget nor a coordinator checkpoint"));
    }
    ledger = ParseLedger(checkpoint.ledger());
    if (!ledger.ok())
      return absl::InvalidArgumentError(absl::StrCat(path, ": ", ledger.status().message()));
  }
  absl::StatusOr<PrivacyReport> report = ledger->Report(delta);
  if (!report.ok()) return report.status();
  std::cout << path << ": " << ledger->entries().size() << " releases";
  if (!ledger->entries().empty()) {
    std::cout << " in rounds " << ledger->entries().front().round << " to "
              << ledger->entries().back().round;
  }
  std::cout << "\nspent: " << FormatReport(*report) << "\n";
  if (participant) {
    absl::StatusOr<double> spent = SpentEpsilon(ledger->spent(), participant->budget());
    if (!spent.ok()) return spent.status();
    std::cout << "budget: " << FormatBudget(participant->budget()) << ", of which "
              << absl::StrFormat("%g", *spent) << " is spent\n";
  }
  return absl::OkStatus();
}

int Main() {
  if (const std::string path = absl::GetFlag(FLAGS_ledger); !path.empty()) {
    return ExitCode(PrintLedgerReport(path, absl::GetFlag(FLAGS_report_delta)));
  }
  absl::StatusOr<Settings> s = ReadSettings();
  absl::StatusOr<std::vector<double>> ratios = ParseList(absl::GetFlag(FLAGS_ratios), "ratios");
  absl::StatusOr<std::vector<double>> epsilons =
      ParseList(absl::GetFlag(FLAGS_epsilons), "epsilons");
  for (const absl::Status& st : {s.status(), ratios.status(), epsilons.status()}) {
    if (!st.ok()) {
      std::cerr << "fedmf-privacy: " << st << "\n";
      return 2;
    }
  }
  const std::string budget = s->delta > 0 ? absl::StrFormat("(epsilon, %g)-DP", s->delta)
                                          : absl::StrFormat("RDP epsilon at alpha = %g", s->alpha);
  std::cout << absl::StrFormat(
      "PBM for DPMF-RP: budget = %s per user (worst case: every user may take part in every "
      "round) over T = %d rounds, %d participants per round, n_min = %d%s, m = %d, k = %d\n\n",
      budget, s->rounds, s->participants, s->n_min, s->n_min == 1 ? " (no secure aggregation)" : "",
      s->items, s->k);
  std::cout << "| m/p | p | p' | d = p'k | budget eps | theta | q | bits/coord (client) | "
               "bits/coord (SecAgg) | RDP(2)/coord/round | eps at alpha=2 (total) | "
            << absl::StrFormat("(eps, %g)-DP", s->report_delta) << " | C_0 equivalent |\n";
  std::cout << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (double ratio : *ratios) {
    for (double epsilon : *epsilons) {
      absl::StatusOr<std::string> row = Row(*s, ratio, epsilon);
      if (!row.ok()) {
        std::cerr << "fedmf-privacy: m/p=" << ratio << " epsilon=" << epsilon << ": "
                  << row.status() << "\n";
        return 1;
      }
      std::cout << *row << "\n";
    }
  }
  return 0;
}

}  // namespace
}  // namespace fedmf::dp

int main(int argc, char** argv) {
  fedmf::InitFlagsOnlyCommandLine(
      argc, argv,
      "Prints the PBM parameters (theta, q, bits per coordinate) meeting privacy budgets for "
      "DPMF-RP, computed with fedmf's numeric RDP accountant, or with --ledger what a ledger has "
      "spent.\nExample: fedmf-privacy --rounds=100 --epsilons=0.1,1,10\n"
      "         fedmf-privacy --ledger=STATE_DIR/checkpoint.pb");
  return fedmf::dp::Main();
}
