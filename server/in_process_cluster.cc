#include "server/in_process_cluster.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace fedmf::server {

InProcessCluster::InProcessCluster(int fronts, const CoordinatorOptions& options,
                                   CoordinatorState state, Clock& clock, PendingWork* work,
                                   UpTap tap)
    : work_(work), tap_(std::move(tap)) {
  const size_t count = fronts < 1 ? 1 : static_cast<size_t>(fronts);
  cut_ = std::make_unique<std::atomic<bool>[]>(count);
  // The links first: their receivers reach the fronts and the combiner built next, and carry
  // nothing until a device connects.
  for (size_t f = 0; f < count; ++f) {
    links_.push_back(std::make_unique<InProcessLink>(
        [this, f](v1::FrontMessage message) {
          if (Carries(f) && tap_) tap_(f, message);
          if (Carries(f)) combiner_->ReceiveFromFront(f, message);  // the tap may have cut it
          if (work_ != nullptr) work_->WorkDone(1);
        },
        [this, f](v1::CombinerMessage message) {
          if (Carries(f)) fronts_[f]->Receive(std::move(message));
          if (work_ != nullptr) work_->WorkDone(1);
        }));
  }
  combiner_ =
      std::make_unique<Coordinator>(options, std::move(state), Coordinator::CombinerRole{}, clock);
  for (size_t f = 0; f < count; ++f) {
    InProcessLink& link = *links_[f];
    CoordinatorOptions front_options = options;
    // Each front its own copy of the combiner's published models, as in its own process.
    if (options.models != nullptr) front_options.models = ModelStore::Open({}).value();
    fronts_.push_back(
        std::make_unique<Front>(front_options, clock, [this, &link](v1::FrontMessage m) {
          if (work_ != nullptr) work_->WorkAdded(1);
          link.to_combiner.Send(std::move(m));
        }));
    // Front f is the combiner's f-th: the indices of ReceiveFromFront and FrontLost are f.
    combiner_->AttachFront(
        [this, &link](v1::CombinerMessage m) {
          if (work_ != nullptr) work_->WorkAdded(1);
          link.to_front.Send(std::move(m));
        },
        absl::StrCat("front ", f));
  }
  Drain();  // every front has its Welcome
}

InProcessCluster::~InProcessCluster() {
  closing_ = true;
  // A handler that was running when closing_ was set may still send; once every channel has been
  // drained twice, the second pass's handlers all dropped what they got and sent nothing.
  DrainOnce();
  DrainOnce();
}

void InProcessCluster::Cut(size_t f) {
  if (cut_[f].exchange(true)) return;
  combiner_->FrontLost(f);
  fronts_[f]->CombinerLost();
}

uint64_t InProcessCluster::DrainOnce() {
  uint64_t handled = 0;
  for (const std::unique_ptr<InProcessLink>& link : links_) {
    handled += link->to_combiner.Drain();
    handled += link->to_front.Drain();
  }
  return handled;
}

void InProcessCluster::Drain() {
  uint64_t before = DrainOnce();
  for (uint64_t after = DrainOnce(); after != before; after = DrainOnce()) before = after;
}

}  // namespace fedmf::server
