// P~_k = S Lambda S^T, the rank-k item-item matrix PriviRec-k's clients build from the broadcast
// basis (privirec_k.h) in place of P~, as an item filter (lib/graph_filter/item_filter.h): applied
// in factored form, two m x k products per block, never the dense m x m matrix.
#ifndef FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_LOW_RANK_GRAM_H_
#define FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_LOW_RANK_GRAM_H_

#include <cstdint>
#include <memory>

#include "absl/types/span.h"
#include "common/algorithms/lib/graph_filter/item_filter.h"
#include "common/algorithms/lib/graph_filter/singular_vectors.h"

namespace fedmf::algorithms::privirec_k {

class LowRankGram final : public graph_filter::ItemFilter {
 public:
  // basis->vectors is S (m x k), basis->values Lambda (k).
  explicit LowRankGram(std::shared_ptr<const graph_filter::SingularBasis> basis)
      : basis_(std::move(basis)) {}

  int32_t num_items() const override { return static_cast<int32_t>(basis_->vectors.rows()); }
  // S (Lambda (S^T x)).
  graph_filter::Block Apply(const graph_filter::Block& x) const override;
  // The same with S^T r summed over each user's rows of S.
  graph_filter::Block ApplyToUsers(absl::Span<const data::RatingRow> users) const override;

 private:
  std::shared_ptr<const graph_filter::SingularBasis> basis_;
};

}  // namespace fedmf::algorithms::privirec_k

#endif  // FEDMF_COMMON_ALGORITHMS_PRIVIREC_K_LOW_RANK_GRAM_H_
