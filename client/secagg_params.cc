#include "client/secagg_params.h"

#include "absl/status/status.h"

namespace fedmf::client {

v1::SecAggParams ToProto(const secagg::SessionConfig& config) {
  v1::SecAggParams p;
  p.set_context(config.context);
  p.set_num_clients(config.num_clients);
  p.set_threshold(config.threshold);
  p.set_bits(config.bits);
  p.set_length(config.length);
  p.set_harary_graph(config.graph == secagg::GraphKind::kHarary);
  p.set_degree(config.degree);
  p.set_signatures(config.signatures);
  p.set_consistency_check(config.consistency_check);
  return p;
}

absl::StatusOr<secagg::SessionConfig> FromProto(const v1::SecAggParams& params) {
  secagg::SessionConfig config;
  config.context = params.context();
  config.num_clients = params.num_clients();
  config.threshold = params.threshold();
  config.bits = params.bits();
  config.length = static_cast<size_t>(params.length());
  config.graph = params.harary_graph() ? secagg::GraphKind::kHarary : secagg::GraphKind::kComplete;
  config.degree = params.degree();
  config.signatures = params.signatures();
  config.consistency_check = params.consistency_check();
  if (absl::Status s = secagg::ValidateConfig(config); !s.ok()) return s;
  return config;
}

}  // namespace fedmf::client
