// Participants excluded for the rest of the run: the culprits a SecAgg session named when their
// misbehaviour made it abort (crypto/secagg/server_session.h, misbehaviour()). Later cohorts are
// drawn without them, so a retried round does not meet the same culprit again. Kept in memory
// only: a restarted coordinator forgives, and a culprit then costs one more failed attempt before
// it is excluded again. Not thread-safe (the stream router's lock guards it).
#ifndef FEDMF_SERVER_EXCLUSIONS_H_
#define FEDMF_SERVER_EXCLUSIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fedmf::server {

class Exclusions {
 public:
  // Excludes `participant_id` with `reason`; false (and the first reason kept) if it already was.
  bool Exclude(uint32_t participant_id, std::string reason);
  bool Contains(uint32_t participant_id) const { return excluded_.contains(participant_id); }
  // `ids` without the excluded ones, in the same order.
  std::vector<uint32_t> Without(const std::vector<uint32_t>& ids) const;
  // Every excluded participant and why, ascending id.
  const std::map<uint32_t, std::string>& excluded() const { return excluded_; }

 private:
  std::map<uint32_t, std::string> excluded_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_EXCLUSIONS_H_
