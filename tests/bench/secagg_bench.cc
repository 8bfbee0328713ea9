// SecAgg costs, each against yardsticks measured in the same run: X25519 agreements, Ed25519
// verifications and mask expansion (AES-CTR PRG into 32-bit words, d = 2^14, b = 32).
//  * BM_ClientRound/n:<n>/signed:<0|1>: one client of a complete graph of n, d = 2^14, b = 32,
//    with the time of each stage (the peers' messages are built outside the timed region).
//  * BM_ServerUnmasking/n:<n>/dropped:<k>/threads:<j>: the server's Unmasking close for n,
//    t = 0.7 n, d = 2^14 with k clients lost after ShareKeys, on j threads (real server code;
//    synthetic clients that send structurally valid messages and real Shamir shares of their
//    secrets).
//  * BM_WholeProtocol*/n:<n>: the in-process protocol on 2 client threads, wall time and peak RSS.
// Each has a small size that CI runs as a smoke test (tests/bench/CMakeLists.txt).
// Run: build/tests/bench/secagg_bench --benchmark_filter=<name>
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "crypto/aead.h"
#include "crypto/csprng.h"
#include "crypto/ed25519.h"
#include "crypto/hkdf.h"
#include "crypto/secagg/client_session.h"
#include "crypto/secagg/derivation.h"
#include "crypto/secagg/mask_accumulator.h"
#include "crypto/secagg/parameter_finder.h"
#include "crypto/secagg/server_session.h"
#include "crypto/secagg/signing_directory.h"
#include "crypto/secagg/vector_codec.h"
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

// CPU seconds used so far by the calling thread (kThread) or by the whole process (kProcess).
// The client round and the yardsticks each run on one thread and are compared in CPU time: on a
// shared machine wall time also counts the other jobs' turns on the cores.
enum class CpuOf { kThread, kProcess };
double CpuSeconds(CpuOf of = CpuOf::kThread) {
  timespec ts{};
  clock_gettime(of == CpuOf::kThread ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
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
  double start = CpuSeconds();
  for (int i = 0; i < kAgreements; ++i) benchmark::DoNotOptimize(a.ComputeSharedSecret(b));
  y.x25519 = (CpuSeconds() - start) / kAgreements;
  MaskAccumulator acc = MaskAccumulator::Create(kBits, kLength).value();
  const std::vector<uint8_t> seed(32, 9);
  constexpr int kMasks = 100;
  start = CpuSeconds();
  for (int i = 0; i < kMasks; ++i) (void)acc.AddMask(seed, crypto::MaskOp::kAdd);
  y.mask = (CpuSeconds() - start) / kMasks;
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

// Seconds per HKDF derivation (as in PairwiseMaskSeed), per AEAD encryption plus decryption of
// a share payload, per mask expansion and per Shamir split of a 32-byte secret into n shares.
struct UnitCosts {
  double hkdf = 0, aead = 0, mask = 0, split = 0;
};

UnitCosts MeasureUnitCosts(int t, int n) {
  UnitCosts u;
  const std::vector<uint8_t> key(32, 1), info(88, 2);
  constexpr int kReps = 300;
  double start = CpuSeconds();
  for (int i = 0; i < kReps; ++i) benchmark::DoNotOptimize(crypto::HkdfSha256(key, key, info, 32));
  u.hkdf = (CpuSeconds() - start) / kReps;
  const crypto::Aes256Gcm aead = crypto::Aes256Gcm::Create(key).value();
  const std::vector<uint8_t> payload(kSharePayloadSize, 3), ad(40, 4);
  start = CpuSeconds();
  for (int i = 0; i < kReps; ++i) {
    const std::vector<uint8_t> ct = aead.Encrypt(payload, ad).value();
    benchmark::DoNotOptimize(aead.Decrypt(ct, ad));
  }
  u.aead = (CpuSeconds() - start) / kReps;
  u.mask = MeasureYardsticks().mask;
  start = CpuSeconds();
  for (int i = 0; i < 3; ++i) benchmark::DoNotOptimize(crypto::ShamirSplit(key, {t, n}));
  u.split = (CpuSeconds() - start) / 3;
  return u;
}

// Seconds per Ed25519 verification of an advertisement-sized message, measured now.
double MeasureEd25519Verify() {
  const crypto::Ed25519PrivateKey key = crypto::Ed25519PrivateKey::Generate().value();
  const std::vector<uint8_t> message(
      AdvertisementMessage({}, 1, PublicKeyBytes{}, PublicKeyBytes{}, Commitment{}));
  const crypto::Ed25519Signature signature = key.Sign(message).value();
  constexpr int kReps = 300;
  const double start = CpuSeconds();
  for (int i = 0; i < kReps; ++i)
    benchmark::DoNotOptimize(key.public_key().Verify(message, signature));
  return (CpuSeconds() - start) / kReps;
}

// The other n - 1 clients of BM_ClientRound: their key pairs, self-mask commitments and (signed
// sessions) signing keys and advertisement signatures.
struct Peer {
  uint32_t id;
  crypto::X25519PrivateKey c, s;
  Commitment commitment;
  std::optional<crypto::Ed25519PrivateKey> signing;
  std::string signature;
};

std::vector<Peer> MakePeers(int n, const std::array<uint8_t, 32>& digest, bool sign) {
  std::vector<Peer> peers;
  for (int i = 2; i <= n; ++i) {
    const uint32_t id = static_cast<uint32_t>(i);
    const crypto::SecretBytes b = crypto::RandomSecretBytes(32).value();
    Peer p{id,
           crypto::X25519PrivateKey::Generate().value(),
           crypto::X25519PrivateKey::Generate().value(),
           SelfMaskCommitment(digest, id, b.span()).value(),
           std::nullopt,
           ""};
    if (sign) {
      p.signing = crypto::Ed25519PrivateKey::Generate().value();
      const crypto::Ed25519Signature sig =
          p.signing
              ->Sign(AdvertisementMessage(digest, id, p.c.public_key().bytes(),
                                          p.s.public_key().bytes(), p.commitment))
              .value();
      p.signature.assign(sig.begin(), sig.end());
    }
    peers.push_back(std::move(p));
  }
  return peers;
}

// The ShareKeysRequest for client 1 (its own advertisement first, then the peers').
ServerToClient ShareKeysFor(const fedmf::v1::secagg::AdvertiseKeys& own,
                            const std::vector<Peer>& peers, const std::array<uint8_t, 32>& digest,
                            SessionId* sid) {
  ServerToClient keys;
  fedmf::v1::secagg::ShareKeysRequest* request = keys.mutable_share_keys();
  const uint32_t n = static_cast<uint32_t>(peers.size() + 1);
  SessionIdBuilder sid_builder(digest, n);
  fedmf::v1::secagg::ClientKeys* self = request->add_clients();
  self->set_client_id(1);
  *self->mutable_keys() = own;
  PublicKeyBytes own_c{}, own_s{};
  std::copy(own.c_public_key().begin(), own.c_public_key().end(), own_c.begin());
  std::copy(own.s_public_key().begin(), own.s_public_key().end(), own_s.begin());
  sid_builder.Add(1, own_c, own_s);
  for (const Peer& p : peers) {
    fedmf::v1::secagg::ClientKeys* entry = request->add_clients();
    const PublicKeyBytes& c = p.c.public_key().bytes();
    const PublicKeyBytes& s = p.s.public_key().bytes();
    entry->set_client_id(p.id);
    entry->mutable_keys()->set_c_public_key(c.data(), c.size());
    entry->mutable_keys()->set_s_public_key(s.data(), s.size());
    entry->mutable_keys()->set_self_mask_commitment(p.commitment.data(), p.commitment.size());
    entry->mutable_keys()->set_signature(p.signature);
    sid_builder.Add(p.id, c, s);
  }
  *sid = sid_builder.Finish().value();
  request->set_session_id(sid->data(), sid->size());
  request->set_num_advertised(n);
  return keys;
}

// The peers' share ciphertexts to client 1 (whose c public key is `own_c`).
ServerToClient SharesFor(const crypto::X25519PublicKey& own_c, const std::vector<Peer>& peers,
                         const SessionId& sid) {
  ServerToClient shares;
  const SharePayload payload{.key_share = crypto::SecretBytes(crypto::kShamirShareSize),
                             .self_mask_share = crypto::SecretBytes(crypto::kShamirShareSize),
                             .key_share_salt = crypto::SecretBytes(kShareSaltSize),
                             .self_mask_share_salt = crypto::SecretBytes(kShareSaltSize)};
  for (const Peer& p : peers) {
    const crypto::Aes256Gcm channel = ShareChannel(p.c, p.id, own_c, 1, sid).value();
    const std::vector<uint8_t> ct = channel
                                        .Encrypt(EncodeSharePayload(p.id, 1, payload).span(),
                                                 ShareAssociatedData(sid, p.id, 1))
                                        .value();
    auto* entry = shares.mutable_masked_input()->add_shares();
    entry->set_peer_id(p.id);
    entry->set_ciphertext(ct.data(), ct.size());
    // The commitments the dealer would send, so that client 1 keeps (and checks) the shares.
    const Commitment key = ShareCommitment(sid, p.id, 1, SharedSecret::kMaskingKey,
                                           payload.key_share.span(), payload.key_share_salt.span())
                               .value();
    const Commitment b =
        ShareCommitment(sid, p.id, 1, SharedSecret::kSelfMask, payload.self_mask_share.span(),
                        payload.self_mask_share_salt.span())
            .value();
    entry->set_key_share_commitment(key.data(), key.size());
    entry->set_self_mask_share_commitment(b.data(), b.size());
  }
  return shares;
}

// Client 1 of a complete graph of n, with signatures (Ed25519 advertisements) or without; the
// other n - 1 clients exist only as keys, and their messages are built outside the timed region.
// The *_ms counters are the thread's CPU time per round (the reported wall time includes the
// setup). floor_ms: the cost no implementation of the protocol avoids, from yardsticks of this
// run: the 2 (n - 1) X25519 agreements, plus the n - 1 advertisement verifications when signed.
void BM_ClientRound(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const bool sign = state.range(1) != 0;
  SessionConfig config = CompleteConfig(n, 2 * n / 3 + 1);
  config.signatures = sign;
  const std::array<uint8_t, 32> digest = ConfigDigest(config).value();
  const std::vector<Peer> peers = MakePeers(n, digest, sign);
  std::vector<uint64_t> input(kLength, 7);
  double share_keys = 0, masked_input = 0, unmasking = 0, x25519 = 0;
  for (auto _ : state) {
    // The yardstick before and after the round, averaged: the machine's load drifts.
    x25519 += MeasureYardsticks().x25519 / 2;
    ClientIdentity identity{1, std::nullopt};
    auto directory = std::make_shared<MapSigningKeyDirectory>();
    if (sign) {
      identity.signing_key = crypto::Ed25519PrivateKey::Generate().value();
      directory->Add(1, identity.signing_key->public_key());
      for (const Peer& p : peers) directory->Add(p.id, p.signing->public_key());
    }
    std::unique_ptr<ClientSession> client =
        ClientSession::Create(config, std::move(identity), directory).value();
    (void)client->SetInput(input);
    const ClientToServer advertise = client->Start().value();
    SessionId sid{};
    const ServerToClient keys = ShareKeysFor(advertise.advertise_keys(), peers, digest, &sid);

    double start = CpuSeconds();
    benchmark::DoNotOptimize(client->Handle(keys));
    share_keys += CpuSeconds() - start;

    const ServerToClient shares = SharesFor(
        crypto::X25519PublicKey::FromBytes(AsBytes(advertise.advertise_keys().c_public_key()))
            .value(),
        peers, sid);
    start = CpuSeconds();
    benchmark::DoNotOptimize(client->Handle(shares));
    masked_input += CpuSeconds() - start;

    ServerToClient unmask;  // 10% of the peers dropped
    for (int i = 2; i <= n; i += 10)
      unmask.mutable_unmasking()->add_dropped_ids(static_cast<uint32_t>(i));
    start = CpuSeconds();
    benchmark::DoNotOptimize(client->Handle(unmask));
    unmasking += CpuSeconds() - start;
    if (client->stage() != ClientStage::kCompleted) {
      state.SkipWithError(client->abort_reason().c_str());
      return;
    }
    x25519 += MeasureYardsticks().x25519 / 2;
  }
  const double iterations = static_cast<double>(state.iterations());
  const double total = (share_keys + masked_input + unmasking) / iterations;
  state.counters["share_keys_ms"] = 1e3 * share_keys / iterations;
  state.counters["masked_input_ms"] = 1e3 * masked_input / iterations;
  state.counters["unmasking_ms"] = 1e3 * unmasking / iterations;
  state.counters["total_ms"] = 1e3 * total;
  // Model of the round from unit costs measured now: per neighbor 2 agreements, 2 HKDFs, one
  // AEAD encryption and decryption, one mask and (signed) one verification; 2 Shamir splits of n
  // shares.
  const UnitCosts u = MeasureUnitCosts(config.threshold, n);
  const double m = n - 1;
  const double agreements = 2 * m * (x25519 / iterations);
  const double verifications = sign ? m * MeasureEd25519Verify() : 0;
  state.counters["x25519_ms"] = 1e3 * agreements;
  state.counters["ed25519_ms"] = 1e3 * verifications;
  state.counters["hkdf_ms"] = 1e3 * 2 * m * u.hkdf;
  state.counters["aead_ms"] = 1e3 * m * u.aead;
  state.counters["mask_ms"] = 1e3 * m * u.mask;
  state.counters["shamir_ms"] = 1e3 * 2 * u.split;
  state.counters["floor_ms"] = 1e3 * (agreements + verifications);
  state.counters["vs_floor"] = total / (agreements + verifications);
}
// {n, signed}: the mean of 3 rounds at n = 1000; n = 16 is the CI smoke size.
BENCHMARK(BM_ClientRound)
    ->ArgNames({"n", "signed"})
    ->ArgsProduct({{1000}, {0, 1}})
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ClientRound)
    ->ArgNames({"n", "signed"})
    ->ArgsProduct({{16}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// True iff `server` accepted the message (a rejection is answered by an Abort).
bool Accepted(ServerSession& server, uint32_t id, const ClientToServer& message) {
  absl::StatusOr<std::vector<ServerMessage>> answer = server.HandleMessage(id, message);
  return answer.ok() && answer->empty();
}

// Wall time and CPU time (all threads of the process) of one CloseStage.
struct CloseCost {
  double wall = -1, cpu = -1;
};

// Drives a ServerSession of n synthetic clients to the end of the Unmasking stage (removing the
// dropped clients' masks on `threads` threads) and returns the cost of the final CloseStage, or
// negative times on error.
CloseCost ServerUnmaskingCost(int n, int t, int dropped, int threads) {
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
    if (!Accepted(*server, id, m)) return {};
  }
  if (!server->CloseStage().ok()) return {};
  // Clients 1..dropped are lost after ShareKeys, and the first t survivors reveal: owner u's shares
  // come from one real split of the secret they rebuild (its s key if lost, else its b), and u
  // commits to the shares those holders reveal (with an all-zero salt; any other commitment is
  // never checked).
  const crypto::ShamirParams params{t, n};
  const crypto::SecretBytes salt(kShareSaltSize);
  std::vector<std::vector<crypto::ShamirShare>> splits;
  for (uint32_t owner : ids) {
    const bool lost = owner <= static_cast<uint32_t>(dropped);
    const crypto::SecretBytes secret =
        lost ? s_keys[owner - 1].private_bytes().Clone() : self_mask_secrets[owner - 1].Clone();
    splits.push_back(crypto::ShamirSplit(secret.span(), params).value());
  }
  auto revealer = [&](uint32_t holder) {
    return holder > static_cast<uint32_t>(dropped) &&
           holder <= static_cast<uint32_t>(dropped + t);
  };
  const std::string ciphertext(kShareCiphertextSize, 'c'), filler(kCommitmentSize, 'f');
  for (uint32_t id : ids) {
    const bool lost = id <= static_cast<uint32_t>(dropped);
    ClientToServer m;
    for (uint32_t peer : ids) {
      if (peer == id) continue;
      auto* e = m.mutable_share_keys()->add_shares();
      e->set_peer_id(peer);
      e->set_ciphertext(ciphertext);
      e->set_key_share_commitment(filler);
      e->set_self_mask_share_commitment(filler);
      if (!revealer(peer)) continue;
      const Commitment c =
          ShareCommitment(server->session_id(), id, peer,
                          lost ? SharedSecret::kMaskingKey : SharedSecret::kSelfMask,
                          splits[id - 1][peer - 1].value.span(), salt.span())
              .value();
      (lost ? e->mutable_key_share_commitment() : e->mutable_self_mask_share_commitment())
          ->assign(reinterpret_cast<const char*>(c.data()), c.size());
    }
    if (!Accepted(*server, id, m)) return {};
  }
  if (!server->CloseStage().ok()) return {};
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
    if (!Accepted(*server, id, m)) return {};
  }
  if (!server->CloseStage().ok()) return {};
  // The first t survivors answer.
  std::map<uint32_t, ClientToServer> responses;
  for (uint32_t owner : ids) {
    const bool lost = owner <= static_cast<uint32_t>(dropped);
    for (int h = dropped + 1; h <= dropped + t; ++h) {
      auto* response = responses[static_cast<uint32_t>(h)].mutable_unmasking();
      auto* entry = lost ? response->add_key_shares() : response->add_self_mask_shares();
      entry->set_owner_id(owner);
      entry->set_share(splits[owner - 1][static_cast<size_t>(h - 1)].value.data(),
                       crypto::kShamirShareSize);
      if (owner != static_cast<uint32_t>(h)) {
        entry->set_salt(reinterpret_cast<const char*>(salt.data()), salt.size());
      }
    }
  }
  for (auto& [id, m] : responses) {
    if (!Accepted(*server, id, m)) return {};
  }
  const Clock::time_point start = Clock::now();
  const double cpu_start = CpuSeconds(CpuOf::kProcess);
  if (!server->CloseStage().ok() || server->stage() != ServerStage::kCompleted) return {};
  return {Seconds(start), CpuSeconds(CpuOf::kProcess) - cpu_start};
}

// Counters: seconds (wall) and cpu_seconds (all threads) of the close; vs_required = wall time
// over the single-core work the protocol requires (yardsticks of this run), cpu_vs_required the
// same for the CPU time (the overhead whatever the thread count and the machine's other load).
void BM_ServerUnmasking(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const int t = 7 * n / 10;
  const int dropped = static_cast<int>(state.range(1));
  const int threads = static_cast<int>(state.range(2));
  // The yardsticks before and after the runs, averaged: the machine's load drifts.
  const Yardsticks before = MeasureYardsticks();
  double wall = 0, cpu = 0;
  for (auto _ : state) {
    const CloseCost cost = ServerUnmaskingCost(n, t, dropped, threads);
    if (cost.wall < 0) {
      state.SkipWithError("server session failed");
      return;
    }
    state.SetIterationTime(cost.wall);
    wall += cost.wall;
    cpu += cost.cpu;
  }
  const Yardsticks after = MeasureYardsticks();
  const Yardsticks y{(before.x25519 + after.x25519) / 2, (before.mask + after.mask) / 2};
  const double survivors = n - dropped;
  const double iterations = static_cast<double>(state.iterations());
  // The work the protocol requires: a self mask per survivor, an agreement and a mask per
  // (dropped, survivor) pair.
  const double required = survivors * y.mask + dropped * survivors * (y.x25519 + y.mask);
  state.counters["dropped"] = dropped;
  state.counters["threads"] = threads;
  state.counters["pairs"] = dropped * survivors;
  state.counters["seconds"] = wall / iterations;
  state.counters["cpu_seconds"] = cpu / iterations;
  state.counters["vs_required"] = wall / iterations / required;
  state.counters["cpu_vs_required"] = cpu / iterations / required;
}
// {n, dropped, unmasking threads}: one thread as in one-core deployments, two as on this
// machine; n = 20 is the CI smoke size.
BENCHMARK(BM_ServerUnmasking)
    ->ArgNames({"n", "dropped", "threads"})
    ->ArgsProduct({{1000}, {0, 10, 50, 100, 200}, {1, 2}})
    ->Args({20, 2, 2})
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
  const int n = static_cast<int>(state.range(0));
  test_util::DriverOptions o;
  o.config = CompleteConfig(n, 7 * n / 10);
  o.drops = TenPercentDrops(n);
  o.threads = 2;
  o.batch = 64;
  RunWhole(state, o);
}
// n = 20 is the CI smoke size.
BENCHMARK(BM_WholeProtocolComplete)
    ->ArgName("n")
    ->Arg(1000)
    ->Arg(20)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

void BM_WholeProtocolHarary(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ParameterRequirements req;
  req.num_clients = n;
  req.corrupt_fraction = 0.05;
  req.dropout_fraction = 0.10;
  const absl::StatusOr<GraphParameters> found = FindGraphParameters(req);
  if (!found.ok()) {
    state.SkipWithError(std::string(found.status().message()).c_str());
    return;
  }
  const GraphParameters& p = *found;
  test_util::DriverOptions o;
  o.config = CompleteConfig(n, p.threshold);
  o.config.graph = GraphKind::kHarary;
  o.config.degree = p.degree;
  o.drops = TenPercentDrops(n);
  o.threads = 2;
  o.batch = 64;
  state.counters["k"] = p.degree;
  state.counters["t"] = p.threshold;
  RunWhole(state, o);
}
// n = 100 is the CI smoke size.
BENCHMARK(BM_WholeProtocolHarary)
    ->ArgName("n")
    ->Arg(10000)
    ->Arg(100)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace fedmf::secagg
