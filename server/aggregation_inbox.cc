#include "server/aggregation_inbox.h"

#include <algorithm>
#include <string>
#include <utility>

#include "common/util/event_log.h"

namespace fedmf::server {

void AggregationInbox::Attach(Aggregation* aggregation) {
  aggregation_ = aggregation;
  cohort_ = aggregation->cohort();
  held_ = false;
  queued_.clear();
}

void AggregationInbox::Detach() {
  aggregation_ = nullptr;
  cohort_.clear();
  held_ = false;
  queued_.clear();
}

std::vector<AggregationInbox::Delivery> AggregationInbox::Release() {
  held_ = false;
  std::vector<Delivery> queued = std::move(queued_);
  queued_.clear();
  return queued;
}

bool AggregationInbox::ReadyToClose() const {
  return aggregation_ != nullptr && !held_ && aggregation_->ReadyToClose();
}

bool AggregationInbox::Deliver(Delivery delivery, const Route& route) {
  if (aggregation_ == nullptr) return false;  // late for a finished round
  if (held_) {
    // A drop counts as done when its participant is in the cohort (Drop may still find it gone).
    const auto* dropped = std::get_if<Dropped>(&delivery);
    const bool member = dropped != nullptr &&
                        std::binary_search(cohort_.begin(), cohort_.end(), dropped->participant_id);
    queued_.push_back(std::move(delivery));
    return member;
  }
  return Apply(delivery, route);
}

bool AggregationInbox::Apply(Delivery& delivery, const Route& route) {
  if (auto* secagg = std::get_if<SecAggMessage>(&delivery)) {
    Aggregation::Delivery delivered =
        aggregation_->DeliverSecAgg(secagg->participant_id, secagg->message);
    if (!delivered.rejected.empty()) {
      EventLine("participant_rejected")
          .Add("participant", secagg->participant_id)
          .Add("reason", delivered.rejected);
    }
    route(std::move(delivered.replies));
    return false;
  }
  if (auto* upload = std::get_if<v1::ClearUpload>(&delivery)) {
    if (const std::string rejected = aggregation_->DeliverClear(*upload); !rejected.empty()) {
      EventLine("participant_rejected")
          .Add("participant", upload->participant_id())
          .Add("reason", rejected);
    }
    return false;
  }
  if (auto* partial = std::get_if<PartialSum>(&delivery)) {
    Aggregation::Delivery delivered = aggregation_->DeliverPartialSum(partial->tag, partial->sum);
    if (!delivered.rejected.empty()) {
      EventLine("partial_sum_rejected")
          .Add("members", partial->sum.members.size())
          .Add("reason", delivered.rejected);
    }
    route(std::move(delivered.replies));
    return false;
  }
  return aggregation_->Drop(std::get<Dropped>(delivery).participant_id);
}

}  // namespace fedmf::server
