// The aggregation a phase runner attached to the stream router, as the streams reach it: what
// they deliver for it (a participant's SecAgg message or clear upload, a front's partial sum of
// masked inputs, or that a participant is gone) goes into it at once; while the runner closes its
// stage (Hold .. Release) it waits in a queue, in order of arrival; detached, it is late and
// changes nothing. The replies the aggregation makes go to the caller's `route`. Not thread-safe:
// the router's lock guards it.
#ifndef FEDMF_SERVER_AGGREGATION_INBOX_H_
#define FEDMF_SERVER_AGGREGATION_INBOX_H_

#include <cstdint>
#include <functional>
#include <variant>
#include <vector>

#include "crypto/secagg/partial_sum.h"
#include "fedmf/v1/federation.pb.h"
#include "server/aggregation.h"
#include "wire/envelope.h"

namespace fedmf::server {

class AggregationInbox {
 public:
  struct SecAggMessage {
    uint32_t participant_id;
    v1::ParticipantToServer message;
  };
  struct Dropped {
    uint32_t participant_id;
  };
  struct PartialSum {
    wire::AggregationTag tag;
    secagg::PartialSum sum;
  };
  using Delivery = std::variant<SecAggMessage, v1::ClearUpload, Dropped, PartialSum>;
  using Route = std::function<void(Aggregation::Envelopes)>;

  // `aggregation` (the caller keeps it alive until Detach) receives what is delivered from now.
  void Attach(Aggregation* aggregation);
  // Late from now; the queue is dropped.
  void Detach();
  // The attached aggregation (null when detached); the router's to use only when not held.
  Aggregation* aggregation() const { return aggregation_; }
  // Its cohort, ascending (empty when detached); readable while held.
  const std::vector<uint32_t>& cohort() const { return cohort_; }
  // From now deliveries are queued.
  void Hold() { held_ = true; }
  // Ends the hold; what was queued, to deliver again (Deliver) in order.
  std::vector<Delivery> Release();
  // Attached, not held, and its stage waits for nobody.
  bool ReadyToClose() const;

  // Hands `delivery` to the aggregation, queues it while held, or ignores it when detached. True
  // for a drop of a cohort member (applied: still in the round; queued: in the cohort).
  bool Deliver(Delivery delivery, const Route& route);

 private:
  bool Apply(Delivery& delivery, const Route& route);

  Aggregation* aggregation_ = nullptr;
  std::vector<uint32_t> cohort_;
  bool held_ = false;
  std::vector<Delivery> queued_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_AGGREGATION_INBOX_H_
