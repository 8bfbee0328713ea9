// Embedding clipping Pi of the FMF privacy paper (Li et al., VLDB 2022, eq. 6): the Euclidean
// projection of an embedding onto {x : x >= 0, ||x||_2 <= sqrt(R)}, computed as the paper's two
// steps (negative entries to 0, then scale to norm sqrt(R)); with ratings in [0, R] it bounds one
// rating's gradient with respect to one embedding by 2 R^{3/2} (RatingGradientBound).
#ifndef FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_EMBEDDING_CLIP_H_
#define FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_EMBEDDING_CLIP_H_

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace fedmf::algorithms::fmf_sgd {

// Pi(x) for ratings in [0, rating_max]: the closest point of the feasible set to x. The computed
// norm is <= sqrt(rating_max) exactly (dp::ClipL2). InvalidArgument for rating_max not finite > 0
// or a non-finite x.
absl::StatusOr<Eigen::VectorXd> ProjectEmbedding(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                 double rating_max);

// Pi applied to every row of `embeddings` (users x p or items x p), in place.
absl::Status ProjectRows(Eigen::MatrixXd& embeddings, double rating_max);

// 2 R^{3/2}: the largest norm of -2 (r - <u, v>) v (or of -2 (r - <u, v>) u) for u and v in the
// feasible set and a rating r in [0, R] (|r - <u, v>| <= R, ||v|| <= sqrt(R)).
double RatingGradientBound(double rating_max);

}  // namespace fedmf::algorithms::fmf_sgd

#endif  // FEDMF_COMMON_ALGORITHMS_LIB_FMF_SGD_EMBEDDING_CLIP_H_
