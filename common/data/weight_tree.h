// WeightTree: sampling without replacement from integer weights in O(log m) per draw (a Fenwick
// tree). Integer weights keep removal and restoration exact, so a draw sequence depends only on
// the weights and the random numbers, on any machine.
#ifndef FEDMF_COMMON_DATA_WEIGHT_TREE_H_
#define FEDMF_COMMON_DATA_WEIGHT_TREE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fedmf::data {

class WeightTree {
 public:
  // The caller keeps the sum of `weights` below 2^64.
  explicit WeightTree(const std::vector<uint64_t>& weights) : tree_(weights.size() + 1, 0) {
    for (size_t i = 1; i < tree_.size(); ++i) {
      tree_[i] += weights[i - 1];
      const size_t parent = i + (i & (~i + 1));
      if (parent < tree_.size()) tree_[parent] += tree_[i];
      total_ += weights[i - 1];
    }
    while (top_bit_ * 2 < tree_.size()) top_bit_ *= 2;
  }
  uint64_t total() const { return total_; }
  // Adds `delta` to entry i's weight (two's complement of a weight removes it).
  void Add(size_t i, uint64_t delta) {
    total_ += delta;
    for (size_t k = i + 1; k < tree_.size(); k += k & (~k + 1)) tree_[k] += delta;
  }
  // The entry whose cumulative weight interval contains target (0 <= target < total()).
  size_t Find(uint64_t target) const {
    size_t pos = 0;
    for (size_t step = top_bit_; step > 0; step /= 2) {
      if (pos + step < tree_.size() && tree_[pos + step] <= target) {
        pos += step;
        target -= tree_[pos];
      }
    }
    return pos;
  }

 private:
  std::vector<uint64_t> tree_;
  uint64_t total_ = 0;
  size_t top_bit_ = 1;
};

}  // namespace fedmf::data

#endif  // FEDMF_COMMON_DATA_WEIGHT_TREE_H_
