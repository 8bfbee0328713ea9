// Where a SecAgg party finds the Ed25519 verification key of a client: a source the server cannot
// alter (Bonawitz et al.'s PKI assumption), e.g. keys registered when clients enrolled.
#ifndef FEDMF_CRYPTO_SECAGG_SIGNING_DIRECTORY_H_
#define FEDMF_CRYPTO_SECAGG_SIGNING_DIRECTORY_H_

#include <cstdint>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "crypto/ed25519.h"

namespace fedmf::secagg {

class SigningKeyDirectory {
 public:
  virtual ~SigningKeyDirectory() = default;
  // The verification key of `client_id`, or nullopt if the client is unknown.
  virtual std::optional<crypto::Ed25519PublicKey> Find(uint32_t client_id) const = 0;
};

// A directory held in memory.
class MapSigningKeyDirectory : public SigningKeyDirectory {
 public:
  void Add(uint32_t client_id, const crypto::Ed25519PublicKey& key) {
    keys_.insert_or_assign(client_id, key);
  }
  std::optional<crypto::Ed25519PublicKey> Find(uint32_t client_id) const override {
    auto it = keys_.find(client_id);
    if (it == keys_.end()) return std::nullopt;
    return it->second;
  }

 private:
  absl::flat_hash_map<uint32_t, crypto::Ed25519PublicKey> keys_;
};

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_SIGNING_DIRECTORY_H_
