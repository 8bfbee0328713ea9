// fedmf-attacker: a malicious client process for the protocol-abuse tests (abuse_test.sh). It
// hosts users like fedmf-client (an honest ParticipantHost computes every reply) but speaks the
// Federation service over a byte-level stream, so it can send what no honest client sends. It is
// silent (never answers) in every round but --attack_round (or in none, with --attack_every_round:
// garbage_shares, false_shares and unusable_shares only); with --decline_idle_rounds it declines
// those rounds' tasks instead (a SecAgg Abort for each of its users: a dropout the coordinator
// sees at once, not at the stage deadline). In --attack_round, --attack decides:
//   silent        never answers, or declines (the baseline the others are compared with)
//   garbage       bytes that are not a ClientMessage, in place of its advertisement
//   wrong_stage   a MaskedInput in answer to the AdvertiseKeys request
//   replay        an advertisement of an earlier round, relabelled with this round (and user)
//   impersonate   its advertisement under another client's participant id (--victim)
//   low_order_key its advertisement with a low-order c public key (u = 1), which would make every
//                 neighbor's key agreement with it fail
//   wrong_length  honest until MaskedInput, then a masked vector one byte short
//   wrong_width   honest until MaskedInput, then a vector packed with one bit too many
//   flood         its advertisement --flood_copies times
//   oversized     its advertisement padded (an unknown field) past the coordinator's receive limit
//                 (wire/limits.h), a message the transport must refuse
//   ldp_two_coordinates  (ldp-gd, clear uploads) each user's one-coordinate local-DP report
//                 turned into two coordinates of +B, which would bias the mean
//   ldp_wrong_magnitude  (ldp-gd) each report's value turned into 1000 B
//   squat_registrations  --registrations Register calls and no stream: session tokens that
//                 never bind, filling the coordinator's waiting room (logs how many it got)
//   garbage_shares  honest but for its ShareKeysResponses: each Shamir share ciphertext replaced
//                 by random bytes of the same length, which no neighbor can decrypt
//   false_shares  honest but for its UnmaskingResponses: each revealed share (self-mask and key)
//                 replaced by another valid one (every field element + 1 mod 2^61 - 1), with the
//                 salt it got, so the share no longer matches its dealer's commitment
//   unusable_shares  honest but for its MaskedInputs: each reports the shares of every neighbor
//                 that sent it some as unusable (a tolerated complaint about honest users)
//   empty_submessages  in place of its advertisement, a ShareKeysResponse of
//                 --amplified_upload_mib of empty shares (2 bytes each, ~30 times that parsed),
//                 sent in chunks of --attack_chunk_bytes
//   packed_varints  likewise a ClearUpload of --amplified_upload_mib one-byte packed values (a
//                 uint64 of 8 bytes each parsed)
// With --stream_tls_cert it opens its stream from another certificate than it registered with.
// It logs event=task with its users in each round task's cohort (and the SecAgg context, which
// names the attempt), event=attack when it strikes and event=attacker_stop with the stream's final
// status.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/client_callback.h>
#include <grpcpp/support/byte_buffer.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/participant_host.h"
#include "client/registration.h"
#include "common/data/dataset_source.h"
#include "common/data/split_spec.h"
#include "common/util/cli.h"
#include "common/util/event_log.h"
#include "crypto/mersenne61.h"
#include "crypto/shamir.h"
#include "crypto/x25519.h"
#include "fedmf/v1/federation.grpc.pb.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "rpc/channel.h"
#include "wire/envelope.h"
#include "wire/limits.h"

ABSL_FLAG(std::string, coordinator, "127.0.0.1:50051", "host:port of the fedmf-coordinator");
ABSL_FLAG(std::string, data, "synthetic", "dataset spec (as fedmf-client)");
ABSL_FLAG(std::string, split, "holdout:0.2", "split spec (as fedmf-client)");
ABSL_FLAG(std::string, users, "", "comma-separated dense user indices to host");
ABSL_FLAG(std::string, enrollment_token, "fedmf-demo", "shared enrollment token");
ABSL_FLAG(std::string, attack, "silent",
          "silent, garbage, wrong_stage, replay, impersonate, low_order_key, wrong_length, "
          "wrong_width, flood, "
          "oversized, ldp_two_coordinates, ldp_wrong_magnitude, garbage_shares, false_shares, "
          "unusable_shares, stalled_upload, upload_budget, unauthenticated_streams, "
          "empty_submessages, packed_varints");
ABSL_FLAG(int64_t, attack_round, 1, "the round in which to attack (silent in the others)");
ABSL_FLAG(bool, decline_idle_rounds, false,
          "in the rounds it does not attack (all of them for silent and unauthenticated_streams), "
          "decline each task of its users with a SecAgg Abort, as an honest client sitting a round "
          "out does, instead of never answering: its users drop out at once, not at the "
          "coordinator's stage deadline");
ABSL_FLAG(bool, attack_every_round, false,
          "garbage_shares, false_shares, unusable_shares: attack in every round (--attack_round "
          "is ignored)");
ABSL_FLAG(uint32_t, victim, 1, "impersonate: the participant id claimed");
ABSL_FLAG(int, flood_copies, 5000, "flood: copies of the advertisement sent");
ABSL_FLAG(int, registrations, 100, "squat_registrations: Register calls made");
ABSL_FLAG(int, streams, 100,
          "unauthenticated_streams: streams opened without a session token (and as many with a "
          "wrong one), held open from before registering until the attack round");
ABSL_FLAG(std::string, tls_ca, "", "as fedmf-client: CA of the coordinator's certificate");
ABSL_FLAG(std::string, tls_cert, "", "as fedmf-client: this client's certificate (mutual TLS)");
ABSL_FLAG(std::string, tls_key, "", "as fedmf-client: the private key of --tls_cert");
ABSL_FLAG(std::string, stream_tls_cert, "",
          "open the stream over a second channel with this certificate (and --stream_tls_key) "
          "instead of the one it registered with: a session token carried to another certificate");
ABSL_FLAG(std::string, stream_tls_key, "", "the private key of --stream_tls_cert");
ABSL_FLAG(std::string, open_stream_after_file, "",
          "register, then open the stream only once this file exists (e.g. after the test revoked "
          "the identity in between)");
ABSL_FLAG(int64_t, declared_upload_mib, 8,
          "upload_budget: the size the first (and only) chunk declares (stalled_upload declares "
          "twice what it sends, a size the plan allows)");
ABSL_FLAG(int64_t, amplified_upload_mib, 58,
          "empty_submessages, packed_varints: the size of the message sent");
ABSL_FLAG(int64_t, attack_chunk_bytes, 4 << 20,
          "empty_submessages, packed_varints: the size of each chunk envelope (at most the "
          "coordinator's --max_message_mib)");

namespace fedmf::abuse {
namespace {

using Stream = grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>;
using google::protobuf::internal::WireFormatLite;

grpc::ByteBuffer Bytes(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

bool Write(Stream& stream, const v1::ClientMessage& m) {
  return stream.Write(Bytes(m.SerializeAsString()));
}

int64_t RoundOf(const v1::ServerMessage& m) {
  if (m.has_task()) return m.task().round();
  if (m.has_secagg()) return m.secagg().round();
  if (m.has_chunk()) return m.chunk().round();
  if (m.has_result()) return m.result().round();
  return -1;
}

bool IsAdvertisement(const v1::ClientMessage& m) {
  return m.has_secagg() && m.secagg().message().has_advertise_keys();
}

// Field `number` of wire type LEN holding `payload`.
std::string Delimited(int number, const std::string& payload) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.WriteTag(WireFormatLite::MakeTag(number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  coded.WriteVarint32(static_cast<uint32_t>(payload.size()));
  coded.WriteString(payload);
  coded.Trim();
  return out;
}

// A ClientMessage of `reply`'s participant, round and phase whose payload is `bytes` of
// many-element repeated fields, written at the wire level (building it as a message here would
// cost the attacker what it costs the coordinator). Then chunked like an honest large message.
std::vector<std::string> AmplifiedUpload(const std::string& attack,
                                         const v1::ClientMessage& reply) {
  const size_t bytes = static_cast<size_t>(absl::GetFlag(FLAGS_amplified_upload_mib)) << 20;
  const uint32_t id = reply.secagg().participant_id();
  const int64_t round = reply.secagg().round();
  const int32_t phase = reply.secagg().phase();
  std::string whole;
  if (attack == "empty_submessages") {
    std::string shares;  // ShareKeysResponse.shares (field 1): empty EncryptedShares
    shares.reserve(bytes);
    while (shares.size() + 2 <= bytes) shares.append("\x0a\x00", 2);
    v1::ClientMessage header;
    header.mutable_secagg()->set_participant_id(id);
    header.mutable_secagg()->set_round(round);
    header.mutable_secagg()->set_phase(phase);
    const int share_keys =
        v1::secagg::ClientToServer::descriptor()->FindFieldByName("share_keys")->number();
    whole = Delimited(
        v1::ClientMessage::kSecaggFieldNumber,
        header.secagg().SerializeAsString() +
            Delimited(v1::ParticipantToServer::kMessageFieldNumber, Delimited(share_keys, shares)));
  } else {  // packed_varints: ClearUpload.values, one byte each
    v1::ClientMessage header;
    header.mutable_clear_upload()->set_participant_id(id);
    header.mutable_clear_upload()->set_round(round);
    header.mutable_clear_upload()->set_phase(phase);
    whole =
        Delimited(v1::ClientMessage::kClearUploadFieldNumber,
                  header.clear_upload().SerializeAsString() +
                      Delimited(v1::ClearUpload::kValuesFieldNumber, std::string(bytes, '\x01')));
  }
  const size_t data_bytes = static_cast<size_t>(absl::GetFlag(FLAGS_attack_chunk_bytes)) - 64;
  const size_t count = (whole.size() + data_bytes - 1) / data_bytes;
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    v1::ClientMessage chunk;
    v1::Chunk* c = chunk.mutable_chunk();
    c->set_round(round);
    c->set_participant_id(id);
    c->set_phase(phase);
    c->set_index(static_cast<uint32_t>(i));
    c->set_count(static_cast<uint32_t>(count));
    c->set_total_bytes(whole.size());
    c->set_data(whole.substr(i * data_bytes, data_bytes));
    out.push_back(chunk.SerializeAsString());
  }
  return out;
}

bool IsShareAttack(const std::string& attack) {
  return attack == "garbage_shares" || attack == "false_shares" || attack == "unusable_shares";
}

// Another valid share: every field element + 1 (mod 2^61 - 1), so each of the five chunks'
// decodings sees the lie, not only one a decoder might locate errors with.
std::string FalseShare(std::string share) {
  if (share.size() != crypto::kShamirShareSize) return share;  // the server refuses it anyway
  for (size_t e = 0; e < static_cast<size_t>(crypto::kShamirChunks); ++e) {
    uint64_t v = 0;
    for (size_t b = 0; b < 8; ++b) v |= uint64_t{static_cast<uint8_t>(share[8 * e + b])} << (8 * b);
    v = crypto::AddModMersenne61(v, 1);
    for (size_t b = 0; b < 8; ++b) share[8 * e + b] = static_cast<char>(v >> (8 * b));
  }
  return share;
}

class Attacker {
 public:
  Attacker(std::string attack, int64_t round, bool every_round, bool decline_idle)
      : attack_(std::move(attack)),
        round_(round),
        every_round_(every_round),
        decline_idle_(decline_idle) {}

  // What to send for `replies` (the honest host's answers to a message of `round`).
  std::vector<std::string> Respond(int64_t round, std::vector<v1::ClientMessage> replies) {
    std::vector<std::string> out;
    if (round < round_ && attack_ == "replay") {
      for (const auto& r : replies)
        if (IsAdvertisement(r)) recorded_.push_back(r);
    }
    if ((round != round_ && !every_round_) || attack_ == "silent" ||
        attack_ == "unauthenticated_streams" || replies.empty()) {
      return decline_idle_ ? Decline(replies) : out;
    }
    if (IsShareAttack(attack_)) return ForgeShares(round, std::move(replies));
    const bool advertisement = IsAdvertisement(replies.front());
    const bool masked =
        replies.front().has_secagg() && replies.front().secagg().message().has_masked_input();
    if (attack_ == "wrong_length" || attack_ == "wrong_width") {
      if (!masked) {  // honest before MaskedInput (and after: it is dropped by then)
        for (const auto& r : replies) out.push_back(r.SerializeAsString());
        return out;
      }
      for (auto& r : replies) {
        std::string* packed =
            r.mutable_secagg()->mutable_message()->mutable_masked_input()->mutable_packed();
        if (attack_ == "wrong_length") {
          packed->pop_back();
        } else {  // length * (bits + 1) bits: one more bit per value
          const size_t values = static_cast<size_t>(length_);
          packed->resize((values * static_cast<size_t>(bits_ + 1) + 7) / 8, '\x5a');
        }
        out.push_back(r.SerializeAsString());
      }
      Strike(round, absl::StrCat(replies.size(), " masked inputs"));
      return out;
    }
    if (attack_ == "ldp_two_coordinates" || attack_ == "ldp_wrong_magnitude") {
      for (v1::ClientMessage& r : replies) {
        v1::ClearUpload* upload = r.mutable_clear_upload();
        if (attack_ == "ldp_wrong_magnitude") {
          upload->set_values(0, 1000);
        } else {
          upload->clear_indices();
          upload->clear_values();
          for (uint64_t index : {0, 1}) {
            upload->add_indices(index);
            upload->add_values(1);
          }
        }
        out.push_back(r.SerializeAsString());
      }
      Strike(round, absl::StrCat(out.size(), " forged reports"));
      return out;
    }
    if (!advertisement || struck_) return out;
    if (attack_ == "garbage") {
      // A field tag with wire type 7 (invalid): no protobuf parser accepts it.
      out.push_back(std::string("\x0f\xff\xff\xff\xff\x07garbage", 12));
    } else if (attack_ == "wrong_stage") {
      for (auto& r : replies) {
        r.mutable_secagg()->mutable_message()->mutable_masked_input()->set_packed("wrong stage");
        out.push_back(r.SerializeAsString());
      }
    } else if (attack_ == "replay") {
      // An earlier round's signed advertisement, relabelled for each user of this cohort.
      if (recorded_.empty()) return out;  // nothing recorded: never strikes, the test fails
      for (size_t i = 0; i < replies.size(); ++i) {
        v1::ClientMessage old = recorded_[i % recorded_.size()];
        old.mutable_secagg()->set_participant_id(replies[i].secagg().participant_id());
        old.mutable_secagg()->set_round(round);
        out.push_back(old.SerializeAsString());
      }
    } else if (attack_ == "low_order_key") {
      // u = 1, a point of order 4: every agreement with it is all zeros (RFC 7748 section 6.1).
      std::string low_order(crypto::kX25519KeySize, '\0');
      low_order[0] = 1;
      for (auto& r : replies) {
        r.mutable_secagg()->mutable_message()->mutable_advertise_keys()->set_c_public_key(
            low_order);
        out.push_back(r.SerializeAsString());
      }
    } else if (attack_ == "impersonate") {
      replies.front().mutable_secagg()->set_participant_id(absl::GetFlag(FLAGS_victim));
      out.push_back(replies.front().SerializeAsString());
    } else if (attack_ == "flood") {
      const std::string copy = replies.front().SerializeAsString();
      out.assign(static_cast<size_t>(absl::GetFlag(FLAGS_flood_copies)), copy);
    } else if (attack_ == "stalled_upload" || attack_ == "upload_budget") {
      // The first chunk of a message that never comes.
      const std::string data = replies.front().SerializeAsString();
      v1::ClientMessage chunk;
      v1::Chunk* c = chunk.mutable_chunk();
      c->set_round(round);
      c->set_participant_id(replies.front().secagg().participant_id());
      c->set_phase(replies.front().secagg().phase());
      c->set_count(2);
      const uint64_t declared = static_cast<uint64_t>(absl::GetFlag(FLAGS_declared_upload_mib))
                                << 20;
      c->set_total_bytes(attack_ == "stalled_upload" ? 2 * data.size() : declared);
      c->set_data(data);
      out.push_back(chunk.SerializeAsString());
    } else if (attack_ == "empty_submessages" || attack_ == "packed_varints") {
      out = AmplifiedUpload(attack_, replies.front());
    } else if (attack_ == "oversized") {
      // A valid ClientMessage but for its size: field 1000, length-delimited, 1 KiB over the limit.
      v1::ClientMessage padded = replies.front();
      padded.GetReflection()->MutableUnknownFields(&padded)->AddLengthDelimited(
          1000, std::string(static_cast<size_t>(wire::kMaxMessageBytes) + 1024, 'x'));
      out.push_back(padded.SerializeAsString());
    }
    Strike(round, absl::StrCat(out.size(), " messages"));
    return out;
  }
  void SetPlan(const v1::RoundPlan& plan) {
    length_ = plan.length();
    bits_ = plan.bits();
  }
  // Notes who sent each of its participants shares (unusable_shares reports them all).
  void Observe(const v1::ServerMessage& m) {
    if (!m.has_secagg() || !m.secagg().message().has_masked_input()) return;
    std::vector<uint32_t>& senders = senders_[m.secagg().participant_id()];
    senders.clear();
    for (const v1::secagg::EncryptedShares& s : m.secagg().message().masked_input().shares()) {
      senders.push_back(s.peer_id());
    }
    std::sort(senders.begin(), senders.end());
  }

 private:
  // --decline_idle_rounds: a SecAgg Abort (refusal code 0: a dropout like any other) in place of
  // each reply to a round task (an advertisement, or a clear upload); nothing for other replies
  // (there are none once its users are out of the round).
  static std::vector<std::string> Decline(const std::vector<v1::ClientMessage>& replies) {
    std::vector<std::string> out;
    for (const v1::ClientMessage& r : replies) {
      wire::AggregationTag tag;
      uint32_t id = 0;
      if (IsAdvertisement(r)) {
        tag = wire::TagOf(r.secagg());
        id = r.secagg().participant_id();
      } else if (r.has_clear_upload()) {
        tag = {.round = r.clear_upload().round(), .phase = r.clear_upload().phase()};
        id = r.clear_upload().participant_id();
      } else {
        continue;
      }
      v1::secagg::ClientToServer abort;
      abort.mutable_abort()->set_reason("fedmf-attacker: sits this round out");
      out.push_back(wire::FromParticipant(tag, id, std::move(abort)).SerializeAsString());
    }
    return out;
  }

  // garbage_shares, false_shares: every reply as the honest host wrote it, but for the shares.
  std::vector<std::string> ForgeShares(int64_t round, std::vector<v1::ClientMessage> replies) {
    std::vector<std::string> out;
    std::vector<uint32_t> forgers;
    for (v1::ClientMessage& r : replies) {
      const bool share_keys = r.has_secagg() && r.secagg().message().has_share_keys();
      const bool unmasking = r.has_secagg() && r.secagg().message().has_unmasking();
      if (attack_ == "garbage_shares" && share_keys) {
        std::uniform_int_distribution<int> byte(0, 255);
        for (v1::secagg::EncryptedShares& s :
             *r.mutable_secagg()->mutable_message()->mutable_share_keys()->mutable_shares()) {
          for (char& c : *s.mutable_ciphertext()) c = static_cast<char>(byte(random_));
        }
        forgers.push_back(r.secagg().participant_id());
      } else if (attack_ == "false_shares" && unmasking) {
        v1::secagg::UnmaskingResponse* u =
            r.mutable_secagg()->mutable_message()->mutable_unmasking();
        for (auto* list : {u->mutable_self_mask_shares(), u->mutable_key_shares()}) {
          for (v1::secagg::RevealedShare& s : *list) s.set_share(FalseShare(s.share()));
        }
        forgers.push_back(r.secagg().participant_id());
      } else if (attack_ == "unusable_shares" && r.has_secagg() &&
                 r.secagg().message().has_masked_input()) {
        v1::secagg::MaskedInput* masked =
            r.mutable_secagg()->mutable_message()->mutable_masked_input();
        masked->clear_unusable_shares_from();
        for (uint32_t sender : senders_[r.secagg().participant_id()]) {
          masked->add_unusable_shares_from(sender);
        }
        forgers.push_back(r.secagg().participant_id());
      }
      out.push_back(r.SerializeAsString());
    }
    if (!forgers.empty()) {
      const char* kind = attack_ == "garbage_shares"  ? " ShareKeys"
                         : attack_ == "false_shares" ? " Unmasking"
                                                     : " MaskedInput";
      Strike(round, absl::StrCat(forgers.size(), kind, " responses"), absl::StrJoin(forgers, ","));
    }
    return out;
  }

  void Strike(int64_t round, const std::string& what, const std::string& participants = "") {
    struck_ = true;
    EventLine line("attack");
    line.Add("attack", attack_).Add("round", round).Add("sent", what);
    if (!participants.empty()) line.Add("participants", participants);
  }

  const std::string attack_;
  const int64_t round_;
  const bool every_round_;
  const bool decline_idle_;
  bool struck_ = false;
  std::mt19937_64 random_{std::random_device{}()};  // a test tool: no CSPRNG needed
  int64_t length_ = 0;
  int bits_ = 0;
  std::vector<v1::ClientMessage> recorded_;
  std::map<uint32_t, std::vector<uint32_t>> senders_;  // per participant, of its last shares
};

// Participate streams opened without a valid session token, held open by the attacker.
class UnauthenticatedStreams {
 public:
  // Opens --streams streams without a session token and as many with a wrong one; half of them
  // write a 1 MiB message, the others stay idle.
  explicit UnauthenticatedStreams(grpc::Channel* channel) {
    const grpc::internal::RpcMethod method("/fedmf.v1.Federation/Participate",
                                           grpc::internal::RpcMethod::BIDI_STREAMING);
    v1::ClientMessage large;
    large.mutable_clear_upload()->set_participant_id(1);
    large.mutable_clear_upload()->mutable_values()->Resize(1 << 17, ~uint64_t{0} >> 1);
    for (int i = 0; i < 2 * absl::GetFlag(FLAGS_streams); ++i) {
      auto& [context, stream] = streams_.emplace_back();
      context = std::make_unique<grpc::ClientContext>();
      // Bounds the attack when streams are held (so never refused): then they count as held.
      context->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
      if (i % 2 == 1) context->AddMetadata(wire::kSessionTokenMetadataKey, "wrong token");
      stream.reset(
          grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer, grpc::ByteBuffer>::Create(
              channel, method, context.get()));
      if (i % 4 < 2) (void)Write(*stream, large);  // the others stay idle
    }
  }
  // Waits for every stream's end: "refused=R held=H" (held: not refused, e.g. ended by the
  // deadline), then the other status codes seen, as " code:count".
  std::string Outcome() {
    int refused = 0, held = 0;
    std::map<int, int> others;
    for (auto& [context, stream] : streams_) {
      grpc::ByteBuffer ignored;
      while (stream->Read(&ignored)) {
      }
      const grpc::StatusCode code = stream->Finish().error_code();
      if (code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::NOT_FOUND) {
        ++refused;
      } else {
        ++held;
        ++others[static_cast<int>(code)];
      }
    }
    streams_.clear();
    std::string outcome = absl::StrCat("refused=", refused, " held=", held);
    for (const auto& [code, count] : others) absl::StrAppend(&outcome, " ", code, ":", count);
    return outcome;
  }

 private:
  std::vector<std::pair<std::unique_ptr<grpc::ClientContext>, std::unique_ptr<Stream>>> streams_;
};

// Registers --registrations times and never opens a stream.
absl::Status SquatRegistrations(v1::Federation::Stub& stub, const v1::RegisterRequest& request) {
  int accepted = 0, refused = 0;
  for (int i = 0; i < absl::GetFlag(FLAGS_registrations); ++i) {
    v1::RegisterResponse response;
    grpc::ClientContext context;
    context.set_wait_for_ready(true);
    context.set_deadline(absl::ToChronoTime(absl::Now() + client::kRegisterDeadline));
    const grpc::Status s = stub.Register(&context, request, &response);
    if (s.ok()) {
      ++accepted;
    } else if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++refused;
    } else {
      return absl::UnavailableError(absl::StrCat("register: ", s.error_message()));
    }
  }
  EventLine("attack")
      .Add("attack", "squat_registrations")
      .Add("accepted", accepted)
      .Add("refused", refused);
  return absl::OkStatus();
}

absl::Status Run() {
  absl::StatusOr<data::RatingsDataset> full = data::LoadDataset(absl::GetFlag(FLAGS_data));
  if (!full.ok()) return full.status();
  absl::StatusOr<std::vector<data::TrainTest>> splits =
      data::MakeSplits(*full, absl::GetFlag(FLAGS_split), 1);
  if (!splits.ok()) return splits.status();
  std::vector<int32_t> users;
  for (absl::string_view part : absl::StrSplit(absl::GetFlag(FLAGS_users), ',')) {
    int32_t u = 0;
    if (!absl::SimpleAtoi(part, &u)) return absl::InvalidArgumentError("--users");
    users.push_back(u);
  }
  absl::StatusOr<std::unique_ptr<client::ParticipantHost>> host = client::ParticipantHost::Create(
      std::make_shared<data::RatingsDataset>(std::move((*splits)[0].train)), users,
      std::make_shared<data::RatingsDataset>(std::move((*splits)[0].test)));
  if (!host.ok()) return host.status();

  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(wire::kMaxMessageBytes);
  // The oversized attack must get past its own side's limit.
  args.SetMaxSendMessageSize(absl::GetFlag(FLAGS_attack) == "oversized" ? -1
                                                                        : wire::kMaxMessageBytes);
  // A channel to the coordinator presenting the certificate `cert_file` (empty: none).
  auto make_channel = [&args](const std::string& cert_file, const std::string& key_file)
      -> absl::StatusOr<std::shared_ptr<grpc::Channel>> {
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
        rpc::MakeClientCredentials({.ca_file = absl::GetFlag(FLAGS_tls_ca),
                                    .cert_file = cert_file,
                                    .key_file = key_file,
                                    .server_name = ""});
    if (!credentials.ok()) return credentials.status();
    return grpc::CreateCustomChannel(absl::GetFlag(FLAGS_coordinator), *credentials, args);
  };
  absl::StatusOr<std::shared_ptr<grpc::Channel>> made =
      make_channel(absl::GetFlag(FLAGS_tls_cert), absl::GetFlag(FLAGS_tls_key));
  if (!made.ok()) return made.status();
  std::shared_ptr<grpc::Channel> channel = *std::move(made);
  auto stub = v1::Federation::NewStub(channel);
  const v1::RegisterRequest request =
      client::MakeRegisterRequest(**host, absl::StrCat("attacker-", absl::GetFlag(FLAGS_attack)),
                                  absl::GetFlag(FLAGS_enrollment_token));
  if (absl::GetFlag(FLAGS_attack) == "squat_registrations")
    return SquatRegistrations(*stub, request);
  if (absl::GetFlag(FLAGS_attack_every_round) && !IsShareAttack(absl::GetFlag(FLAGS_attack))) {
    return absl::InvalidArgumentError(
        "--attack_every_round: garbage_shares, false_shares or unusable_shares only");
  }
  std::optional<UnauthenticatedStreams> unauthenticated;
  if (absl::GetFlag(FLAGS_attack) == "unauthenticated_streams")
    unauthenticated.emplace(channel.get());
  v1::RegisterResponse response;
  grpc::ClientContext register_context;
  register_context.set_wait_for_ready(true);
  register_context.set_deadline(absl::ToChronoTime(absl::Now() + client::kRegisterDeadline));
  if (grpc::Status s = stub->Register(&register_context, request, &response); !s.ok()) {
    return absl::UnavailableError(absl::StrCat("register: ", s.error_message()));
  }

  EventLine("registered").Add("users", request.participant_ids_size());
  if (const std::string go = absl::GetFlag(FLAGS_open_stream_after_file); !go.empty()) {
    // Bounded by the test that creates the file; a minute guards against a test that never does.
    const absl::Time give_up = absl::Now() + absl::Minutes(1);
    while (!std::filesystem::exists(go)) {
      if (absl::Now() > give_up) return absl::DeadlineExceededError(absl::StrCat("no ", go));
      absl::SleepFor(absl::Milliseconds(50));
    }
  }

  if (const std::string cert = absl::GetFlag(FLAGS_stream_tls_cert); !cert.empty()) {
    made = make_channel(cert, absl::GetFlag(FLAGS_stream_tls_key));
    if (!made.ok()) return made.status();
    channel = *std::move(made);
  }
  // The Participate method at the byte level (what the generated stub does with typed messages).
  const grpc::internal::RpcMethod method("/fedmf.v1.Federation/Participate",
                                         grpc::internal::RpcMethod::BIDI_STREAMING);
  grpc::ClientContext context;
  context.AddMetadata(wire::kSessionTokenMetadataKey, response.session_token());
  std::unique_ptr<Stream> stream(
      grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer, grpc::ByteBuffer>::Create(
          channel.get(), method, &context));
  Attacker attacker(absl::GetFlag(FLAGS_attack), absl::GetFlag(FLAGS_attack_round),
                    absl::GetFlag(FLAGS_attack_every_round),
                    absl::GetFlag(FLAGS_decline_idle_rounds));
  grpc::ByteBuffer buffer;
  while (stream->Read(&buffer)) {
    std::vector<grpc::Slice> slices;
    if (!buffer.Dump(&slices).ok()) break;
    std::string bytes;
    for (const grpc::Slice& s : slices)
      bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    v1::ServerMessage m;
    if (!m.ParseFromString(bytes)) break;
    if (m.has_result() && m.result().training_done()) break;
    if (m.has_task() && unauthenticated && m.task().round() == absl::GetFlag(FLAGS_attack_round)) {
      EventLine("attack")
          .Add("attack", "unauthenticated_streams")
          .Add("round", m.task().round())
          .Add("sent", unauthenticated->Outcome());
      unauthenticated.reset();
    }
    if (m.has_task()) {
      attacker.SetPlan(m.task().plan());
      // Who of its users the coordinator asked in, and in which attempt (the context names it):
      // the coordinator logs only cohort sizes.
      EventLine("task")
          .Add("round", m.task().round())
          .Add("context", m.task().secagg().context())
          .Add("participants", absl::StrJoin(m.task().participant_ids(), ","));
    }
    attacker.Observe(m);
    absl::StatusOr<std::vector<v1::ClientMessage>> replies = (*host)->Handle(m);
    if (!replies.ok()) continue;  // e.g. the Abort after a rejected message
    for (const std::string& out : attacker.Respond(RoundOf(m), std::move(*replies))) {
      if (!stream->Write(Bytes(out))) break;
    }
  }
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  EventLine("attacker_stop")
      .Add("attack", absl::GetFlag(FLAGS_attack))
      .Add("code", static_cast<int>(status.error_code()))
      .Add("status", status.error_message());
  return absl::OkStatus();
}

}  // namespace
}  // namespace fedmf::abuse

int main(int argc, char** argv) {
  fedmf::InitFlagsOnlyCommandLine(
      argc, argv,
      "fedmf-attacker --coordinator=HOST:PORT --users=LIST --attack=NAME: "
      "a malicious client for the protocol-abuse tests");
  return fedmf::ExitCode(fedmf::abuse::Run());
}
