// libFuzzer: Shamir reconstruction from arbitrary shares and parameters, one-shot, through a
// ShamirReconstructor and with error correction (ShamirDecode). Byte 0 and 1 give t and n; then
// each share is a 4-byte index and 40 bytes. Errors are expected; crashes, leaks and out-of-bounds
// accesses are not.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "crypto/shamir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const fedmf::crypto::ShamirParams params{static_cast<int>(data[0] % 12),
                                           static_cast<int>(data[1] % 16)};
  data += 2;
  size -= 2;
  constexpr size_t kRecord = 4 + fedmf::crypto::kShamirShareSize;
  std::vector<fedmf::crypto::ShamirShare> shares;
  std::vector<uint32_t> holders;
  for (; size >= kRecord; data += kRecord, size -= kRecord) {
    fedmf::crypto::ShamirShare share;
    std::memcpy(&share.index, data, 4);
    share.value = fedmf::crypto::SecretBytes(absl::MakeConstSpan(data + 4, kRecord - 4));
    holders.push_back(share.index);
    shares.push_back(std::move(share));
  }
  // A trailing partial record becomes a share of the wrong size.
  if (size > 4) {
    fedmf::crypto::ShamirShare share;
    std::memcpy(&share.index, data, 4);
    share.value = fedmf::crypto::SecretBytes(absl::MakeConstSpan(data + 4, size - 4));
    shares.push_back(std::move(share));
  }
  (void)fedmf::crypto::ShamirReconstruct(shares, params);
  auto reconstructor = fedmf::crypto::ShamirReconstructor::Create(holders, params);
  if (reconstructor.ok()) (void)reconstructor->Reconstruct(shares);
  (void)fedmf::crypto::ShamirDecode(shares, params);
  return 0;
}
