#include "server/exclusions.h"

#include <utility>

namespace fedmf::server {

bool Exclusions::Exclude(uint32_t participant_id, std::string reason) {
  return excluded_.emplace(participant_id, std::move(reason)).second;
}

std::vector<uint32_t> Exclusions::Without(const std::vector<uint32_t>& ids) const {
  std::vector<uint32_t> out;
  out.reserve(ids.size());
  for (uint32_t id : ids) {
    if (!Contains(id)) out.push_back(id);
  }
  return out;
}

}  // namespace fedmf::server
