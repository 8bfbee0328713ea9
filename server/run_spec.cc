#include "server/run_spec.h"

#include <array>
#include <cmath>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/algorithms/new_run.h"
#include "common/algorithms/options.h"
#include "common/algorithms/registry.h"
#include "crypto/secagg/derivation.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "server/cohort.h"
#include "server/coordinator_options.h"

ABSL_FLAG(std::string, run, "",
          "the run, a fedmf.v1.RunSpec in protobuf text format (proto/fedmf/v1/run_spec.proto; "
          "`describe-run` prints the one the flags make); excludes the run's flags (--algorithm, "
          "--config, --set, --rounds, --epsilon, ...)");
ABSL_FLAG(std::string, algorithm, fedmf::server::kDefaultAlgorithm,
          "the federated algorithm to train (--help lists them); a resumed run must name its "
          "checkpoint's");
ABSL_FLAG(std::string, config, "",
          "the algorithm's options (fedmf.v1.<Name>Options) in protobuf text format, e.g. "
          "configs/dpmf-rp/paper.textproto; unset: its defaults. `describe NAME` lists them");
ABSL_FLAG(std::vector<std::string>, set, {},
          "FIELD=VALUE: one option of the algorithm, over --config's (repeatable; nested fields "
          "by dotted path; an enum by its short name, e.g. --set mechanism=pbm)");
ABSL_FLAG(std::optional<int64_t>, rounds, std::nullopt,
          "T: training rounds; unset: the algorithm's default (dp-als 2; dp-popularity, privirec "
          "and privirec-k 1, their one release; the others 100)");
ABSL_FLAG(std::optional<double>, participation, std::nullopt,
          "beta: fraction of users sampled per round; unset: the algorithm's default (dpmf-rp: "
          "its options' participation; the others 0.1)");
ABSL_FLAG(int64_t, min_clients, 0, "n_min: fewest inputs in a decoded sum (0: the whole cohort)");
ABSL_FLAG(double, dropout_fraction, 0.3,
          "fraction of a cohort SecAgg tolerates losing (threshold >= n_min regardless)");
ABSL_FLAG(int32_t, max_failed_rounds, 0,
          "rounds failing in a row before the run ends with ABORTED; 0: never (retry, pausing "
          "up to 30 s between attempts, and report the streak in Status)");
ABSL_FLAG(
    bool, secure_aggregation, true,
    "false: clients upload privatized vectors in the clear, each with the noise a lone client "
    "needs (the paper's non-SecAgg case)");
ABSL_FLAG(double, epsilon, 1,
          "privacy budget of the whole run, per user: (epsilon, --delta)-DP (dpmf-rp, "
          "dp-popularity), pure epsilon (ldp-gd, hdpmf, probe: docs/algorithms.md)");
ABSL_FLAG(double, rating_min, 1,
          "smallest rating of the scale: predicted ratings are clamped to [rating_min, "
          "rating_max] (hdpmf: Delta = rating_max - rating_min)");
ABSL_FLAG(double, rating_max, 5, "largest rating of the scale");
ABSL_FLAG(std::optional<double>, delta, std::nullopt,
          "delta of the whole run's (--epsilon, delta)-DP; unset: 1e-5 (dpmf-rp: its options' "
          "delta; pure-epsilon algorithms: 0); 0: --epsilon is RDP at order 2 (the DPMF-RP paper's "
          "convention, not (epsilon, delta)-DP)");
ABSL_FLAG(uint64_t, seed, 1,
          "model initialization, public projection seeds and cohort sampling (fedmf-sim: also "
          "every user's noise, which is then predictable)");
ABSL_FLAG(std::optional<int64_t>, start_from_version, std::nullopt,
          "warm start (dp-als, dpmf-rp): start the model from this version of the model store "
          "(--state_dir/models) instead of a fresh one; 0: the newest final model. Costs this run "
          "no privacy; its model is as private as both runs together (docs/runtime.md)");
ABSL_FLAG(std::string, eval_every, "auto",
          "federated evaluation: secure-sum the clients' test metrics after every N-th round and "
          "after the last; 0: off. The sums are released without DP noise (not charged to the "
          "privacy ledger), so auto is 10 for a run without noise (--set mechanism=none) and off "
          "for a private run");
ABSL_FLAG(double, eval_participation, 0,
          "fraction of the users in each federated evaluation round (0: the training cohort size)");
ABSL_FLAG(std::string, run_id, "fedmf",
          "bound into every SecAgg session context and recorded with the published models");
ABSL_FLAG(int64_t, publish_every, 0,
          "publish the model for devices to download after every N-th round (0: only the run's "
          "final model; docs/runtime.md, \"Published models\")");
ABSL_FLAG(std::string, secagg_graph, "auto",
          "auto (SecAgg+ Harary graph with k, t from the parameter finder once a neighborhood is "
          "at most half the cohort, else complete), complete or harary");
ABSL_FLAG(double, corrupt_fraction, 0.05,
          "fraction of a cohort assumed corrupt (colluding with the server), for the finder");
ABSL_FLAG(int32_t, secagg_degree, 0,
          "with --secagg_graph=harary: this even degree k instead of the finder's (tests, "
          "experiments: no statistical guarantee computed)");
ABSL_FLAG(bool, secagg_signatures, true,
          "clients sign SecAgg advertisements of training rounds with their registered Ed25519 "
          "keys (the coordinator relays the cohort's keys); evaluation rounds stay unsigned");
ABSL_FLAG(bool, secagg_consistency_check, true,
          "with signatures and the complete graph: Bonawitz's consistency round (clients sign "
          "the survivor list before unmasking)");
ABSL_FLAG(int64_t, wait_for_users, 0,
          "the first round waits until this many users are connected (0: one cohort)");
ABSL_FLAG(int64_t, num_users, 0,
          "user population (participant ids 1..n); 0: from the data (fedmf-coordinator "
          "--eval_data, fedmf-sim --data)");
ABSL_FLAG(int32_t, num_items, 0, "items m; 0: from the data (--eval_data, fedmf-sim --data)");

namespace fedmf::server {

namespace {

using google::protobuf::Message;

// The RunSpec's value of each graph mode (cohort.h), in GraphMode's order.
constexpr v1::RunSpec::SecAggGraph kSpecGraphs[] = {v1::RunSpec::SECAGG_GRAPH_AUTO,
                                                    v1::RunSpec::SECAGG_GRAPH_COMPLETE,
                                                    v1::RunSpec::SECAGG_GRAPH_HARARY};

// The first error of a text-format parse, as FILE:LINE:COLUMN: MESSAGE.
class FirstParseError : public google::protobuf::io::ErrorCollector {
 public:
  explicit FirstParseError(std::string file) : file_(std::move(file)) {}
  void AddError(int line, int column, const std::string& message) override {
    if (error_.empty()) error_ = absl::StrCat(file_, ":", line + 1, ":", column + 1, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  const std::string file_;
  std::string error_;
};

bool InRange(double value, double low, double high, bool high_open) {
  return std::isfinite(value) && value >= low && (high_open ? value < high : value <= high);
}

// Collects "FIELD=VALUE (need RANGE)" for ValidateRunSpec.
class Complaints {
 public:
  explicit Complaints(absl::string_view prefix) : prefix_(prefix) {}
  template <typename T>
  void Add(absl::string_view field, const T& value, absl::string_view need) {
    list_.push_back(absl::StrCat(prefix_, field, "=", value, " (need ", need, ")"));
  }
  void AddRaw(std::string complaint) { list_.push_back(std::move(complaint)); }
  absl::Status Status(absl::string_view file) const {
    if (list_.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(file.empty() ? "" : absl::StrCat(file, ": "), absl::StrJoin(list_, "; ")));
  }

 private:
  const std::string prefix_;
  std::vector<std::string> list_;
};

}  // namespace

const std::vector<std::string>& RunFlagNames() {
  static const std::vector<std::string>* const names =
      new std::vector<std::string>{"algorithm",
                                   "config",
                                   "set",
                                   "rounds",
                                   "epsilon",
                                   "delta",
                                   "participation",
                                   "min_clients",
                                   "dropout_fraction",
                                   "max_failed_rounds",
                                   "wait_for_users",
                                   "num_users",
                                   "num_items",
                                   "eval_every",
                                   "eval_participation",
                                   "run_id",
                                   "publish_every",
                                   "secure_aggregation",
                                   "secagg_graph",
                                   "corrupt_fraction",
                                   "secagg_degree",
                                   "secagg_signatures",
                                   "secagg_consistency_check",
                                   "rating_min",
                                   "rating_max",
                                   "seed",
                                   "start_from_version"};
  return *names;
}

absl::StatusOr<v1::RunSpec> RunSpecFromFlags() {
  v1::RunSpec spec;
  spec.set_algorithm(absl::GetFlag(FLAGS_algorithm));
  absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm =
      algorithms::FindTrainingAlgorithm(spec.algorithm());
  if (!algorithm.ok()) return algorithm.status();
  absl::StatusOr<std::unique_ptr<Message>> options = algorithms::ResolveOptions(
      spec.algorithm(), absl::GetFlag(FLAGS_config), absl::GetFlag(FLAGS_set));
  if (options.ok()) {
    spec.set_options(algorithms::OptionsText(**options));
  } else if (options.status().code() != absl::StatusCode::kFailedPrecondition) {
    return options.status();
  }
  if (const std::optional<int64_t> rounds = absl::GetFlag(FLAGS_rounds)) spec.set_rounds(*rounds);
  spec.set_epsilon(absl::GetFlag(FLAGS_epsilon));
  if (const std::optional<double> delta = absl::GetFlag(FLAGS_delta)) spec.set_delta(*delta);
  if (const std::optional<double> p = absl::GetFlag(FLAGS_participation)) {
    spec.set_participation(*p);
  }
  spec.set_min_clients(absl::GetFlag(FLAGS_min_clients));
  spec.set_dropout_fraction(absl::GetFlag(FLAGS_dropout_fraction));
  spec.set_max_failed_rounds(absl::GetFlag(FLAGS_max_failed_rounds));
  spec.set_wait_for_users(absl::GetFlag(FLAGS_wait_for_users));
  spec.set_num_users(absl::GetFlag(FLAGS_num_users));
  spec.set_num_items(absl::GetFlag(FLAGS_num_items));
  if (const std::string every = absl::GetFlag(FLAGS_eval_every); every != "auto") {
    int64_t n = 0;
    if (!absl::SimpleAtoi(every, &n)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--eval_every must be auto or a whole number >= 0, got '", every, "'"));
    }
    spec.set_eval_every(n);
  }
  spec.set_eval_participation(absl::GetFlag(FLAGS_eval_participation));
  spec.set_run_id(absl::GetFlag(FLAGS_run_id));
  spec.set_publish_every(absl::GetFlag(FLAGS_publish_every));
  spec.set_secure_aggregation(absl::GetFlag(FLAGS_secure_aggregation));
  absl::StatusOr<GraphMode> graph = ParseGraphMode(absl::GetFlag(FLAGS_secagg_graph));
  if (!graph.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--secagg_graph: ", graph.status().message()));
  }
  spec.set_secagg_graph(kSpecGraphs[static_cast<int>(*graph)]);
  spec.set_corrupt_fraction(absl::GetFlag(FLAGS_corrupt_fraction));
  spec.set_secagg_degree(absl::GetFlag(FLAGS_secagg_degree));
  spec.set_secagg_signatures(absl::GetFlag(FLAGS_secagg_signatures));
  spec.set_secagg_consistency_check(absl::GetFlag(FLAGS_secagg_consistency_check));
  spec.set_rating_min(absl::GetFlag(FLAGS_rating_min));
  spec.set_rating_max(absl::GetFlag(FLAGS_rating_max));
  spec.set_seed(absl::GetFlag(FLAGS_seed));
  if (const std::optional<int64_t> version = absl::GetFlag(FLAGS_start_from_version)) {
    spec.set_start_from_version(*version);
  }
  return spec;
}

absl::StatusOr<v1::RunSpec> ReadRunSpec(absl::string_view path) {
  std::ifstream in{std::string(path)};
  if (!in) return absl::NotFoundError(absl::StrCat("--run=", path, ": cannot be read"));
  std::stringstream text;
  text << in.rdbuf();
  v1::RunSpec spec;
  FirstParseError errors{std::string(path)};
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text.str(), &spec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        errors.error().empty() ? absl::StrCat(path, ": does not parse") : errors.error(),
        " (fedmf.v1.RunSpec in text format: proto/fedmf/v1/run_spec.proto)"));
  }
  return spec;
}

namespace {

// The run flags given off their defaults, as --NAME=VALUE (--run is not among them).
std::vector<std::string> GivenRunFlags() {
  std::vector<std::string> given;
  for (const std::string& name : RunFlagNames()) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag != nullptr && flag->CurrentValue() != flag->DefaultValue()) {
      given.push_back(absl::StrCat("--", name, "=", flag->CurrentValue()));
    }
  }
  return given;
}

}  // namespace

absl::Status CheckNoRun(absl::string_view why) {
  std::vector<std::string> given = GivenRunFlags();
  if (const std::string file = absl::GetFlag(FLAGS_run); !file.empty()) {
    given.push_back(absl::StrCat("--run=", file));
  }
  if (given.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(why, ": drop ", absl::StrJoin(given, ", ")));
}

absl::StatusOr<ProcessRun> RunOfProcess() {
  ProcessRun run;
  run.file = absl::GetFlag(FLAGS_run);
  if (run.file.empty()) {
    absl::StatusOr<v1::RunSpec> spec = RunSpecFromFlags();
    if (!spec.ok()) return spec.status();
    run.spec = *std::move(spec);
  } else {
    if (const std::vector<std::string> given = GivenRunFlags(); !given.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--run=", run.file, " is the whole run: drop ",
                                                     absl::StrJoin(given, ", "),
                                                     " (or write it into the file)"));
    }
    absl::StatusOr<v1::RunSpec> spec = ReadRunSpec(run.file);
    if (!spec.ok()) return spec.status();
    run.spec = *std::move(spec);
    if (!run.spec.algorithm().empty()) {
      absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm =
          algorithms::FindTrainingAlgorithm(run.spec.algorithm());
      if (!algorithm.ok()) return algorithm.status();
    }
  }
  if (absl::Status s = ValidateRunSpec(run.spec, run.file); !s.ok()) return s;
  return run;
}

absl::Status ValidateRunSpec(const v1::RunSpec& s, absl::string_view file) {
  Complaints bad(file.empty() ? "--" : "");
  if (s.algorithm().empty()) {
    bad.AddRaw(absl::StrCat(file.empty() ? "--" : "", "algorithm is required"));
  } else if (absl::StatusOr<const algorithms::AlgorithmDefinition*> algorithm =
                 algorithms::FindTrainingAlgorithm(s.algorithm());
             !algorithm.ok()) {
    bad.AddRaw(absl::StrCat("algorithm: ", algorithm.status().message()));
  } else if (absl::StatusOr<std::unique_ptr<Message>> options = RunOptions(s); !options.ok()) {
    // An algorithm without options cannot start a run, but its checkpoint may still resume.
    const bool none_given = !s.has_options() && s.set().empty();
    if (!(none_given && options.status().code() == absl::StatusCode::kFailedPrecondition)) {
      bad.AddRaw(absl::StrCat("options: ", options.status().message()));
    }
  }
  if (s.has_rounds() && s.rounds() < 1) bad.Add("rounds", s.rounds(), ">= 1");
  if (s.has_epsilon() && !InRange(s.epsilon(), 0, INFINITY, true)) {
    bad.Add("epsilon", s.epsilon(), ">= 0");
  }
  if (s.has_delta() && !InRange(s.delta(), 0, 1, true)) bad.Add("delta", s.delta(), "[0, 1)");
  if (s.has_participation() &&
      !(InRange(s.participation(), 0, 1, false) && s.participation() > 0)) {
    bad.Add("participation", s.participation(), "(0, 1]");
  }
  if (s.min_clients() < 0) bad.Add("min_clients", s.min_clients(), ">= 0");
  if (s.has_dropout_fraction() && !InRange(s.dropout_fraction(), 0, 1, true)) {
    bad.Add("dropout_fraction", s.dropout_fraction(), "[0, 1)");
  }
  if (s.max_failed_rounds() < 0) bad.Add("max_failed_rounds", s.max_failed_rounds(), ">= 0");
  if (s.wait_for_users() < 0) bad.Add("wait_for_users", s.wait_for_users(), ">= 0");
  if (s.num_users() < 0) bad.Add("num_users", s.num_users(), ">= 0");
  if (s.num_items() < 0) bad.Add("num_items", s.num_items(), ">= 0");
  if (s.has_eval_every() && s.eval_every() < 0) bad.Add("eval_every", s.eval_every(), ">= 0");
  if (!InRange(s.eval_participation(), 0, 1, false)) {
    bad.Add("eval_participation", s.eval_participation(), "[0, 1]");
  }
  if (s.publish_every() < 0) bad.Add("publish_every", s.publish_every(), ">= 0");
  if (!v1::RunSpec::SecAggGraph_IsValid(s.secagg_graph())) {
    bad.Add("secagg_graph", s.secagg_graph(), "AUTO, COMPLETE or HARARY");
  }
  if (s.has_corrupt_fraction() && !InRange(s.corrupt_fraction(), 0, 1, true)) {
    bad.Add("corrupt_fraction", s.corrupt_fraction(), "[0, 1)");
  }
  if (s.secagg_degree() != 0 && (s.secagg_degree() < 2 || s.secagg_degree() % 2 != 0)) {
    bad.Add("secagg_degree", s.secagg_degree(), "0 or an even number >= 2");
  }
  if (s.has_start_from_version()) {
    if (s.start_from_version() < 0) {
      bad.Add("start_from_version", s.start_from_version(), ">= 0");
    } else if (absl::Status able = algorithms::CheckStartsFromItemFactors(s.algorithm());
               !able.ok() && !s.algorithm().empty()) {
      bad.AddRaw(absl::StrCat(file.empty() ? "--" : "",
                              "start_from_version=", s.start_from_version(), ": ", able.message()));
    }
  }
  const algorithms::RunSettings settings = RunSettingsOf(s, 0, 0);
  if (!std::isfinite(settings.rating_scale.min) || !std::isfinite(settings.rating_scale.max) ||
      !(settings.rating_scale.min < settings.rating_scale.max)) {
    bad.AddRaw(absl::StrCat(file.empty() ? "--" : "", "rating_min=", settings.rating_scale.min,
                            ", ", file.empty() ? "--" : "", "rating_max=",
                            settings.rating_scale.max, " (need rating_min < rating_max)"));
  }
  return bad.Status(file);
}

absl::StatusOr<std::unique_ptr<Message>> RunOptions(const v1::RunSpec& spec) {
  const std::vector<std::string> overrides(spec.set().begin(), spec.set().end());
  if (spec.has_options()) {
    return algorithms::OptionsFromText(spec.algorithm(), spec.options(), "options", overrides);
  }
  return algorithms::ResolveOptions(spec.algorithm(), "", overrides);
}

v1::RunSpec EffectiveRunSpec(const v1::RunSpec& spec) {
  v1::RunSpec s = spec;
  const CoordinatorOptions defaults;
  if (!s.has_rounds()) s.set_rounds(algorithms::RegisteredNewRunDefaults(s.algorithm()).rounds);
  if (!s.has_epsilon()) s.set_epsilon(1);
  if (!s.has_dropout_fraction()) s.set_dropout_fraction(defaults.dropout_fraction);
  if (!s.has_run_id()) s.set_run_id(defaults.run_id);
  if (!s.has_secure_aggregation()) s.set_secure_aggregation(true);
  if (!s.has_corrupt_fraction()) s.set_corrupt_fraction(defaults.corrupt_fraction);
  if (!s.has_secagg_signatures()) s.set_secagg_signatures(defaults.signatures);
  if (!s.has_secagg_consistency_check()) s.set_secagg_consistency_check(defaults.consistency_check);
  const auto scale = algorithms::RunSettings().rating_scale;
  if (!s.has_rating_min()) s.set_rating_min(scale.min);
  if (!s.has_rating_max()) s.set_rating_max(scale.max);
  if (!s.has_seed()) s.set_seed(1);
  return s;
}

algorithms::RunSettings RunSettingsOf(const v1::RunSpec& spec, int64_t users, int32_t items) {
  const v1::RunSpec s = EffectiveRunSpec(spec);
  return {.num_users = users,
          .num_items = items,
          .rounds = s.rounds(),
          .participation = s.has_participation() ? std::optional(s.participation()) : std::nullopt,
          .min_clients = s.min_clients(),
          .secure_aggregation = s.secure_aggregation(),
          .epsilon = s.epsilon(),
          .delta = s.has_delta() ? std::optional(s.delta()) : std::nullopt,
          .seed = s.seed(),
          .rating_scale = {.min = s.rating_min(), .max = s.rating_max()}};
}

v1::RunSpec RecordedRunSpec(const v1::RunSpec& spec, const std::string& options_text, int64_t users,
                            int32_t items) {
  v1::RunSpec recorded = EffectiveRunSpec(spec);
  recorded.set_options(options_text);
  recorded.clear_set();
  recorded.set_num_users(users);
  recorded.set_num_items(items);
  recorded.clear_wait_for_users();
  return recorded;
}

GraphMode SecAggGraphMode(const v1::RunSpec& spec) {
  for (size_t mode = 0; mode < std::size(kSpecGraphs); ++mode) {
    if (kSpecGraphs[mode] == spec.secagg_graph()) return static_cast<GraphMode>(mode);
  }
  return GraphMode::kAuto;  // not a valid spec (ValidateRunSpec)
}

std::string RunSpecText(const v1::RunSpec& spec, bool single_line) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(single_line);
  std::string text;
  printer.PrintToString(spec, &text);
  return single_line ? std::string(absl::StripAsciiWhitespace(text)) : text;
}

std::string RunSpecId(const v1::RunSpec& spec) {
  absl::StatusOr<std::array<uint8_t, 32>> digest = secagg::Sha256Of(RunSpecText(spec, true));
  if (!digest.ok()) return "unknown";
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest->data()), 8));
}

}  // namespace fedmf::server
