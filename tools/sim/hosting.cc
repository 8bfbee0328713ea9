#include "tools/sim/hosting.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fedmf::sim {
namespace {

using algorithms::Hosting;

// What `hosting` is, for a message.
absl::string_view Describe(Hosting hosting) {
  switch (hosting) {
    case Hosting::kUsers:
      return "users";
    case Hosting::kHorizontalParties:
      return "HFL silo parties";
    case Hosting::kVerticalParties:
      return "VFL silo parties";
    case Hosting::kUsersOrParties:
      return "users or silo parties";
  }
  return "";
}

// fedmf-sim's flags for `hosting`.
absl::string_view FlagsFor(Hosting hosting) {
  switch (hosting) {
    case Hosting::kUsers:
      return "run it without --parties";
    case Hosting::kHorizontalParties:
      return "add --parties=hfl:N (fedmf-client --party=hfl:I/N in a networked run)";
    case Hosting::kVerticalParties:
      return "add --parties=vfl:N or --parties=vfl-genre:N (fedmf-client --party=vfl:I/N in a "
             "networked run)";
    case Hosting::kUsersOrParties:
      return "run it with or without --parties";
  }
  return "";
}

bool Accepts(Hosting wanted, Hosting given) {
  return wanted == given || wanted == Hosting::kUsersOrParties;
}

}  // namespace

absl::Status CheckHosting(const algorithms::AlgorithmDefinition& algorithm,
                          const std::vector<client::PartySpec>& parties,
                          absl::string_view parties_flag) {
  const Hosting given = parties.empty() ? Hosting::kUsers : client::HostingOf(parties[0].kind);
  if (Accepts(algorithm.hosting, given)) return absl::OkStatus();
  std::vector<std::string> alternatives;
  for (const algorithms::AlgorithmDefinition* a : algorithms::RegisteredAlgorithms()) {
    if (!a->contributor_only() && Accepts(a->hosting, given)) alternatives.push_back(a->name);
  }
  const std::string hosted =
      parties.empty() ? "users" : absl::StrCat(Describe(given), " (--parties=", parties_flag, ")");
  return absl::InvalidArgumentError(absl::StrCat(
      "--algorithm=", algorithm.name, " trains on ", Describe(algorithm.hosting), ", not ", hosted,
      ": ", FlagsFor(algorithm.hosting), ", or use an algorithm for ", Describe(given), ": ",
      absl::StrJoin(alternatives, ", ")));
}

absl::Status CheckPartyCount(const v1::RoundPlan& plan,
                             const std::vector<client::PartySpec>& parties,
                             absl::string_view parties_flag) {
  if (parties.empty()) return absl::OkStatus();
  const int64_t n = static_cast<int64_t>(parties.size());
  if (n >= plan.min_contributors() && n <= plan.max_contributors()) return absl::OkStatus();
  const std::string wanted =
      plan.min_contributors() == plan.max_contributors()
          ? absl::StrCat(plan.min_contributors())
          : absl::StrCat("between ", plan.min_contributors(), " and ", plan.max_contributors());
  return absl::InvalidArgumentError(absl::StrCat(
      "--parties=", parties_flag, " hosts ", n, " parties but every round of --algorithm=",
      plan.algorithm(), " sums the contributions of ", wanted,
      " (the run's number of parties, e.g. --set parties=N of vfl-sgdmf or hfl-sgdmf)"));
}

}  // namespace fedmf::sim
