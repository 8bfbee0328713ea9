// The neighbor graph of a SecAgg session over the clients that advertised keys: who masks with
// whom and who holds whose Shamir shares. Complete graph (Bonawitz et al. 2017) or the Harary
// graph H(k, n) on a random ordering of the clients (Bell et al. 2020): clients sorted by
// (r_i, id), r_i = value i of the 64-bit PRG (crypto/prg.h) expanded from HararySeed(sid) over
// the ascending id list, are placed on a ring, and each is adjacent to the k/2 nearest on each
// side. A client's closed neighborhood N[u] (itself included), in ascending id, is the list of
// holders of its secrets; holder v's Shamir index is 1 + the position of v in N[u].
#ifndef FEDMF_CRYPTO_SECAGG_GRAPH_H_
#define FEDMF_CRYPTO_SECAGG_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fedmf::secagg {

class NeighborGraph {
 public:
  // `ids` must be strictly ascending (kInvalidArgument otherwise) and non-empty.
  static absl::StatusOr<NeighborGraph> Complete(std::vector<uint32_t> ids);
  // Harary graph of even degree k >= 2 on a permutation from the 32-byte `seed`. Complete if
  // k >= ids.size() - 1.
  static absl::StatusOr<NeighborGraph> Harary(std::vector<uint32_t> ids, int degree,
                                              absl::Span<const uint8_t> seed);

  size_t size() const { return ids_.size(); }
  absl::Span<const uint32_t> ids() const { return ids_; }
  bool complete() const { return half_degree_ == 0; }
  // |N[u]|: k + 1, or size() for the complete graph.
  size_t closed_neighborhood_size() const;

  // Position of `id` in ids(), if present.
  std::optional<size_t> Rank(uint32_t id) const;
  // N[u] in ascending id (empty if u is not a node).
  std::vector<uint32_t> ClosedNeighborhood(uint32_t id) const;
  bool AreNeighbors(uint32_t a, uint32_t b) const;  // a != b, both nodes, adjacent

 private:
  NeighborGraph(std::vector<uint32_t> ids, size_t half_degree, std::vector<uint32_t> ring,
                std::vector<uint32_t> position)
      : ids_(std::move(ids)),
        half_degree_(half_degree),
        ring_(std::move(ring)),
        position_(std::move(position)) {}

  std::vector<uint32_t> ids_;       // ascending
  size_t half_degree_;              // k/2, 0 for the complete graph
  std::vector<uint32_t> ring_;      // ring_[p] = rank of the node at ring position p
  std::vector<uint32_t> position_;  // position_[rank] = ring position
};

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_GRAPH_H_
