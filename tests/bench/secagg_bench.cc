// SecAgg costs, each against yardsticks measured in the same run: X25519 agreements and mask
// expansion (AES-CTR PRG into 32-bit words, d = 2^14, b = 32).
//  * BM_ClientRound: one client of a complete graph of n = 1000, d = 2^14, b = 32, with the time
//    of each stage (the peers' messages are built outside the timed region).
//  * BM_ServerUnmasking/<dropped>: the server's Unmasking close for n = 1000, t = 700, d = 2^14
//    with <dropped> clients lost after ShareKeys (real server code; synthetic clients that send
//    structurally valid messages and real Shamir shares of their secrets).
//  * BM_WholeProtocol*: the in-process protocol on this machine's 2 cores, wall time and peak RSS.
// Run: build/tests/bench/secagg_bench --benchmark_filter=<name>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "crypto/aead.h"
#include "crypto/csprng.h"
#include "crypto/hkdf.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/derivation.h"
#include "crypto/secagg/mask_accumulator.h"
#include "crypto/secagg/parameter_finder.h"
#include "crypto/secagg/server_session.h"
#include "crypto/shamir.h"
#include "crypto/x25519.h"
#include "tests/unit/crypto/secagg_driver.h"

namespace fedmf::secagg {
namespace {

using Clock = std::chrono::steady_clock;
using fedmf::v1::secagg::ClientToServer;
using fedmf::v1::secagg::ServerToClient;

constexpr size_t kLength = 16384;
constexpr int kBits = 32;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Seconds per X25519 agreement and per mask expansion (d = 2^14, b = 32), measured now.
struct Yardsticks {
  double x25519 = 0;
  double mask = 0;
};

Yardsticks MeasureYardsticks() {
  Yardsticks y;
  const crypto::X25519PrivateKey a = crypto::X25519PrivateKey::Generate().value();
  const crypto::X25519PublicKey b = crypto::X25519PrivateKey::Generate().value().public_key();
  constexpr int kAgreements = 300;
  Clock::time_point start = Clock::now();
  for (int i = 0; i < kAgreements; ++i) benchmark::DoNotOptimize(a.ComputeSharedSecret(b));
  y.x25519 = Seconds(start) / kAgreements;
  MaskAccumulator acc = MaskAccumulator::Create(kBits, kLength).value();
  const std::vector<uint8_t> seed(32, 9);
  constexpr int kMasks = 100;
  start = Clock::now();
  for (int i = 0; i < kMasks; ++i) (void)acc.AddMask(seed, crypto::MaskOp::kAdd);
  y.mask = Seconds(start) / kMasks;
  return y;
}

void BM_X25519Agreement(benchmark::State& state) {
  const crypto::X25519PrivateKey a = crypto::X25519PrivateKey::Generate().value();
  const crypto::X25519PublicKey b = crypto::X25519PrivateKey::Generate().value().public_key();
  for (auto _ : state) benchmark::DoNotOptimize(a.ComputeSharedSecret(b));
}
BENCHMARK(BM_X25519Agreement);

void BM_MaskExpansion(benchmark::State& state) {
  MaskAccumulator acc = MaskAccumulator::Create(kBits, kLength).value();
  const std::vector<uint8_t> seed(32, 9);
  for (auto _ : state) (void)acc.AddMask(seed, crypto::MaskOp::kAdd);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kLength * kBits / 8);
}
BENCHMARK(BM_MaskExpansion);

SessionConfig CompleteConfig(int n, int t) {
  SessionConfig c;
  c.context = "secagg-bench";
  c.num_clients = n;
  c.threshold = t;
  c.bits = kBits;
  c.length = kLength;
  return c;
}

void SetKeys(fedmf::v1::secagg::ClientKeys* entry, uint32_t id, const PublicKeyBytes& c,
             const PublicKeyBytes& s) {
  entry->set_client_id(id);
  entry->mutable_keys()->set_c_public_key(c.data(), c.size());
  entry->mutable_keys()->set_s_public_key(s.data(), s.size());
}

// Seconds per HKDF derivation (as in PairwiseMaskSeed), per AEAD encryption plus decryption of
// a share payload, per mask expansion and per Shamir split of a 32-byte secret into n shares.
struct UnitCosts {
  double hkdf = 0, aead = 0, mask = 0, split = 0;
};

UnitCosts MeasureUnitCosts(int t, int n) {
  UnitCosts u;
  const std::vector<uint8_t> key(32, 1), info(88, 2);
  constexpr int kReps = 300;
  Clock::time_point start = Clock::now();
  for (int i = 0; i < kReps; ++i) benchmark::DoNotOptimize(crypto::HkdfSha256(key, key, info, 32));
  u.hkdf = Seconds(start) / kReps;
  const crypto::Aes256Gcm aead = crypto::Aes256Gcm::Create(key).value();
  const std::vector<uint8_t> payload(kSharePayloadSize, 3), ad(40, 4);
  start = Clock::now();
  for (int i = 0; i < kReps; ++i) {
    const std::vector<uint8_t> ct = aead.Encrypt(payload, ad).value();
    benchmark::DoNotOptimize(aead.Decrypt(ct, ad));
  }
  u.aead = Seconds(start) / kReps;
  u.mask = MeasureYardsticks().mask;
  start = Clock::now();
  for (int i = 0; i < 3; ++i) benchmark::DoNotOptimize(crypto::ShamirSplit(key, {t, n}));
  u.split = Seconds(start) / 3;
  return u;
}

// Client 1 of n; the other n - 1 clients exist only as key pairs.
void BM_ClientRound(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const SessionConfig config = CompleteConfig(n, 2 * n / 3 + 1);
  const std::array<uint8_t, 32> digest = ConfigDigest(config).value();
  std::vector<crypto::X25519PrivateKey> peer_c, peer_s;
  for (int i = 2; i <= n; ++i) {
    peer_c.push_back(crypto::X25519PrivateKey::Generate().value());
    peer_s.push_back(crypto::X25519PrivateKey::Generate().value());
  }
  std::vector<uint64_t> input(kLength, 7);
  double share_keys = 0, masked_input = 0, unmasking = 0, x25519 = 0;
  for (auto _ : state) {
    std::unique_ptr<ClientSession> client =
        ClientSession::Create(config, ClientIdentity{1, std::nullopt}, nullptr).value();
    (void)client->SetInput(input);
    const ClientToServer advertise = client->Start().value();
    PublicKeyBytes own_c{}, own_s{};
    std::copy(advertise.advertise_keys().c_public_key().begin(),
              advertise.advertise_keys().c_public_key().end(), own_c.begin());
    std::copy(advertise.advertise_keys().s_public_key().begin(),
              advertise.advertise_keys().s_public_key().end(), own_s.begin());
    ServerToClient keys;
    SessionIdBuilder sid_builder(digest, static_cast<uint32_t>(n));
    SetKeys(keys.mutable_share_keys()->add_clients(), 1, own_c, own_s);
    sid_builder.Add(1, own_c, own_s);
    for (int i = 2; i <= n; ++i) {
      const auto& c = peer_c[static_cast<size_t>(i - 2)].public_key().bytes();
      const auto& s = peer_s[static_cast<size_t>(i - 2)].public_key().bytes();
      SetKeys(keys.mutable_share_keys()->add_clients(), static_cast<uint32_t>(i), c, s);
      sid_builder.Add(static_cast<uint32_t>(i), c, s);
    }
    const SessionId sid = sid_builder.Finish().value();
    keys.mutable_share_keys()->set_session_id(sid.data(), sid.size());
    keys.mutable_share_keys()->set_num_advertised(static_cast<uint32_t>(n));

    Clock::time_point start = Clock::now();
    benchmark::DoNotOptimize(client->Handle(keys));
    share_keys += Seconds(start);

    // The peers' ciphertexts to client 1 (setup, untimed).
    ServerToClient shares;
    const crypto::X25519PublicKey own_c_key = crypto::X25519PublicKey::FromBytes(own_c).value();
    const crypto::SecretBytes share(crypto::kShamirShareSize);
    for (int i = 2; i <= n; ++i) {
      const uint32_t id = static_cast<uint32_t>(i);
      const crypto::Aes256Gcm channel =
          ShareChannel(peer_c[static_cast<size_t>(i - 2)], id, own_c_key, 1, sid).value();
      const std::vector<uint8_t> ct = channel
                                          .Encrypt(EncodeSharePayload(id, 1, share, share).span(),
                                                   ShareAssociatedData(sid, id, 1))
                                          .value();
      auto* entry = shares.mutable_masked_input()->add_shares();
      entry->set_peer_id(id);
      entry->set_ciphertext(ct.data(), ct.size());
    }
    start = Clock::now();
    benchmark::DoNotOptimize(client->Handle(shares));
    masked_input += Seconds(start);

    ServerToClient unmask;  // 10% of the peers dropped
    for (int i = 2; i <= n; i += 10)
      unmask.mutable_unmasking()->add_dropped_ids(static_cast<uint32_t>(i));
    start = Clock::now();
    benchmark::DoNotOptimize(client->Handle(unmask));
    unmasking += Seconds(start);
    if (client->stage() != ClientStage::kCompleted) {
      state.SkipWithError(client->abort_reason().c_str());
      return;
    }
    x25519 += MeasureYardsticks().x25519;
  }
  const double iterations = static_cast<double>(state.iterations());
  const double total = (share_keys + masked_input + unmasking) / iterations;
  state.counters["share_keys_ms"] = 1e3 * share_keys / iterations;
  state.counters["masked_input_ms"] = 1e3 * masked_input / iterations;
  state.counters["unmasking_ms"] = 1e3 * unmasking / iterations;
  state.counters["total_ms"] = 1e3 * total;
  // Model of the round from unit costs measured now: per neighbor 2 agreements, 2 HKDFs, one
  // AEAD encryption and decryption and one mask; 2 Shamir splits of n shares.
  const UnitCosts u = MeasureUnitCosts(config.threshold, n);
  const double m = n - 1;
  state.counters["x25519_ms"] = 1e3 * 2 * m * (x25519 / iterations);
  state.counters["hkdf_ms"] = 1e3 * 2 * m * u.hkdf;
  state.counters["aead_ms"] = 1e3 * m * u.aead;
  state.counters["mask_ms"] = 1e3 * m * u.mask;
  state.counters["shamir_ms"] = 1e3 * 2 * u.split;
  state.counters["x25519_fraction"] = 2.0 * m * (x25519 / iterations) / total;
}
BENCHMARK(BM_ClientRound)->Arg(1000)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

// True iff `server` accepted the message (a rejection is answered by an Abort).
bool Accepted(ServerSession& server, uint32_t id, const ClientToServer& message) {
  absl::StatusOr<std::vector<ServerMessage>> answer = server.HandleMessage(id, message);
  return answer.ok() && answer->empty();
}

// Drives a ServerSession of n synthetic clients to the end of the Unmasking stage (removing the
// dropped clients' masks on `threads` threads) and returns the time of the final CloseStage, or a
// negative number on error.
double ServerUnmaskingSeconds(int n, int t, int dropped, int threads) {
  const SessionConfig config = CompleteConfig(n, t);
  std::vector<uint32_t> ids;
  for (int i = 1; i <= n; ++i) ids.push_back(static_cast<uint32_t>(i));
  std::unique_ptr<ServerSession> server = ServerSession::Create(config, ids, nullptr).value();
  server->set_unmasking_threads(threads);
  const std::array<uint8_t, 32> digest = ConfigDigest(config).value();
  std::vector<crypto::X25519PrivateKey> s_keys;
  std::vector<crypto::SecretBytes> self_mask_secrets;
  for (uint32_t id : ids) {
    const crypto::X25519PrivateKey c = crypto::X25519PrivateKey::Generate().value();
    s_keys.push_back(crypto::X25519PrivateKey::Generate().value());
    self_mask_secrets.push_back(crypto::RandomSecretBytes(32).value());
    const Commitment commitment =
        SelfMaskCommitment(digest, id, self_mask_secrets.back().span()).value();
    ClientToServer m;
    const auto& cb = c.public_key().bytes();
    const auto& sb = s_keys.back().public_key().bytes();
    m.mutable_advertise_keys()->set_c_public_key(cb.data(), cb.size());
    m.mutable_advertise_keys()->set_s_public_key(sb.data(), sb.size());
    m.mutable_advertise_keys()->set_self_mask_commitment(commitment.data(), commitment.size());
    if (!Accepted(*server, id, m)) return -1;
  }
  if (!server->CloseStage().ok()) return -1;
  const std::string ciphertext(kShareCiphertextSize, 'c');
  for (uint32_t id : ids) {
    ClientToServer m;
    for (uint32_t peer : ids) {
      if (peer == id) continue;
      auto* e = m.mutable_share_keys()->add_shares();
      e->set_peer_id(peer);
      e->set_ciphertext(ciphertext);
    }
    if (!Accepted(*server, id, m)) return -1;
  }
  if (!server->CloseStage().ok()) return -1;
  // Clients 1..dropped are lost after ShareKeys; the others send (random) masked inputs.
  std::mt19937_64 rng(1);
  std::string packed(kLength * kBits / 8, '\0');
  for (char& ch : packed) ch = static_cast<char>(rng());
  for (uint32_t id : ids) {
    if (id <= static_cast<uint32_t>(dropped)) {
      (void)server->MarkDropped(id);
      continue;
    }
    ClientToServer m;
    m.mutable_masked_input()->set_packed(packed);
    if (!Accepted(*server, id, m)) return -1;
  }
  if (!server->CloseStage().ok()) return -1;
  // The first t survivors answer; owner u's shares come from one real split of its secret.
  std::map<uint32_t, ClientToServer> responses;
  const crypto::ShamirParams params{t, n};
  for (uint32_t owner : ids) {
    const bool lost = owner <= static_cast<uint32_t>(dropped);
    const crypto::SecretBytes secret =
        lost ? s_keys[owner - 1].private_bytes().Clone() : self_mask_secrets[owner - 1].Clone();
    const std::vector<crypto::ShamirShare> shares =
        crypto::ShamirSplit(secret.span(), params).value();
    for (int h = dropped + 1; h <= dropped + t; ++h) {
      auto* response = responses[static_cast<uint32_t>(h)].mutable_unmasking();
      auto* entry = lost ? response->add_key_shares() : response->add_self_mask_shares();
      entry->set_owner_id(owner);
      entry->set_share(shares[static_cast<size_t>(h - 1)].value.data(), crypto::kShamirShareSize);
    }
  }
  for (auto& [id, m] : responses) {
    if (!Accepted(*server, id, m)) return -1;
  }
  const Clock::time_point start = Clock::now();
  if (!server->CloseStage().ok() || server->stage() != ServerStage::kCompleted) return -1;
  return Seconds(start);
}

void BM_ServerUnmasking(benchmark::State& state) {
  const int n = 1000, t = 700;
  const int dropped = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  double total = 0;
  for (auto _ : state) {
    const double s = ServerUnmaskingSeconds(n, t, dropped, threads);
    if (s < 0) {
      state.SkipWithError("server session failed");
      return;
    }
    state.SetIterationTime(s);
    total += s;
  }
  const Yardsticks y = MeasureYardsticks();
  const double survivors = n - dropped;
  const double per_run = total / static_cast<double>(state.iterations());
  // The work the protocol requires: a self mask per survivor, an agreement and a mask per
  // (dropped, survivor) pair.
  const double required = survivors * y.mask + dropped * survivors * (y.x25519 + y.mask);
  state.counters["dropped"] = dropped;
  state.counters["threads"] = threads;
  state.counters["pairs"] = dropped * survivors;
  state.counters["seconds"] = per_run;
  state.counters["vs_required"] = per_run / required;
}
// {dropped, unmasking threads}: one thread as in one-core deployments, two as on this machine.
BENCHMARK(BM_ServerUnmasking)
    ->ArgsProduct({{0, 10, 50, 100, 200}, {1, 2}})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void RunWhole(benchmark::State& state, const test_util::DriverOptions& o) {
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    const test_util::DriverResult r = test_util::RunSession(o);
    state.SetIterationTime(Seconds(start));
    if (!r.status.ok() || r.sum != r.expected) {
      state.SkipWithError("protocol run failed or sum wrong");
      return;
    }
    state.counters["unmasking_close_s"] = r.close_seconds.back();
    state.counters["included"] = static_cast<double>(r.included.size());
  }
  state.counters["peak_rss_mib"] = PeakRssMiB();
}

// 10% of the clients lost, spread over the four stages.
std::map<uint32_t, test_util::DropPoint> TenPercentDrops(int n) {
  std::map<uint32_t, test_util::DropPoint> out;
  const test_util::DropPoint points[] = {
      test_util::DropPoint::kAdvertise, test_util::DropPoint::kShareKeys,
      test_util::DropPoint::kMaskedInput, test_util::DropPoint::kUnmasking};
  for (int i = 0; i < n / 10; ++i) out[static_cast<uint32_t>(10 * i + 1)] = points[i % 4];
  return out;
}

void BM_WholeProtocolComplete(benchmark::State& state) {
  test_util::DriverOptions o;
  o.config = CompleteConfig(1000, 700);
  o.drops = TenPercentDrops(1000);
  o.threads = 2;
  o.batch = 64;
  RunWhole(state, o);
}
BENCHMARK(BM_WholeProtocolComplete)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

void BM_WholeProtocolHarary(benchmark::State& state) {
  ParameterRequirements req;
  req.num_clients = 10000;
  req.corrupt_fraction = 0.05;
  req.dropout_fraction = 0.10;
  const GraphParameters p = FindGraphParameters(req).value();
  test_util::DriverOptions o;
  o.config = CompleteConfig(10000, p.threshold);
  o.config.graph = GraphKind::kHarary;
  o.config.degree = p.degree;
  o.drops = TenPercentDrops(10000);
  o.threads = 2;
  o.batch = 64;
  state.counters["k"] = p.degree;
  state.counters["t"] = p.threshold;
  RunWhole(state, o);
}
BENCHMARK(BM_WholeProtocolHarary)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

}  // namespace
}  // namespace fedmf::secagg
