// fedmf-secagg-vectors: runs two real SecAgg sessions of 3 clients in process (every client
// answers; client 3 drops after ShareKeys) and writes their test vectors as one JSON file
// (docs/vectors/README.md): every secret the sessions drew and every value docs/protocol.md
// derives from them, for another implementation to check itself against. The keys come from the
// OS CSPRNG, so each run writes a different (equally valid) file; the committed one is checked by
// tests/unit/crypto/secagg_vectors_test.cc and tools/secagg_vectors/check_vectors.py.
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "common/util/cli.h"
#include "crypto/secagg/config.h"
#include "nlohmann/json.hpp"
#include "tools/secagg_vectors/session_recorder.h"
#include "tools/secagg_vectors/vectors_json.h"

ABSL_FLAG(std::string, out, "",
          "where to write the JSON (e.g. docs/vectors/secagg_3_clients.json); - for stdout");

namespace fedmf::secagg_vectors {
namespace {

secagg::SessionConfig VectorConfig(std::string context) {
  secagg::SessionConfig config;
  config.context = std::move(context);
  config.num_clients = 3;
  config.threshold = 2;
  config.bits = 20;
  config.length = 8;
  config.graph = secagg::GraphKind::kComplete;
  config.signatures = true;
  config.consistency_check = true;
  return config;
}

absl::StatusOr<nlohmann::ordered_json> Session(const std::string& name, const std::string& context,
                                               const std::set<uint32_t>& drop,
                                               const std::string& description) {
  absl::StatusOr<RecordedSession> recorded = RecordSession(VectorConfig(context), {1, 2, 3}, drop);
  if (!recorded.ok()) return recorded.status();
  return SessionVectors(*recorded, name, description);
}

// Puts each array of numbers on one line (dump() gives every element a line of its own).
std::string CompactNumberArrays(const std::string& text) {
  static const std::regex kArray(R"(\[\s*(\d+(?:,\s*\d+)*)\s*\])");
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), kArray), end; it != end; ++it) {
    out.append(last, (*it)[0].first);
    static const std::regex kSpace(R"(,\s*)");
    out += '[';  // appended piecewise: GCC 12 at -O3 takes "[" + string&& for an overlap
    out += std::regex_replace((*it)[1].str(), kSpace, ", ");
    out += ']';
    last = (*it)[0].second;
  }
  out.append(last, text.cend());
  return out;
}

absl::Status Main() {
  const std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) return absl::InvalidArgumentError("--out is required (a file, or - for stdout)");
  nlohmann::ordered_json file;
  file["format"] = "fedmf-secagg-test-vectors/1";
  file["about"] =
      "SecAgg sessions of 3 clients run by fedmf's ClientSession and ServerSession with keys "
      "from the OS CSPRNG: the secrets each party drew and every value derived from them. "
      "Fields: docs/vectors/README.md. Derivations: docs/protocol.md.";
  file["generator"] = "fedmf-secagg-vectors --out=docs/vectors/secagg_3_clients.json";
  nlohmann::ordered_json sessions = nlohmann::ordered_json::array();
  absl::StatusOr<nlohmann::ordered_json> all = Session(
      "no_dropout", "fedmf/test-vectors/no-dropout", {},
      "Clients 1, 2 and 3 answer every stage: the pairwise masks cancel in the sum, the server "
      "rebuilds each client's self-mask secret b from 2 shares and checks it against the "
      "commitment in the client's advertisement.");
  if (!all.ok()) return all.status();
  sessions.push_back(std::move(*all));
  absl::StatusOr<nlohmann::ordered_json> dropout = Session(
      "client_3_drops", "fedmf/test-vectors/client-3-drops", {3},
      "Client 3 sends its ShareKeys response and then drops (it never gets its "
      "MaskedInputRequest): clients 1 and 2 mask with it, and the server rebuilds client 3's "
      "s private key from the key shares of clients 1 and 2 (checked against its s public key) "
      "to remove those pairwise masks. The sum is x_1 + x_2.");
  if (!dropout.ok()) return dropout.status();
  sessions.push_back(std::move(*dropout));
  file["sessions"] = std::move(sessions);

  const std::string text = CompactNumberArrays(file.dump(1)) + "\n";
  if (out == "-") {
    std::cout << text;
    return std::cout.good() ? absl::OkStatus() : absl::DataLossError("writing stdout failed");
  }
  std::ofstream stream(out, std::ios::binary | std::ios::trunc);
  stream << text;
  stream.close();
  if (!stream) return absl::DataLossError(absl::StrFormat("cannot write %s", out));
  return absl::OkStatus();
}

}  // namespace
}  // namespace fedmf::secagg_vectors

int main(int argc, char** argv) {
  fedmf::InitFlagsOnlyCommandLine(
      argc, argv,
      "Runs two SecAgg sessions of 3 clients (all answer; client 3 drops after ShareKeys) and "
      "writes their test vectors as JSON (docs/vectors/README.md).\n"
      "Example: fedmf-secagg-vectors --out=docs/vectors/secagg_3_clients.json");
  return fedmf::ExitCode(fedmf::secagg_vectors::Main());
}
