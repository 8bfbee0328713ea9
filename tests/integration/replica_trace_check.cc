// Reads a combiner's --insecure_replica_trace (server/replica_trace.h) and checks, aggregation by
// aggregation, what the combiner could compute from everything it received and sent on its
// replica links (issue 44's wire test; docs/scale-out.md section 3):
//   - it never received a device's masked input, only partial sums, at most one per front;
//   - TranscriptAttacker (tests/unit/crypto/transcript_attacker.h), given that whole view, rebuilds
//     every secret the revealed shares allow, removes every mask it can, and is left with at least
//     one mask on the sum of every front's group that is not the whole cohort;
//   - the control: from the same view it unmasks the cohort's sum completely, which is what the
//     protocol releases to the combiner, so the trace is whole and the attacker is not blind.
// Usage: replica_trace_check TRACE. One line per aggregation checked; exit 0 when every check
// holds and at least one aggregation had partials from two fronts, 1 naming the first check that
// failed, 2 for a trace it cannot read.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "crypto/secagg/config.h"
#include "fedmf/v1/replica.pb.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/util/delimited_message_util.h"
#include "tests/unit/crypto/transcript_attacker.h"

namespace fedmf {
namespace {

using secagg::test_util::GroupSumEstimate;
using secagg::test_util::PartyView;
using secagg::test_util::TranscriptAttacker;

// What the combiner saw of one aggregation (round, phase).
struct Seen {
  std::optional<secagg::SessionConfig> config;
  std::set<std::string> contexts;                    // one per attempt
  std::map<std::string, std::set<uint32_t>> groups;  // by front: the members it was given
  std::map<std::string, int> partials_by_front;      // partial sums with members
  PartyView view;                                    // the attacker's input
  int masked_inputs = 0;                             // individual ones relayed: must stay 0
};
using Tag = std::pair<int64_t, int32_t>;

void Fail(const std::string& why) {
  std::fprintf(stderr, "replica_trace_check: FAIL %s\n", why.c_str());
  std::exit(1);
}

void Read(const v1::ReplicaTraceRecord& record, std::map<Tag, Seen>& seen) {
  const std::string& front = record.front();
  if (record.has_down()) {
    const v1::CombinerMessage& down = record.down();
    if (down.has_open() && down.open().task().has_secagg()) {
      const v1::RoundTask& task = down.open().task();
      Seen& s = seen[{task.round(), task.plan().phase()}];
      absl::StatusOr<secagg::SessionConfig> config = secagg::ConfigFromProto(task.secagg());
      if (!config.ok())
        Fail(absl::StrCat("a task's SecAgg parameters: ", config.status().ToString()));
      s.contexts.insert(config->context);
      s.config = *std::move(config);
      s.groups[front].insert(down.open().members().begin(), down.open().members().end());
    }
    for (const v1::Route::Envelope& envelope : down.route().envelopes()) {
      if (!envelope.message().has_secagg()) continue;
      const v1::ServerToParticipant& m = envelope.message().secagg();
      seen[{m.round(), m.phase()}].view.sent.emplace_back(m.participant_id(), m.message());
    }
    return;
  }
  const v1::FrontMessage& up = record.up();
  for (const v1::Relayed::Item& item : up.relayed().items()) {
    if (!item.has_secagg()) continue;
    const v1::ParticipantToServer& m = item.secagg();
    Seen& s = seen[{m.round(), m.phase()}];
    if (m.message().has_masked_input()) {
      ++s.masked_inputs;
    } else {
      s.view.received.emplace_back(m.participant_id(), m.message());
    }
  }
  if (up.has_partial() && up.partial().members_size() > 0) {
    Seen& s = seen[{up.partial().round(), up.partial().phase()}];
    secagg::PartialSum partial;
    partial.packed = up.partial().packed();
    for (const v1::PartialSum::Member& member : up.partial().members()) {
      partial.members.push_back({.id = member.id(),
                                 .unusable_shares_from = {member.unusable_shares_from().begin(),
                                                          member.unusable_shares_from().end()}});
    }
    s.view.partials.push_back(std::move(partial));
    ++s.partials_by_front[front];
  }
}

// The masks the attacker could not remove from the sum of `group`'s inputs.
int MasksLeft(const TranscriptAttacker& attacker, const std::set<uint32_t>& group,
              const std::string& what) {
  absl::StatusOr<GroupSumEstimate> estimate = attacker.GroupSum(group);
  if (!estimate.ok()) Fail(absl::StrCat(what, ": ", estimate.status().ToString()));
  return estimate->self_masks_left + estimate->pairwise_masks_left;
}

// Checks one aggregation; returns how many fronts sent it a partial sum.
int Check(const Tag& tag, const Seen& s) {
  const std::string name = absl::StrCat("aggregation round=", tag.first, " phase=", tag.second);
  if (s.masked_inputs > 0) {
    Fail(absl::StrCat(name, ": the combiner received ", s.masked_inputs,
                      " individual masked inputs (fronts must sum them)"));
  }
  if (!s.config) Fail(absl::StrCat(name, ": messages without a task"));
  if (s.contexts.size() != 1) {
    Fail(absl::StrCat(name, ": ", s.contexts.size(),
                      " attempts; the check needs a run whose aggregations are not retried"));
  }
  for (const auto& [front, count] : s.partials_by_front) {
    if (count > 1) Fail(absl::StrCat(name, ": front ", front, " sent ", count, " partial sums"));
  }
  std::set<uint32_t> advertised;
  for (const auto& [id, message] : s.view.received) {
    if (message.has_advertise_keys()) advertised.insert(id);
  }
  absl::StatusOr<TranscriptAttacker> attacker =
      TranscriptAttacker::Create(*s.config, {advertised.begin(), advertised.end()}, s.view);
  if (!attacker.ok()) Fail(absl::StrCat(name, ": ", attacker.status().ToString()));
  std::set<uint32_t> summed;
  for (const secagg::PartialSum& partial : s.view.partials) {
    for (const secagg::PartialSum::Member& member : partial.members) summed.insert(member.id);
  }
  if (const int left = MasksLeft(*attacker, summed, name + ", the cohort"); left != 0) {
    Fail(absl::StrCat(name, ": the control failed: ", left,
                      " masks left on the cohort's sum, which the combiner must unmask"));
  }
  std::vector<std::string> groups;
  for (const auto& [front, members] : s.groups) {
    const bool whole = std::includes(members.begin(), members.end(), summed.begin(), summed.end());
    if (whole || !s.partials_by_front.contains(front)) continue;  // the sum released, or nothing
    const int left = MasksLeft(*attacker, members, absl::StrCat(name, ", front ", front));
    if (left == 0) {
      Fail(absl::StrCat(name, ": the combiner can unmask the sum of front ", front, "'s ",
                        members.size(), " members"));
    }
    groups.push_back(absl::StrCat(front, ":", members.size(), " members/", left, " masks left"));
  }
  std::printf(
      "%s cohort=%zu summed=%zu partials=%zu no_masked_input cohort_sum=unmasked "
      "group_sums=masked(%s)\n",
      name.c_str(), advertised.size(), summed.size(), s.view.partials.size(),
      absl::StrJoin(groups, " ").c_str());
  return static_cast<int>(s.partials_by_front.size());
}

int Main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) == "--help") {
    std::fprintf(
        stderr,
        "usage: replica_trace_check TRACE\n"
        "Checks a combiner's --insecure_replica_trace: no individual masked input, and no\n"
        "front's group sum the combiner could unmask (the cohort's sum as the control).\n");
    return argc == 2 ? 0 : 2;
  }
  const int fd = open(argv[1], O_RDONLY);
  if (fd < 0) {
    std::fprintf(stderr, "replica_trace_check: cannot open %s\n", argv[1]);
    return 2;
  }
  google::protobuf::io::FileInputStream input(fd);
  input.SetCloseOnDelete(true);
  std::map<Tag, Seen> seen;
  int64_t records = 0;
  for (bool clean_eof = false;;) {
    v1::ReplicaTraceRecord record;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&record, &input, &clean_eof)) {
      if (clean_eof) break;
      std::fprintf(stderr, "replica_trace_check: %s: record %lld does not parse\n", argv[1],
                   static_cast<long long>(records + 1));
      return 2;
    }
    ++records;
    Read(record, seen);
  }
  int with_fronts = 0;
  for (const auto& [tag, s] : seen) {
    if (Check(tag, s) >= 2) ++with_fronts;
  }
  if (with_fronts == 0) Fail("no aggregation had partial sums from two fronts: nothing checked");
  std::printf("PASS replica_trace_check records=%lld aggregations=%zu with_several_fronts=%d\n",
              static_cast<long long>(records), seen.size(), with_fronts);
  return 0;
}

}  // namespace
}  // namespace fedmf

int main(int argc, char** argv) { return fedmf::Main(argc, argv); }
