// fedmf-client --state_dir: the local state (proto/fedmf/v1/local_state.proto) of every participant
// the process hosts, across all its hosts, in one file <state_dir>/local_state.pb. Every time a
// host's local-state sink reports a change (write-ahead: before a batch of a task's replies leaves)
// the file is replaced atomically and durably (common/util/atomic_file.h), so a kill at any instant
// leaves the old or the new file, never a torn one.
#ifndef FEDMF_CLIENT_LOCAL_STATE_FILE_H_
#define FEDMF_CLIENT_LOCAL_STATE_FILE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/participant_host.h"
#include "fedmf/v1/local_state.pb.h"

namespace fedmf::client {

std::string LocalStatePath(const std::string& state_dir);

// The state in <state_dir>/local_state.pb; nullopt when there is no such file (a fresh start,
// also when `state_dir` does not exist). DataLoss naming the file when it cannot be read or is not
// a HostLocalState.
absl::StatusOr<std::optional<v1::HostLocalState>> LoadLocalState(const std::string& state_dir);

class LocalStateFile {
 public:
  // Creates `state_dir` if needed, restores its file (if any) into `hosts` (each participant into
  // the host that hosts it; give them their budgets first) and makes every host's local-state
  // sink rewrite the file, which it writes once now (an unwritable directory fails here, not in
  // the first round). Errors name the file: LoadLocalState's; InvalidArgument for a file that
  // does not fit the hosts (a participant listed twice or hosted by none of them); the hosts'
  // RestoreLocalState errors (another format version, a ledger but no budget). The returned
  // object must outlive every task the hosts run.
  static absl::StatusOr<std::unique_ptr<LocalStateFile>> Attach(
      const std::string& state_dir, const std::vector<std::unique_ptr<ParticipantHost>>& hosts);

  const std::string& path() const { return path_; }
  // Participants whose state came from the file (0 on a fresh start).
  int restored_participants() const { return restored_participants_; }

 private:
  explicit LocalStateFile(std::string path) : path_(std::move(path)) {}

  // MergeLocked, then WriteLocked: the sink of every host. Thread-safe (hosts may run tasks
  // concurrently).
  absl::Status Update(const v1::HostLocalState& state);
  // Replaces the states of `state`'s participants (mu_ held).
  void MergeLocked(const v1::HostLocalState& state);
  // Replaces the file with every participant's state (mu_ held).
  absl::Status WriteLocked() const;

  const std::string path_;
  int restored_participants_ = 0;
  std::mutex mu_;
  uint32_t format_version_ = 0;                                 // guarded by mu_
  std::map<uint32_t, v1::ParticipantLocalState> participants_;  // by id; guarded by mu_
};

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_LOCAL_STATE_FILE_H_
