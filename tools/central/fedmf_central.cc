// fedmf-central: the centralized baselines (explicit ALS, DPMF-RP's CentralMF, the local-DP MF
// paper's non-private GD, the FMF privacy paper's central DP-SGD, the global-mean, user-mean and
// popularity predictors, and the graph filters GF-CF, Turbo-CF and BSPM of PriviRec) trained and
// evaluated with cross-validation or a predefined split on any dataset fedmf can load; the
// yardstick for federated runs.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/algorithms/hfl_sgdmf/config.h"
#include "common/algorithms/ldp_gd/ldp_gd.h"
#include "common/algorithms/lib/fmf_sgd/config.h"
#include "common/algorithms/lib/graph_filter/config.h"
#include "common/data/dataset_source.h"
#include "common/data/split_spec.h"
#include "common/mf/als.h"
#include "common/mf/model_io.h"
#include "common/util/cli.h"
#include "common/util/event_log.h"
#include "common/util/proc_stats.h"
#include "tools/central/central_report.h"
#include "tools/central/trainer.h"

ABSL_FLAG(std::string, data, "synthetic",
          "dataset: synthetic[:key=value,...], ml-100k:PATH, ml-csv:PATH, ml-dat:PATH, "
          "csv:PATH?... or user-items:TRAIN[?test=TEST] (LightGCN's Gowalla/Yelp2018/Amazon-Book "
          "lists; test= is the predefined test part)");
ABSL_FLAG(std::string, model, "als",
          "als (explicit ALS with biases), central-mf (DPMF-RP eq. 4), ldp-gd (the local-DP MF "
          "paper's non-private GD, --iterations = k), dp-sgdmf (the FMF privacy paper's central "
          "DP-SGD, s = 1: --sgdmf_* flags), hfl-sgdmf (its HFL-SGDMF over --hfl_parties parties in "
          "process, per user: --sgdmf_* and --hfl_* flags), the baselines without factors: "
          "global-mean, user-mean, popularity (ranks by rating count, predicts the item mean), or "
          "the graph filters (rank only, every rating counting 1, published Gowalla settings "
          "unless the --filter_*, --turbo_*, --bspm_* flags say otherwise): gf-cf, turbo-cf, "
          "bspm-lm, bspm-em");
ABSL_FLAG(
    std::string, split, "kfold:5",
    "evaluation split: kfold:K, holdout:FRACTION (per user), leave:N or leave-latest:N (per user), "
    "predefined (the data's own test part, user-items:TRAIN?test=TEST), optionally +train:F "
    "(each user's training ratings subsampled to F)");
ABSL_FLAG(int, folds_to_run, 0, "evaluate only the first N folds (0 = all)");
ABSL_FLAG(uint64_t, seed, 1, "seed of the split and of the factor initialization");
ABSL_FLAG(int, rank, 0,
          "latent dimension k (0 = model default: als 20, central-mf 14, ldp-gd 15, dp-sgdmf 20)");
ABSL_FLAG(double, lambda, 0,
          "user regularization (0 = model default: als 0.12 per rating, central-mf 0.25, ldp-gd "
          "1e-8 for users and items)");
ABSL_FLAG(double, gd_learning_rate, fedmf::algorithms::ldp_gd::kDefaultLearningRate,
          "ldp-gd: gamma_0 (iteration t steps by gamma_0 / (t + 1)), as the federated ldp-gd's "
          "option learning_rate");
ABSL_FLAG(double, gd_init_scale, fedmf::algorithms::ldp_gd::kDefaultInitScale,
          "ldp-gd: V and every u_i start N(0, scale^2) from --seed, as the federated ldp-gd");
ABSL_FLAG(double, mu, 0.9, "central-mf item regularization");
ABSL_FLAG(double, kappa, 15, "central-mf confidence: observed ratings weigh 1 + kappa");
ABSL_FLAG(int, iterations, 15, "ALS sweeps (users then items)");
ABSL_FLAG(double, sgdmf_epsilon, 0,
          "dp-sgdmf: (epsilon, --sgdmf_delta)-DP for the whole run, every noisy step composed; 0 = "
          "no noise (the non-private reference)");
ABSL_FLAG(double, sgdmf_delta, 1e-5, "dp-sgdmf: delta of the budget");
ABSL_FLAG(std::string, sgdmf_unit, "rating",
          "dp-sgdmf: what the guarantee protects, rating or user (each user trimmed at random to "
          "--sgdmf_theta ratings)");
ABSL_FLAG(int, sgdmf_theta, 10, "dp-sgdmf: ratings kept per user for per-user privacy");
ABSL_FLAG(std::string, sgdmf_clip, "embedding",
          "dp-sgdmf: embedding (the paper's Pi: embeddings >= 0 with norm <= sqrt(R)) or gradient "
          "(each unit's gradient clipped to L2 norm --sgdmf_gradient_clip)");
ABSL_FLAG(double, sgdmf_gradient_clip, 10, "dp-sgdmf: C of gradient clipping");
ABSL_FLAG(double, sgdmf_rating_max, 5, "dp-sgdmf: R, ratings lie in [0, R]");
ABSL_FLAG(double, sgdmf_sampling_rate, 0.01, "dp-sgdmf: eta, each user's chance per step");
ABSL_FLAG(int64_t, sgdmf_steps, 1000, "dp-sgdmf: noisy steps of U and V (the paper's T T')");
ABSL_FLAG(int64_t, sgdmf_item_steps, 0, "dp-sgdmf: noisy steps of V alone at the end (kappa)");
ABSL_FLAG(double, sgdmf_learning_rate, 0.003,
          "dp-sgdmf: gamma_0 (0.003: the best non-private rate on ML-100K, docs/results/fmf.md); a "
          "step moves by gamma_t times the noisy gradient sum over the "
          "expected number of sampled users");
ABSL_FLAG(double, sgdmf_final_lr_fraction, 0.5,
          "dp-sgdmf: the rate decays linearly to gamma_0 times this over the first 80% of the "
          "steps, then stays");
ABSL_FLAG(double, sgdmf_init_prediction, 3,
          "dp-sgdmf: initial embeddings predict about this rating (public, data-independent)");
ABSL_FLAG(int32_t, hfl_parties, 10, "hfl-sgdmf: s, parties holding disjoint blocks of users");
ABSL_FLAG(int64_t, hfl_syncs, 100, "hfl-sgdmf: T, syncs of the item embeddings V");
ABSL_FLAG(int64_t, hfl_local_steps, 10,
          "hfl-sgdmf: T', each party's noisy V steps per sync (--sgdmf_steps does not apply: the "
          "noisy stage has T T' steps)");
ABSL_FLAG(int64_t, hfl_pretrain_steps, 100,
          "hfl-sgdmf: stage 1, each party's noiseless full-batch U-only steps");
ABSL_FLAG(int64_t, hfl_finetune_steps, 100,
          "hfl-sgdmf: stage 3, each party's noiseless full-batch (U, V) steps (never published)");
ABSL_FLAG(std::string, hfl_mode, "pretrain-u",
          "hfl-sgdmf: pretrain-u (the paper's HFL-SGDMF), train-both (no stage 1; U moves, "
          "without noise, before each noisy V step), syn-sgd (HFL-synSGD: the parties' noisy V "
          "gradients summed at every step, T T' syncs) or local-only (no noise, no sync: each "
          "party trains alone)");
ABSL_FLAG(bool, clip_predictions, true,
          "clip predicted ratings to the training data's rating range for RMSE/MAE");
ABSL_FLAG(bool, rating_predictor, true,
          "central-mf: RMSE/MAE from the user's mean plus a ridge fit on the item factors "
          "(common/mf/rating_predictor.h), as fedmf's federated evaluation; false: u_i v_j");
ABSL_FLAG(int, top_n, 10, "recommendation list length for precision/recall/F1/mAP (DPMF-RP)");
ABSL_FLAG(double, relevance_threshold, 4, "a test rating >= this is a relevant item");
ABSL_FLAG(int, long_top_n, 20, "list length for Recall@N / NDCG@N (PriviRec)");
ABSL_FLAG(std::optional<double>, filter_alpha, std::nullopt,
          "graph filters: R~ = U^-alpha R V^(alpha-1) (default gf-cf and bspm 0.5, turbo-cf 0.6)");
ABSL_FLAG(std::optional<int64_t>, filter_rank, std::nullopt,
          "gf-cf, bspm: k, the ideal low-pass filter's singular vectors (default gf-cf 256, bspm "
          "448)");
ABSL_FLAG(int64_t, filter_gram_rank, 0,
          "gf-cf, bspm: r >= 1 replaces P~ by its rank-r stand-in S_r Lambda_r S_r^T from P~'s "
          "exact top-r eigenvectors (what privirec-k's power method approximates); 0: P~ itself");
ABSL_FLAG(std::optional<double>, filter_ideal_weight, std::nullopt,
          "gf-cf: gamma, bspm: beta, the ideal low-pass filter's weight (default 0.3, 0.2)");
ABSL_FLAG(std::optional<double>, turbo_power, std::nullopt,
          "turbo-cf: s, P~ raised entrywise to s (default 0.7)");
ABSL_FLAG(std::optional<int>, turbo_polynomial, std::nullopt,
          "turbo-cf: 1 (P), 2 (2P - P^2) or 3 (P + 0.01 (-P^3 + 10 P^2 - 29 P)) (default 1)");
ABSL_FLAG(std::optional<std::string>, bspm_ideal, std::nullopt,
          "bspm: the ideal low-pass ODE as SOLVER,T,K (euler or rk4; default euler,1,1)");
ABSL_FLAG(std::optional<std::string>, bspm_blur, std::nullopt,
          "bspm: the blurring ODE as SOLVER,T,K (default euler,1,1)");
ABSL_FLAG(std::optional<std::string>, bspm_sharpen, std::nullopt,
          "bspm: the sharpening ODE as SOLVER,T,K (default: bspm-em rk4,2.5,1; bspm-lm in "
          "common/algorithms/lib/graph_filter/config.h)");
ABSL_FLAG(std::optional<bool>, bspm_sharpening, std::nullopt,
          "bspm: run the sharpening ODE (default true)");
ABSL_FLAG(std::optional<bool>, bspm_point_combination, std::nullopt,
          "bspm: average the blurring and sharpening time points (default false)");
ABSL_FLAG(int, block_users, 64,
          "graph filters: users scored together (memory grows with it: a few m x block "
          "matrices of doubles)");
ABSL_FLAG(int, threads, 0, "worker threads (0 = all cores)");
ABSL_FLAG(std::string, save_model, "",
          "after evaluation, train on the whole dataset and save the model (protobuf) here");

namespace fedmf::central {
namespace {

// The published settings of a graph filter, overridden by the flags that are set.
absl::StatusOr<algorithms::graph_filter::GraphFilterConfig> GraphFilterFromFlags(
    const std::string& model) {
  namespace gf = algorithms::graph_filter;
  absl::StatusOr<gf::GraphFilterConfig> c = gf::PublishedConfig(model);
  if (!c.ok()) return c.status();
  if (const auto v = absl::GetFlag(FLAGS_filter_alpha)) c->alpha = *v;
  if (const auto v = absl::GetFlag(FLAGS_filter_rank)) c->rank = *v;
  c->gram_rank = absl::GetFlag(FLAGS_filter_gram_rank);
  if (const auto v = absl::GetFlag(FLAGS_filter_ideal_weight)) {
    c->gamma = *v;              // GF-CF's
    c->bspm.ideal_weight = *v;  // BSPM's beta
  }
  if (const auto v = absl::GetFlag(FLAGS_turbo_power)) c->power = *v;
  if (const auto v = absl::GetFlag(FLAGS_turbo_polynomial)) c->polynomial = *v;
  const std::pair<std::optional<std::string>, gf::OdeSpec*> odes[] = {
      {absl::GetFlag(FLAGS_bspm_ideal), &c->bspm.ideal},
      {absl::GetFlag(FLAGS_bspm_blur), &c->bspm.blur},
      {absl::GetFlag(FLAGS_bspm_sharpen), &c->bspm.sharpen}};
  for (const auto& [text, spec] : odes) {
    if (!text.has_value()) continue;
    absl::StatusOr<gf::OdeSpec> parsed = gf::ParseOdeSpec(*text);
    if (!parsed.ok()) return parsed.status();
    *spec = *parsed;
  }
  if (const auto v = absl::GetFlag(FLAGS_bspm_sharpening)) c->bspm.sharpening = *v;
  if (const auto v = absl::GetFlag(FLAGS_bspm_point_combination)) {
    c->bspm.point_combination = *v;
  }
  if (absl::Status s = gf::ValidateConfig(*c); !s.ok()) return s;
  return c;
}

absl::StatusOr<TrainerConfig> ConfigFromFlags() {
  TrainerConfig c;
  c.model = absl::GetFlag(FLAGS_model);
  if (std::find_if(std::begin(kModels), std::end(kModels),
                   [&](const char* m) { return c.model == m; }) == std::end(kModels)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--model must be one of ", absl::StrJoin(kModels, ", "), "; got '", c.model, "'"));
  }
  const int rank = absl::GetFlag(FLAGS_rank);
  const double lambda = absl::GetFlag(FLAGS_lambda);
  c.als.iterations = c.central.iterations = absl::GetFlag(FLAGS_iterations);
  c.als.seed = c.central.seed = absl::GetFlag(FLAGS_seed);
  if (rank != 0) c.als.rank = c.central.rank = rank;
  if (lambda != 0) c.als.lambda = c.central.lambda = lambda;
  c.gd.set_rank(rank != 0 ? rank : algorithms::ldp_gd::kDefaultRank);
  c.gd.set_rounds(absl::GetFlag(FLAGS_iterations));
  c.gd.set_seed(absl::GetFlag(FLAGS_seed));
  c.gd.set_learning_rate(absl::GetFlag(FLAGS_gd_learning_rate));
  c.gd.set_lambda_u(lambda != 0 ? lambda : algorithms::ldp_gd::kDefaultLambda);
  c.gd.set_lambda_v(c.gd.lambda_u());
  c.gd.set_init_scale(absl::GetFlag(FLAGS_gd_init_scale));
  c.gd.set_score_lambda(algorithms::ldp_gd::kDefaultScoreLambda);
  c.gd.set_score_kappa(algorithms::ldp_gd::kDefaultScoreKappa);
  c.sgdmf.rank = rank != 0 ? rank : 20;
  absl::StatusOr<dp::PrivacyUnit> unit = dp::ParsePrivacyUnit(absl::GetFlag(FLAGS_sgdmf_unit));
  if (!unit.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--sgdmf_unit: ", unit.status().message()));
  }
  c.sgdmf.unit = *unit;
  absl::StatusOr<algorithms::fmf_sgd::ClipMode> clip =
      algorithms::fmf_sgd::ParseClipMode(absl::GetFlag(FLAGS_sgdmf_clip));
  if (!clip.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--sgdmf_clip: ", clip.status().message()));
  }
  c.sgdmf.clip = *clip;
  c.sgdmf.max_ratings_per_user = absl::GetFlag(FLAGS_sgdmf_theta);
  c.sgdmf.gradient_clip = absl::GetFlag(FLAGS_sgdmf_gradient_clip);
  c.sgdmf.rating_max = absl::GetFlag(FLAGS_sgdmf_rating_max);
  c.sgdmf.sampling_rate = absl::GetFlag(FLAGS_sgdmf_sampling_rate);
  c.sgdmf.steps = absl::GetFlag(FLAGS_sgdmf_steps);
  c.sgdmf.item_only_steps = absl::GetFlag(FLAGS_sgdmf_item_steps);
  c.sgdmf.learning_rate = absl::GetFlag(FLAGS_sgdmf_learning_rate);
  c.sgdmf.final_learning_rate_fraction = absl::GetFlag(FLAGS_sgdmf_final_lr_fraction);
  c.sgdmf.init_prediction = absl::GetFlag(FLAGS_sgdmf_init_prediction);
  if (absl::Status s = algorithms::fmf_sgd::ValidateConfig(c.sgdmf); !s.ok()) return s;
  c.sgdmf_epsilon = absl::GetFlag(FLAGS_sgdmf_epsilon);
  c.sgdmf_delta = absl::GetFlag(FLAGS_sgdmf_delta);
  if (!(c.sgdmf_epsilon >= 0 && std::isfinite(c.sgdmf_epsilon))) {
    return absl::InvalidArgumentError(
        absl::StrCat("--sgdmf_epsilon=", c.sgdmf_epsilon, " must be finite >= 0"));
  }
  if (!(c.sgdmf_delta > 0 && c.sgdmf_delta < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--sgdmf_delta=", c.sgdmf_delta, " must be in (0, 1)"));
  }
  c.sgdmf_seed = absl::GetFlag(FLAGS_seed);
  if (c.model == "hfl-sgdmf") {
    absl::StatusOr<algorithms::hfl_sgdmf::Mode> mode =
        algorithms::hfl_sgdmf::ParseMode(absl::GetFlag(FLAGS_hfl_mode));
    if (!mode.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--hfl_mode: ", mode.status().message()));
    }
    c.hfl.step = c.sgdmf;
    c.hfl.mode = *mode;
    c.hfl.parties = absl::GetFlag(FLAGS_hfl_parties);
    c.hfl.syncs = absl::GetFlag(FLAGS_hfl_syncs);
    c.hfl.local_steps = absl::GetFlag(FLAGS_hfl_local_steps);
    c.hfl.pretrain_steps = absl::GetFlag(FLAGS_hfl_pretrain_steps);
    c.hfl.finetune_steps = absl::GetFlag(FLAGS_hfl_finetune_steps);
    if (absl::Status s = algorithms::hfl_sgdmf::ValidateConfig(c.hfl); !s.ok()) return s;
  }
  c.central.mu = absl::GetFlag(FLAGS_mu);
  c.central.kappa = absl::GetFlag(FLAGS_kappa);
  c.clip_predictions = absl::GetFlag(FLAGS_clip_predictions);
  c.rating_predictor = absl::GetFlag(FLAGS_rating_predictor);
  c.ranking.top_n = absl::GetFlag(FLAGS_top_n);
  c.ranking.relevance_threshold = absl::GetFlag(FLAGS_relevance_threshold);
  c.long_ranking.top_n = absl::GetFlag(FLAGS_long_top_n);
  c.long_ranking.relevance_threshold = c.ranking.relevance_threshold;
  c.block_users = absl::GetFlag(FLAGS_block_users);
  if (IsGraphFilter(c.model)) {
    absl::StatusOr<algorithms::graph_filter::GraphFilterConfig> filter =
        GraphFilterFromFlags(c.model);
    if (!filter.ok()) return filter.status();
    c.graph_filter = *std::move(filter);
  }
  return c;
}

// InvalidArgument when no test rating of `folds` is relevant: every user would be skipped and the
// ranking metrics read 0.
absl::Status CheckSomethingIsRelevant(const std::vector<data::TrainTest>& folds,
                                      const TrainerConfig& config) {
  for (const data::TrainTest& fold : folds) {
    for (int32_t u = 0; u < fold.test.num_users(); ++u) {
      for (float r : fold.test.user(u).ratings) {
        if (r >= config.ranking.relevance_threshold) return absl::OkStatus();
      }
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "no test rating reaches --relevance_threshold=", config.ranking.relevance_threshold,
      ", so no user could be evaluated (implicit-feedback data such as user-items rates every "
      "interaction 1: pass --relevance_threshold=1)"));
}

// The run's wall time and peak resident memory (VmHWM), on stdout after the summary and as an
// event line.
void PrintResources(absl::Time start) {
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  absl::StatusOr<util::ProcStats> stats = util::ReadProcStats(getpid());
  const double peak_mib = stats.ok() ? static_cast<double>(stats->peak_rss_bytes) / (1 << 20) : 0;
  std::printf("\nwall seconds: %.1f   peak RSS: %.0f MiB   threads: %d\n", seconds, peak_mib,
              omp_get_max_threads());
  EventLine("run_done")
      .Add("wall_seconds", seconds)
      .Add("peak_rss_mib", peak_mib)
      .Add("threads", omp_get_max_threads());
}

absl::Status Run() {
  const absl::Time start = absl::Now();
  if (const int threads = absl::GetFlag(FLAGS_threads); threads > 0) omp_set_num_threads(threads);
  absl::StatusOr<TrainerConfig> config = ConfigFromFlags();
  if (!config.ok()) return config.status();

  absl::StatusOr<data::RatingsDataset> dataset = data::LoadDataset(absl::GetFlag(FLAGS_data));
  if (!dataset.ok()) return dataset.status();
  EventLine("dataset")
      .Add("spec", absl::GetFlag(FLAGS_data))
      .Add("summary", data::DescribeDataset(*dataset));

  absl::StatusOr<std::vector<data::TrainTest>> folds =
      data::MakeSplits(*dataset, absl::GetFlag(FLAGS_split), absl::GetFlag(FLAGS_seed));
  if (!folds.ok()) return folds.status();
  const int limit = absl::GetFlag(FLAGS_folds_to_run);
  if (limit > 0 && limit < static_cast<int>(folds->size())) folds->resize(limit);
  if (absl::Status s = CheckSomethingIsRelevant(*folds, *config); !s.ok()) return s;

  std::vector<FoldResult> results;
  for (size_t f = 0; f < folds->size(); ++f) {
    absl::StatusOr<FoldResult> result =
        TrainAndEvaluate((*folds)[f], *config, static_cast<int>(f + 1));
    if (!result.ok()) return result.status();
    results.push_back(*std::move(result));
  }
  PrintSummary(*config, absl::GetFlag(FLAGS_data), absl::GetFlag(FLAGS_split), results, stdout);
  PrintResources(start);

  if (const std::string path = absl::GetFlag(FLAGS_save_model); !path.empty()) {
    if (!IsFactorModel(config->model)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--save_model: model '", config->model, "' has no factors to save"));
    }
    absl::StatusOr<mf::FactorModel> model = Train(*dataset, *config, /*fold=*/0);
    if (!model.ok()) return model.status();
    if (absl::Status s = mf::SaveModel(*model, *dataset->id_maps(), path); !s.ok()) return s;
    EventLine("model_saved").Add("path", path);
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace fedmf::central

int main(int argc, char** argv) {
  fedmf::InitFlagsOnlyCommandLine(
      argc, argv,
      "Trains a centralized matrix-factorization baseline and reports RMSE, MAE, per-user RMSE, "
      "precision/recall/F1/mAP@N and Recall/NDCG@N under cross-validation.\n"
      "Example: fedmf-central --data=ml-100k:../shared/data/ml-100k/u.data --model=als\n"
      "Settings may also come from a file: --flagfile=PATH (one --flag=value per line).");
  return fedmf::ExitCode(fedmf::central::Run());
}
