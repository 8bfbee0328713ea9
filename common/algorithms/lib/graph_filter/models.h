// The scoring rules of the three graph-filter recommenders, as item filters (item_filter.h) built
// on given components, so that the same rules score from central components (build.h) or from the
// components a federated run aggregates (PriviRec: P~ and the low-pass basis). Row convention as
// the papers: user u with binary item row r_u gets the scores s_u = r_u F.
//
//   GF-CF   (Shen et al., CIKM 2021; reference yshenaw/GF_CF):  F = P~ + gamma F_IDL
//   Turbo-CF (Park et al., SIGIR 2024; reference jindeok/Turbo-CF): F = f(Pbar), Pbar = P~^{o s}
//           (entrywise power of the alpha-normalized P~), f one of the reference's polynomials:
//           1: Pbar;  2: 2 Pbar - Pbar^2;  3: Pbar + 0.01 (-Pbar^3 + 10 Pbar^2 - 29 Pbar)
//   BSPM    (Choi et al., SIGIR 2023; reference jeongwhanchoi/BSPM, class BSPM): three ODEs from
//   r_u,
//           ideal low-pass  dr/dt = r F_IDL - r  over [0, T_idl]  -> r_idl
//           blurring        dr/dt = r P~ - r     over [0, T_b]    -> r_b
//           sharpening      dr/dt = -r P~        over [0, T_s], started at
//                           beta r_idl + r_b (early merge, EM) or r_b (late merge, LM)  -> r_s
//           s_u = r_s (EM) or r_s + beta r_idl (LM); with point combination, r_s is replaced by the
//           mean of the K_b blurring and K_s sharpening time points; with sharpening off, by r_b
//           (or the blurring points' mean) and beta r_idl is added.
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_MODELS_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_MODELS_H_

#include <cstdint>
#include <memory>

#include "absl/types/span.h"
#include "common/algorithms/lib/graph_filter/item_filter.h"
#include "common/algorithms/lib/graph_filter/ode.h"

namespace fedmf::algorithms::graph_filter {

class GfCf final : public ItemFilter {
 public:
  GfCf(std::shared_ptr<const ItemFilter> gram, std::shared_ptr<const ItemFilter> low_pass,
       double gamma)
      : gram_(std::move(gram)), low_pass_(std::move(low_pass)), gamma_(gamma) {}

  int32_t num_items() const override { return gram_->num_items(); }
  Block Apply(const Block& x) const override;
  Block ApplyToUsers(absl::Span<const data::RatingRow> users) const override;

 private:
  std::shared_ptr<const ItemFilter> gram_;
  std::shared_ptr<const ItemFilter> low_pass_;
  double gamma_;
};

class TurboCf final : public ItemFilter {
 public:
  // `powered_gram` is Pbar; `polynomial` 1, 2 or 3 (validated by config.h).
  TurboCf(std::shared_ptr<const ItemFilter> powered_gram, int polynomial)
      : powered_gram_(std::move(powered_gram)), polynomial_(polynomial) {}

  int32_t num_items() const override { return powered_gram_->num_items(); }
  Block Apply(const Block& x) const override;
  Block ApplyToUsers(absl::Span<const data::RatingRow> users) const override;

 private:
  Block Polynomial(Block first_power) const;  // f(Pbar) x from Pbar x

  std::shared_ptr<const ItemFilter> powered_gram_;
  int polynomial_;
};

struct BspmConfig {
  double ideal_weight = 0.2;  // beta; 0 leaves the ideal low-pass out
  OdeSpec ideal{OdeSolver::kEuler, 1, 1};
  OdeSpec blur{OdeSolver::kEuler, 1, 1};
  OdeSpec sharpen{OdeSolver::kRk4, 2.5, 1};
  bool early_merge = true;         // EM: sharpen beta r_idl + r_b; LM: add beta r_idl at the end
  bool sharpening = true;          // false: no sharpening ODE
  bool point_combination = false;  // average the blurring and sharpening time points
};

class Bspm final : public ItemFilter {
 public:
  // `low_pass` may be null when config.ideal_weight == 0.
  Bspm(std::shared_ptr<const ItemFilter> gram, std::shared_ptr<const ItemFilter> low_pass,
       const BspmConfig& config)
      : gram_(std::move(gram)), low_pass_(std::move(low_pass)), config_(config) {}

  int32_t num_items() const override { return gram_->num_items(); }
  Block Apply(const Block& x) const override { return Run(x, nullptr, nullptr); }
  Block ApplyToUsers(absl::Span<const data::RatingRow> users) const override;

 private:
  // The processes from r = x (m x B); the slopes at r, if given, save a product each.
  Block Run(const Block& x, const Block* ideal_slope, const Block* blur_slope) const;

  std::shared_ptr<const ItemFilter> gram_;
  std::shared_ptr<const ItemFilter> low_pass_;
  BspmConfig config_;
};

}  // namespace fedmf::algorithms::graph_filter

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_GRAPH_FILTER_MODELS_H_
