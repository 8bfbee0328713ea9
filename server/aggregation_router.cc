#include "server/aggregation_router.h"

#include <utility>

namespace fedmf::server {

bool AggregationRouter::Deliver(AggregationInbox::Delivery delivery) {
  const bool dropped = inbox_.Deliver(std::move(delivery), [this](Aggregation::Envelopes replies) {
    RouteReplies(std::move(replies));
  });
  if (inbox_.ReadyToClose()) cv_.notify_all();
  return dropped;
}

void AggregationRouter::RouteReplies(Aggregation::Envelopes envelopes) {
  for (uint32_t id : devices_.Route(std::move(envelopes))) {
    Deliver(AggregationInbox::Dropped{id});
  }
}

void AggregationRouter::Changed() {
  ++generation_;
  cv_.notify_all();
}

absl::StatusOr<std::shared_ptr<const secagg::SigningKeyDirectory>> AggregationRouter::SigningKeys(
    const std::vector<uint32_t>& cohort) {
  std::lock_guard<std::mutex> lock(mu_);
  auto directory = std::make_shared<secagg::MapSigningKeyDirectory>();
  for (uint32_t id : cohort) {
    const std::string key = devices_.SigningKeyOf(id);
    if (key.empty()) continue;  // gone: Open drops it
    absl::StatusOr<crypto::Ed25519PublicKey> parsed = crypto::Ed25519PublicKey::FromBytes(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
    if (!parsed.ok()) return parsed.status();  // the registry checked the size
    directory->Add(id, *parsed);
  }
  return std::shared_ptr<const secagg::SigningKeyDirectory>(std::move(directory));
}

PhaseTransport::StageStart AggregationRouter::Open(Aggregation* aggregation,
                                                   const v1::RoundTask& task) {
  std::lock_guard<std::mutex> lock(mu_);
  inbox_.Attach(aggregation);
  for (uint32_t id : devices_.Open(task, aggregation->cohort())) aggregation->Drop(id);
  return Where();
}

void AggregationRouter::AwaitStageEnd(absl::Time deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_ && !run_stop_ && inbox_.aggregation() != nullptr && !inbox_.ReadyToClose() &&
         clock_.Now() < deadline) {
    clock_.WaitUntil(cv_, lock, deadline);
  }
}

void AggregationRouter::Suspend() {
  std::lock_guard<std::mutex> lock(mu_);
  inbox_.Hold();
}

PhaseTransport::StageStart AggregationRouter::Resume(Aggregation::Envelopes envelopes) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AggregationInbox::Delivery> queued = inbox_.Release();
  RouteReplies(std::move(envelopes));
  const StageStart start = Where();
  for (AggregationInbox::Delivery& delivery : queued) {
    Deliver(std::move(delivery));  // late once detached
  }
  return start;
}

PhaseTransport::StageStart AggregationRouter::Where() {
  const Aggregation& aggregation = *inbox_.aggregation();
  StageStart start{.finished = aggregation.Finished(),
                   .stage = aggregation.StageName(),
                   .dropped_so_far = aggregation.DroppedSoFar()};
  if (start.finished) inbox_.Detach();
  return start;
}

void AggregationRouter::Detach() {
  std::lock_guard<std::mutex> lock(mu_);
  inbox_.Detach();
}

bool AggregationRouter::Exclude(uint32_t participant_id, std::string reason) {
  std::lock_guard<std::mutex> lock(mu_);
  return exclusions_.Exclude(participant_id, std::move(reason));
}

std::vector<uint32_t> AggregationRouter::EligibleUsers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return exclusions_.Without(devices_.LiveUsers());
}

int64_t AggregationRouter::EligibleCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t eligible = devices_.LiveUserCount();
  for (const auto& [id, reason] : exclusions_.excluded()) {
    if (devices_.IsLiveUser(id)) --eligible;
  }
  return eligible;
}

int64_t AggregationRouter::ExcludedCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(exclusions_.excluded().size());
}

uint64_t AggregationRouter::Generation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return generation_;
}

void AggregationRouter::AwaitChange(uint64_t seen, absl::Time deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  while (generation_ == seen && clock_.Now() < deadline) clock_.WaitUntil(cv_, lock, deadline);
}

bool AggregationRouter::AwaitStop(absl::Time deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_ && !run_stop_ && clock_.Now() < deadline) clock_.WaitUntil(cv_, lock, deadline);
  return stop_ || run_stop_;
}

bool AggregationRouter::stopped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_ || run_stop_;
}

bool AggregationRouter::run_cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return run_stop_ && !stop_;
}

void AggregationRouter::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = true;
  Changed();
}

void AggregationRouter::StopRun() {
  std::lock_guard<std::mutex> lock(mu_);
  run_stop_ = true;
  Changed();
}

void AggregationRouter::BeginRun() {
  std::lock_guard<std::mutex> lock(mu_);
  exclusions_ = Exclusions();
  run_stop_ = false;
  Changed();
}

void AggregationRouter::AddTo(v1::StatusResponse& status) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, reason] : exclusions_.excluded()) {
    v1::ExcludedParticipant* e = status.add_excluded();
    e->set_participant_id(id);
    e->set_reason(reason);
  }
}

}  // namespace fedmf::server
