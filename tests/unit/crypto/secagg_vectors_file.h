// Test helper: the committed SecAgg test vectors (docs/vectors/secagg_3_clients.json, fields in
// docs/vectors/README.md) parsed once, with accessors by client, pair, secret and message. The
// file's path is compiled in (FEDMF_SECAGG_VECTORS_FILE); the environment variable
// FEDMF_SECAGG_VECTORS overrides it (to try an altered copy). A missing or malformed field is a
// test failure (an nlohmann::json exception or an ADD_FAILURE), never a crash.
#ifndef FEDMF_TESTS_UNIT_CRYPTO_SECAGG_VECTORS_FILE_H_
#define FEDMF_TESTS_UNIT_CRYPTO_SECAGG_VECTORS_FILE_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/types/span.h"
#include "crypto/secagg/config.h"
#include "crypto/secagg/derivation.h"
#include "crypto/x25519.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace fedmf::secagg::vectors_test {

using json = nlohmann::json;
using Bytes = std::vector<uint8_t>;

inline const json& Vectors() {
  static const json* const vectors = [] {
    const char* env = std::getenv("FEDMF_SECAGG_VECTORS");
    const std::string path = env != nullptr ? env : FEDMF_SECAGG_VECTORS_FILE;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    auto* parsed = new json(json::parse(text.str(), nullptr, /*allow_exceptions=*/false));
    if (parsed->is_discarded()) ADD_FAILURE() << path << " is not JSON";
    return parsed;
  }();
  return *vectors;
}

inline const json& Sessions() {
  static const json kEmpty = json::array();
  const json& v = Vectors();
  return v.is_object() && v.contains("sessions") ? v.at("sessions") : kEmpty;
}

// Bytes of a lowercase hex string of the file.
inline Bytes B(const json& j) {
  const std::string s = j.get<std::string>();
  EXPECT_EQ(s.size() % 2, 0u) << s;
  EXPECT_EQ(s.find_first_not_of("0123456789abcdef"), std::string::npos) << s;
  const std::string raw = absl::HexStringToBytes(s);
  return Bytes(raw.begin(), raw.end());
}

inline std::string H(absl::Span<const uint8_t> bytes) {
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}
inline std::string H(const std::string& bytes) { return absl::BytesToHexString(bytes); }

inline std::string Str(const Bytes& b) { return std::string(b.begin(), b.end()); }

inline std::vector<uint64_t> V(const json& j) { return j.get<std::vector<uint64_t>>(); }
inline std::vector<uint32_t> Ids(const json& j) { return j.get<std::vector<uint32_t>>(); }

inline SessionConfig Config(const json& s) {
  const json& c = s.at("config");
  SessionConfig config;
  config.context = c.at("context").get<std::string>();
  config.num_clients = c.at("num_clients").get<int>();
  config.threshold = c.at("threshold").get<int>();
  config.bits = c.at("bits").get<int>();
  config.length = c.at("length").get<size_t>();
  config.graph = c.at("harary_graph").get<bool>() ? GraphKind::kHarary : GraphKind::kComplete;
  config.degree = c.at("degree").get<int>();
  config.signatures = c.at("signatures").get<bool>();
  config.consistency_check = c.at("consistency_check").get<bool>();
  return config;
}

inline SessionId Sid(const json& s) {
  SessionId sid{};
  const Bytes b = B(s.at("session_id"));
  EXPECT_EQ(b.size(), sid.size());
  std::copy_n(b.begin(), std::min(b.size(), sid.size()), sid.begin());
  return sid;
}

inline std::array<uint8_t, 32> Array32(const Bytes& b) {
  std::array<uint8_t, 32> a{};
  EXPECT_EQ(b.size(), a.size());
  std::copy_n(b.begin(), std::min(b.size(), a.size()), a.begin());
  return a;
}

inline const json& Client(const json& s, uint32_t id) {
  for (const json& c : s.at("clients")) {
    if (c.at("id").get<uint32_t>() == id) return c;
  }
  ADD_FAILURE() << "no client " << id;
  return s.at("clients").at(0);
}

inline crypto::X25519PrivateKey Key(const json& c, const char* field) {
  return crypto::X25519PrivateKey::FromBytes(B(c.at(field))).value();
}

inline crypto::X25519PublicKey PublicKey(const json& c, const char* field) {
  return crypto::X25519PublicKey::FromBytes(B(c.at(field))).value();
}

inline const json& PairOf(const json& s, uint32_t a, uint32_t b) {
  for (const json& p : s.at("pairs")) {
    if (p.at("lo").get<uint32_t>() == std::min(a, b) &&
        p.at("hi").get<uint32_t>() == std::max(a, b)) {
      return p;
    }
  }
  ADD_FAILURE() << "no pair " << a << ", " << b;
  return s.at("pairs").at(0);
}

inline const json& ShamirOf(const json& s, uint32_t owner, const std::string& secret) {
  for (const json& r : s.at("shamir")) {
    if (r.at("owner").get<uint32_t>() == owner && r.at("secret") == secret) return r;
  }
  ADD_FAILURE() << "no Shamir record of " << owner << "'s " << secret;
  return s.at("shamir").at(0);
}

// The share of `owner`'s secret that `holder` holds.
inline Bytes HeldShare(const json& s, uint32_t owner, const std::string& secret, uint32_t holder) {
  for (const json& e : ShamirOf(s, owner, secret).at("shares")) {
    if (e.at("holder").get<uint32_t>() == holder) return B(e.at("share"));
  }
  ADD_FAILURE() << "no share of " << owner << "'s " << secret << " held by " << holder;
  return {};
}

// The recorded serialized messages of one stage and direction for one client.
inline std::vector<Bytes> Messages(const json& s, const std::string& stage, bool from_server,
                                   uint32_t client) {
  std::vector<Bytes> out;
  for (const json& m : s.at("messages")) {
    if (m.at("stage") == stage && m.at("client").get<uint32_t>() == client &&
        m.at("direction") == (from_server ? "server_to_client" : "client_to_server")) {
      out.push_back(B(m.at("bytes")));
    }
  }
  return out;
}

template <typename Message>
Message Parse(const Bytes& bytes) {
  Message m;
  EXPECT_TRUE(m.ParseFromString(Str(bytes)));
  return m;
}

}  // namespace fedmf::secagg::vectors_test

#endif  // FEDMF_TESTS_UNIT_CRYPTO_SECAGG_VECTORS_FILE_H_
