#include "crypto/secagg/graph.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "crypto/prg.h"

namespace fedmf::secagg {
namespace {

absl::Status CheckIds(const std::vector<uint32_t>& ids) {
  if (ids.empty()) return absl::InvalidArgumentError("neighbor graph without nodes");
  for (size_t i = 1; i < ids.size(); ++i) {
    if (ids[i] <= ids[i - 1]) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "neighbor graph ids not strictly ascending at %d: %d after %d", i, ids[i], ids[i - 1]));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<NeighborGraph> NeighborGraph::Complete(std::vector<uint32_t> ids) {
  if (absl::Status s = CheckIds(ids); !s.ok()) return s;
  return NeighborGraph(std::move(ids), 0, {}, {});
}

absl::StatusOr<NeighborGraph> NeighborGraph::Harary(std::vector<uint32_t> ids, int degree,
                                                    absl::Span<const uint8_t> seed) {
  if (absl::Status s = CheckIds(ids); !s.ok()) return s;
  if (degree < 2 || degree % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Harary degree %d must be even and >= 2", degree));
  }
  const size_t n = ids.size();
  if (static_cast<size_t>(degree) >= n - 1) return Complete(std::move(ids));
  absl::StatusOr<crypto::AesCtrPrg> prg = crypto::AesCtrPrg::Create();
  if (!prg.ok()) return prg.status();
  std::vector<uint64_t> r(n);
  if (absl::Status s = prg->Expand(seed, 64, absl::MakeSpan(r)); !s.ok()) return s;
  std::vector<uint32_t> ring(n);
  for (size_t i = 0; i < n; ++i) ring[i] = static_cast<uint32_t>(i);
  // Ties in r (probability < n^2 / 2^65) are broken by id, i.e. by rank.
  std::sort(ring.begin(), ring.end(),
            [&r](uint32_t a, uint32_t b) { return r[a] != r[b] ? r[a] < r[b] : a < b; });
  std::vector<uint32_t> position(n);
  for (size_t p = 0; p < n; ++p) position[ring[p]] = static_cast<uint32_t>(p);
  return NeighborGraph(std::move(ids), static_cast<size_t>(degree / 2), std::move(ring),
                       std::move(position));
}

size_t NeighborGraph::closed_neighborhood_size() const {
  return complete() ? ids_.size() : 2 * half_degree_ + 1;
}

std::optional<size_t> NeighborGraph::Rank(uint32_t id) const {
  auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  if (it == ids_.end() || *it != id) return std::nullopt;
  return static_cast<size_t>(it - ids_.begin());
}

std::vector<uint32_t> NeighborGraph::ClosedNeighborhood(uint32_t id) const {
  const std::optional<size_t> rank = Rank(id);
  if (!rank.has_value()) return {};
  if (complete()) return ids_;
  const size_t n = ids_.size();
  const size_t p = position_[*rank];
  std::vector<uint32_t> out;
  out.reserve(2 * half_degree_ + 1);
  for (size_t j = 0; j <= 2 * half_degree_; ++j) {
    out.push_back(ids_[ring_[(p + n - half_degree_ + j) % n]]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool NeighborGraph::AreNeighbors(uint32_t a, uint32_t b) const {
  if (a == b) return false;
  const std::optional<size_t> ra = Rank(a), rb = Rank(b);
  if (!ra.has_value() || !rb.has_value()) return false;
  if (complete()) return true;
  const size_t n = ids_.size();
  const size_t pa = position_[*ra], pb = position_[*rb];
  const size_t gap = pa > pb ? pa - pb : pb - pa;
  return std::min(gap, n - gap) <= half_degree_;
}

}  // namespace fedmf::secagg
