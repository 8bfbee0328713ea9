// Test support for the published models (server/model_store.h): a model published the way the
// round driver does, for the tests of the fronts' model cache.
#ifndef FEDMF_TESTS_UNIT_SERVER_PUBLISHED_MODELS_H_
#define FEDMF_TESTS_UNIT_SERVER_PUBLISHED_MODELS_H_

#include <cstdint>

#include "fedmf/v1/federation.pb.h"
#include "gtest/gtest.h"
#include "server/model_store.h"

namespace fedmf::server::testing {

// Publishes run "run"'s model after `round` rounds (a RoundPlan of that round) in `store`;
// returns the newest version as a StoredModel, the form the combiner sends to its fronts.
inline v1::StoredModel PublishRound(ModelStore& store, int64_t round) {
  v1::ModelVersion info;
  info.set_run_id("run");
  info.set_round(round);
  v1::RoundPlan plan;
  plan.set_round(round);
  EXPECT_TRUE(store.Publish(info, plan).ok());
  v1::StoredModel stored;
  *stored.mutable_version() = store.Latest()->version;
  stored.set_model(store.Latest()->model);
  return stored;
}

}  // namespace fedmf::server::testing

#endif  // FEDMF_TESTS_UNIT_SERVER_PUBLISHED_MODELS_H_
