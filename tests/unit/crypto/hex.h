// Test helper: decodes a hex string written in a test (spaces allowed) into bytes.
#ifndef FEDMF_TESTS_UNIT_CRYPTO_HEX_H_
#define FEDMF_TESTS_UNIT_CRYPTO_HEX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace fedmf::crypto::test_util {

inline std::vector<uint8_t> Hex(absl::string_view hex) {
  const std::string bytes = absl::HexStringToBytes(absl::StrReplaceAll(hex, {{" ", ""}}));
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

inline std::string ToHex(absl::Span<const uint8_t> bytes) {
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace fedmf::crypto::test_util

#endif  // FEDMF_TESTS_UNIT_CRYPTO_HEX_H_
