#include "common/dp/rng.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <array>
#include <type_traits>

#include "absl/status/status.h"

namespace fedmf::dp {

static_assert(std::is_trivially_copyable_v<std::mt19937_64>,
              "the engine is wiped byte-wise in ~Rng");

absl::StatusOr<Rng> Rng::FromOsEntropy() {
  std::array<uint32_t, 8> words;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(words.data()), static_cast<int>(sizeof(words))) !=
      1) {
    return absl::UnavailableError("RAND_bytes failed: the OS CSPRNG could not seed the noise Rng");
  }
  std::seed_seq seq(words.begin(), words.end());
  OPENSSL_cleanse(words.data(), sizeof(words));
  return Rng(seq);
}

Rng::~Rng() { OPENSSL_cleanse(&engine_, sizeof(engine_)); }

}  // namespace fedmf::dp
