// Test helper: a tiny DPMF-RP setup (no noise) whose round plans the client tests answer.
#ifndef FEDMF_TESTS_UNIT_CLIENT_TEST_ROUND_H_
#define FEDMF_TESTS_UNIT_CLIENT_TEST_ROUND_H_

#include <memory>

#include "common/algorithms/dpmf_rp/updater.h"
#include "common/data/synthetic.h"

namespace fedmf::client::test_util {

// 40 users x 30 items, 8 ratings each.
inline std::shared_ptr<const data::RatingsDataset> SmallData() {
  data::SyntheticConfig c;
  c.num_users = 40;
  c.num_items = 30;
  c.ratings_per_user = 8;
  c.min_ratings_per_user = 4;
  return std::make_shared<const data::RatingsDataset>(data::GenerateSynthetic(c).value());
}

// Cohort of 10 (participation 0.25 of 40 users), n_min 6, rank 4, no noise (unless `mechanism`
// says otherwise, at epsilon 1), full item model. Without secure aggregation the plans ask for
// clear uploads (n_min 1).
inline std::unique_ptr<algorithms::dpmf_rp::DpmfRpUpdater> SmallUpdater(
    bool secure_aggregation = true,
    algorithms::dpmf_rp::Mechanism mechanism = algorithms::dpmf_rp::Mechanism::kNone) {
  algorithms::dpmf_rp::DpmfRpConfig c;
  c.num_users = 40;
  c.num_items = 30;
  c.rank = 4;
  c.mechanism = mechanism;
  c.item_model = algorithms::dpmf_rp::ItemModel::kFull;
  c.compression = 2;
  c.participation = 0.25;
  c.min_clients = 6;
  c.rounds = 3;
  c.secure_aggregation = secure_aggregation;
  return algorithms::dpmf_rp::DpmfRpUpdater::Create(c).value();
}

}  // namespace fedmf::client::test_util

#endif  // FEDMF_TESTS_UNIT_CLIENT_TEST_ROUND_H_
