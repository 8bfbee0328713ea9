// The item degrees a PriviRec-family model carries (fedmf.v1.PriviRecModel, PriviRecKModel: the
// same degree fields): with the DP option (`noisy`) the post-processed noisy degrees, else the
// exact counts, as doubles; and how many it holds (m once the degree sum is applied, else 0).
#ifndef FEDMF_COMMON_ALGORITHMS_PRIVIREC_MODEL_DEGREES_H_
#define FEDMF_COMMON_ALGORITHMS_PRIVIREC_MODEL_DEGREES_H_

#include "Eigen/Core"

namespace fedmf::algorithms::privirec {

template <class Model>
Eigen::VectorXd ModelDegrees(const Model& model, bool noisy) {
  if (noisy) {
    return Eigen::Map<const Eigen::VectorXd>(model.noisy_degrees().data(),
                                             model.noisy_degrees_size());
  }
  Eigen::VectorXd v(model.degrees_size());
  for (int j = 0; j < model.degrees_size(); ++j) v[j] = static_cast<double>(model.degrees(j));
  return v;
}

template <class Model>
int ModelDegreeCount(const Model& model, bool noisy) {
  return noisy ? model.noisy_degrees_size() : model.degrees_size();
}

}  // namespace fedmf::algorithms::privirec

#endif  // FEDMF_COMMON_ALGORITHMS_PRIVIREC_MODEL_DEGREES_H_
