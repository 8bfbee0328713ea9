#include "client/local_state_file.h"

#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "common/util/atomic_file.h"

namespace fedmf::client {
namespace {

// Restores each participant of `saved` into the host that hosts it (every host gets its part,
// possibly empty, so the format version is always checked).
absl::Status RestoreIntoHosts(const v1::HostLocalState& saved,
                              const std::vector<std::unique_ptr<ParticipantHost>>& hosts) {
  std::map<uint32_t, size_t> host_of;
  for (size_t h = 0; h < hosts.size(); ++h) {
    for (uint32_t id : hosts[h]->participant_ids()) host_of.emplace(id, h);
  }
  std::vector<v1::HostLocalState> parts(hosts.size());
  for (v1::HostLocalState& part : parts) part.set_format_version(saved.format_version());
  std::set<uint32_t> seen;
  for (const v1::ParticipantLocalState& p : saved.participants()) {
    const uint32_t id = p.participant_id();
    if (!seen.insert(id).second) {
      return absl::InvalidArgumentError(absl::StrCat("participant ", id, " is listed twice"));
    }
    const auto it = host_of.find(id);
    if (it == host_of.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "participant ", id, " is not hosted by this process (other users than last time?)"));
    }
    *parts[it->second].add_participants() = p;
  }
  for (size_t h = 0; h < hosts.size(); ++h) {
    if (absl::Status s = hosts[h]->RestoreLocalState(parts[h]); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

std::string LocalStatePath(const std::string& state_dir) {
  return (std::filesystem::path(state_dir) / "local_state.pb").string();
}

absl::StatusOr<std::optional<v1::HostLocalState>> LoadLocalState(const std::string& state_dir) {
  const std::string path = LocalStatePath(state_dir);
  if (!std::filesystem::exists(path)) return std::nullopt;
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": ", bytes.status().message()));
  }
  v1::HostLocalState state;
  if (!state.ParseFromString(*bytes)) {
    return absl::DataLossError(
        absl::StrCat(path, ": ", bytes->size(), " bytes are not a HostLocalState"));
  }
  return state;
}

absl::StatusOr<std::unique_ptr<LocalStateFile>> LocalStateFile::Attach(
    const std::string& state_dir, const std::vector<std::unique_ptr<ParticipantHost>>& hosts) {
  std::error_code error;
  std::filesystem::create_directories(state_dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot create state directory ", state_dir, ": ", error.message()));
  }
  absl::StatusOr<std::optional<v1::HostLocalState>> saved = LoadLocalState(state_dir);
  if (!saved.ok()) return saved.status();
  auto file = absl::WrapUnique(new LocalStateFile(LocalStatePath(state_dir)));
  if (saved->has_value()) {
    if (absl::Status s = RestoreIntoHosts(**saved, hosts); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(file->path_, ": ", s.message()));
    }
    file->restored_participants_ = (*saved)->participants_size();
  }
  {
    std::lock_guard<std::mutex> lock(file->mu_);
    for (const std::unique_ptr<ParticipantHost>& host : hosts) {
      file->MergeLocked(host->ExportLocalState());
    }
    if (absl::Status s = file->WriteLocked(); !s.ok()) return s;
  }
  for (const std::unique_ptr<ParticipantHost>& host : hosts) {
    host->set_local_state_sink(
        [f = file.get()](const v1::HostLocalState& state) { return f->Update(state); });
  }
  return file;
}

absl::Status LocalStateFile::Update(const v1::HostLocalState& state) {
  std::lock_guard<std::mutex> lock(mu_);
  MergeLocked(state);
  return WriteLocked();
}

void LocalStateFile::MergeLocked(const v1::HostLocalState& state) {
  format_version_ = state.format_version();
  for (const v1::ParticipantLocalState& p : state.participants()) {
    participants_[p.participant_id()] = p;
  }
}

absl::Status LocalStateFile::WriteLocked() const {
  v1::HostLocalState merged;
  merged.set_format_version(format_version_);
  for (const auto& [id, p] : participants_) *merged.add_participants() = p;
  return WriteFileAtomically(path_, merged.SerializeAsString());
}

}  // namespace fedmf::client
