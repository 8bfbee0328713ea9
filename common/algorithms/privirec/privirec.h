// PriviRec (Nicolas et al., "Secure Federated Graph-Filtering for Recommender Systems"): the
// graph filters' components summed over a fixed population of users, every sum secure
// (docs/algorithms.md, "PriviRec"; docs/privacy-accounting.md for what the sums reveal).
//   phase 0  degrees:  user u sends its item indicator R_u (sparse, integers); the sum is the item
//                      degrees diag(V), at most n each: ceil(log2(n + 1)) bits.
//   phase 1  Gram:     user u sends w_u R_u^T R_u, w_u = d_u^-2alpha in (0, 1] (d_u its item
//                      count, alpha the filter's normalization), upper triangle only (the matrix is
//                      symmetric: half the coordinates), sparse: its d_u (d_u + 1) / 2 pairs, each
//                      the fixed-point q_u = round(w_u 2^f) <= 2^f. The sum is
//                      P' = sum_u w_u R_u^T R_u  (P~ = V^(alpha-1) P' V^(alpha-1)).
// Fixed point: every coordinate of every user is in [0, 1] and is rounded to the nearest multiple
// of 2^-f, so a decoded entry of P' with c contributors is within c 2^-(f+1) <= n 2^-(f+1) of the
// exact one, and the decoded P~ entry within the same bound times (V_i V_j)^(alpha-1) <= 1. The
// sum of n values <= 2^f is at most n 2^f < 2^(f + ceil(log2(n + 1))) = 2^bits: nothing wraps.
// f is chosen so that bits <= 61 (at most 52: a double holds no more), e.g. 46 for Gowalla's
// 29,858 users (error <= 2.1e-10), 51 for ML-100K's 943.
// The sums then reach every client in the plan (PriviRecModel: the degrees and the non-zero
// entries of P' in fixed point); each builds P~ and the chosen graph filter locally
// (graph_filter::BuildFilterFromGram: the low-pass from P~'s top-k eigenvectors by Lanczos).
#ifndef FEDMF_COMMON_ALGORITHMS_PRIVIREC_PRIVIREC_H_
#define FEDMF_COMMON_ALGORITHMS_PRIVIREC_PRIVIREC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/algorithms/lib/graph_filter/config.h"
#include "common/algorithms/lib/graph_filter/item_filter.h"
#include "fedmf/v1/privirec.pb.h"

namespace fedmf::algorithms::privirec {

inline constexpr absl::string_view kAlgorithmName = "privirec";
inline constexpr int kDegreePhase = 0;
inline constexpr int kGramPhase = 1;
inline constexpr int kMaxSumBits = 61;
inline constexpr int kMaxFracBits = 52;

// ceil(log2(n + 1)): bits of a count of at most n.
int CountBits(int64_t n);
// The largest f with f + CountBits(n) <= kMaxSumBits, at most kMaxFracBits.
int DefaultFracBits(int64_t num_users);
// Bits of the Gram sum: f + CountBits(n).
int GramBits(const v1::PriviRecConfig& config);
// Bits of the degree sum: CountBits(n).
int DegreeBits(const v1::PriviRecConfig& config);
// The error bound of a decoded P' (and P~) entry: n 2^-(f+1).
double GramErrorBound(const v1::PriviRecConfig& config);

// InvalidArgument naming the first bad field (the config may come from the network): m >= 1,
// n >= 1, a known filter, f in [1, kMaxFracBits] with GramBits <= kMaxSumBits.
absl::Status ValidateConfig(const v1::PriviRecConfig& config);
// The filter's published configuration (lib/graph_filter/config.h).
absl::StatusOr<graph_filter::GraphFilterConfig> FilterConfig(const v1::PriviRecConfig& config);
// The graph filter's name (lib/graph_filter/config.h) of an option's `filter`: FILTER_TURBO_CF is
// "turbo-cf" (FILTER_UNSPECIFIED: "unspecified").
std::string FilterName(v1::PriviRecOptions::Filter filter);

// m (m + 1) / 2: the upper triangle's coordinates, the Gram phase's length.
uint64_t UpperLength(int32_t m);
// The linear index of (i, j), i <= j < m, row by row: i m - i (i - 1) / 2 + (j - i).
uint64_t UpperIndex(int32_t m, int32_t i, int32_t j);
// The pair of a linear index < UpperLength(m).
std::pair<int32_t, int32_t> UpperPair(int32_t m, uint64_t index);

// A user's Gram weight d^-2alpha and its fixed-point code round(w 2^f); d >= 1.
double GramWeight(int64_t degree, double alpha);
uint64_t EncodeWeight(double weight, int frac_bits);

// A user's rated items sorted; InvalidArgument, prefixed by `algorithm`, for an item outside
// [0, m) or rated twice (the user's data reaches every phase through this check).
absl::StatusOr<std::vector<int32_t>> SortedItems(absl::Span<const int32_t> rated, int32_t m,
                                                 absl::string_view algorithm);

// A user's two contributions from its sorted, distinct items (each in [0, m)): the degree
// indicator and the upper-triangle Gram pairs, both sparse.
std::vector<uint64_t> DegreeIndices(absl::Span<const int32_t> items);
std::vector<uint64_t> GramIndices(int32_t m, absl::Span<const int32_t> items);

// P~ = V^(alpha-1) P' V^(alpha-1), symmetric, from the model's degrees and fixed-point P'
// (round 1; with the DP option, its noisy degrees and P'). InvalidArgument for a model without both
// sums or with indices out of range.
absl::StatusOr<graph_filter::SparseRows> DecodeGram(const v1::PriviRecModel& model, double alpha);
// diag(V) as doubles (with the DP option: the post-processed noisy degrees) and how many the
// model holds (m once phase 0 is applied, else 0).
Eigen::VectorXd Degrees(const v1::PriviRecModel& model);
int DegreeCount(const v1::PriviRecModel& model);
// The bits of `phase`'s sum: DegreeBits or GramBits, or with the DP option the noisy sum's
// modulus (noise.h).
absl::StatusOr<int> PhaseBits(const v1::PriviRecModel& model, int phase);

}  // namespace fedmf::algorithms::privirec

#endif  // FEDMF_COMMON_ALGORITHMS_PRIVIREC_PRIVIREC_H_
