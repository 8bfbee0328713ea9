#include "crypto/secagg/config.h"

#include "absl/strings/str_format.h"
#include "crypto/secagg/derivation.h"
#include "crypto/secagg/errors.h"

namespace fedmf::secagg {

absl::Status ValidateConfig(const SessionConfig& c) {
  if (c.context.size() > kMaxContextSize) {
    return Invalid("SecAgg config: context is %d bytes, at most %d", c.context.size(),
                   kMaxContextSize);
  }
  if (c.num_clients < 2 || c.num_clients > kMaxClients) {
    return Invalid("SecAgg config: num_clients=%d outside [2, %d]", c.num_clients, kMaxClients);
  }
  if (c.threshold < 2 || c.threshold > c.num_clients) {
    return Invalid("SecAgg config: threshold=%d outside [2, num_clients=%d]", c.threshold,
                   c.num_clients);
  }
  if (c.bits < 1 || c.bits > kMaxBits) {
    return Invalid("SecAgg config: bits=%d outside [1, %d]", c.bits, kMaxBits);
  }
  if (c.length < 1 || c.length > kMaxLength) {
    return Invalid("SecAgg config: length=%d outside [1, %d]", c.length, kMaxLength);
  }
  switch (c.graph) {
    case GraphKind::kComplete:
      if (c.degree != 0)
        return Invalid("SecAgg config: degree=%d given for the complete graph", c.degree);
      break;
    case GraphKind::kHarary:
      if (c.degree < 2 || c.degree % 2 != 0) {
        return Invalid("SecAgg config: Harary degree=%d must be even and >= 2", c.degree);
      }
      if (c.threshold > c.degree + 1) {
        return Invalid(
            "SecAgg config: threshold=%d exceeds the closed neighborhood size degree+1=%d",
            c.threshold, c.degree + 1);
      }
      break;
    default:
      return Invalid("SecAgg config: unknown graph kind %d", static_cast<int>(c.graph));
  }
  if (c.consistency_check && !c.signatures) {
    return Invalid("SecAgg config: the consistency check needs signatures");
  }
  if (c.consistency_check && c.graph != GraphKind::kComplete) {
    return Invalid("SecAgg config: the consistency check is only defined for the complete graph");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::array<uint8_t, 32>> ConfigDigest(const SessionConfig& c) {
  Sha256 h;
  h.Update(kLabelConfig);
  h.UpdateU32(static_cast<uint32_t>(c.context.size()));
  h.Update(
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(c.context.data()), c.context.size()));
  h.UpdateU32(static_cast<uint32_t>(c.num_clients));
  h.UpdateU32(static_cast<uint32_t>(c.threshold));
  h.UpdateU32(static_cast<uint32_t>(c.bits));
  h.UpdateU64(static_cast<uint64_t>(c.length));
  h.UpdateU32(static_cast<uint32_t>(c.graph));
  h.UpdateU32(static_cast<uint32_t>(c.degree));
  h.UpdateU32(c.signatures ? 1 : 0);
  h.UpdateU32(c.consistency_check ? 1 : 0);
  return h.Finish();
}

fedmf::v1::SecAggParams ConfigToProto(const SessionConfig& config) {
  fedmf::v1::SecAggParams p;
  p.set_context(config.context);
  p.set_num_clients(config.num_clients);
  p.set_threshold(config.threshold);
  p.set_bits(config.bits);
  p.set_length(config.length);
  p.set_harary_graph(config.graph == GraphKind::kHarary);
  p.set_degree(config.degree);
  p.set_signatures(config.signatures);
  p.set_consistency_check(config.consistency_check);
  return p;
}

absl::StatusOr<SessionConfig> ConfigFromProto(const fedmf::v1::SecAggParams& params) {
  SessionConfig config;
  config.context = params.context();
  config.num_clients = params.num_clients();
  config.threshold = params.threshold();
  config.bits = params.bits();
  config.length = static_cast<size_t>(params.length());
  config.graph = params.harary_graph() ? GraphKind::kHarary : GraphKind::kComplete;
  config.degree = params.degree();
  config.signatures = params.signatures();
  config.consistency_check = params.consistency_check();
  if (absl::Status s = ValidateConfig(config); !s.ok()) return s;
  return config;
}

}  // namespace fedmf::secagg
