#include "common/dp/ledger_text_format.h"

#include <algorithm>
#include <initializer_list>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace fedmf::dp {
namespace {

constexpr absl::string_view kHeader = "fedmf-privacy-ledger v1";

std::string Num(double x) { return absl::StrFormat("%.17g", x); }

absl::Status LineError(int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("privacy ledger line ", line, ": ", what));
}

absl::StatusOr<double> ParseDouble(int line, absl::string_view field, absl::string_view text) {
  double x;
  if (!absl::SimpleAtod(text, &x)) {
    return LineError(line, absl::StrCat("field '", field, "': '", text, "' is not a number"));
  }
  return x;
}

absl::StatusOr<int64_t> ParseInt(int line, absl::string_view field, absl::string_view text) {
  int64_t x;
  if (!absl::SimpleAtoi(text, &x)) {
    return LineError(line, absl::StrCat("field '", field, "': '", text, "' is not an integer"));
  }
  return x;
}

// Splits "k1=v1 k2=v2 ..." after the line's keyword; every expected key exactly once, no others.
absl::StatusOr<absl::flat_hash_map<std::string, std::string>> Fields(
    int line, absl::string_view rest, std::initializer_list<absl::string_view> keys) {
  absl::flat_hash_map<std::string, std::string> fields;
  for (absl::string_view token : absl::StrSplit(rest, ' ')) {
    const size_t eq = token.find('=');
    if (eq == absl::string_view::npos) {
      return LineError(line, absl::StrCat("expected key=value, got '", token, "'"));
    }
    std::string key(token.substr(0, eq));
    if (std::find(keys.begin(), keys.end(), absl::string_view(key)) == keys.end()) {
      return LineError(line, absl::StrCat("unknown field '", key, "'"));
    }
    if (!fields.emplace(key, std::string(token.substr(eq + 1))).second) {
      return LineError(line, absl::StrCat("field '", key, "' appears twice"));
    }
  }
  for (absl::string_view key : keys) {
    if (!fields.contains(key)) return LineError(line, absl::StrCat("missing field '", key, "'"));
  }
  return fields;
}

absl::StatusOr<LedgerEntry> ParseEntry(int line, absl::string_view rest, size_t num_orders) {
  absl::StatusOr<absl::flat_hash_map<std::string, std::string>> f =
      Fields(line, rest, {"round", "mechanism", "participants", "n_min", "params", "rdp"});
  if (!f.ok()) return f.status();
  LedgerEntry e;
  absl::StatusOr<int64_t> round = ParseInt(line, "round", (*f)["round"]);
  absl::StatusOr<int64_t> participants = ParseInt(line, "participants", (*f)["participants"]);
  absl::StatusOr<int64_t> n_min = ParseInt(line, "n_min", (*f)["n_min"]);
  for (const auto* v : {&round, &participants, &n_min}) {
    if (!v->ok()) return v->status();
  }
  e.round = *round;
  e.participants = *participants;
  e.n_min = *n_min;
  e.mechanism = (*f)["mechanism"];
  if (!(*f)["params"].empty()) {
    for (absl::string_view param : absl::StrSplit((*f)["params"], ';')) {
      std::vector<absl::string_view> kv = absl::StrSplit(param, ':');
      if (kv.size() != 2) {
        return LineError(line,
                         absl::StrCat("field 'params': expected name:value, got '", param, "'"));
      }
      absl::StatusOr<double> value = ParseDouble(line, absl::StrCat("params.", kv[0]), kv[1]);
      if (!value.ok()) return value.status();
      e.params.emplace_back(std::string(kv[0]), *value);
    }
  }
  std::vector<absl::string_view> rdp = absl::StrSplit((*f)["rdp"], ',');
  if (rdp.size() != num_orders) {
    return LineError(
        line, absl::StrCat("field 'rdp': ", rdp.size(), " values for ", num_orders, " orders"));
  }
  for (size_t i = 0; i < rdp.size(); ++i) {
    absl::StatusOr<double> v = ParseDouble(line, absl::StrCat("rdp[", i, "]"), rdp[i]);
    if (!v.ok()) return v.status();
    e.rdp.push_back(*v);
  }
  if (absl::Status s = ValidateEntry(e); !s.ok()) return LineError(line, s.message());
  return e;
}

}  // namespace

uint64_t Fnv1a64(absl::string_view bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string SerializeLedger(const PrivacyLedger& ledger) {
  std::string out = absl::StrCat(kHeader, "\norders");
  for (double o : ledger.orders()) absl::StrAppend(&out, " ", Num(o));
  out += "\n";
  for (const LedgerEntry& e : ledger.entries()) {
    absl::StrAppend(
        &out, "entry round=", e.round, " mechanism=", e.mechanism, " participants=", e.participants,
        " n_min=", e.n_min, " params=",
        absl::StrJoin(
            e.params, ";",
            [](std::string* s, const auto& p) { absl::StrAppend(s, p.first, ":", Num(p.second)); }),
        " rdp=",
        absl::StrJoin(e.rdp, ",", [](std::string* s, double v) { absl::StrAppend(s, Num(v)); }),
        "\n");
  }
  absl::StrAppend(&out, "end entries=", ledger.entries().size(),
                  absl::StrFormat(" fnv1a64=%016x\n", Fnv1a64(out)));
  return out;
}

absl::StatusOr<PrivacyLedger> ParseLedger(absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  // A complete ledger ends with "\n", which leaves one empty string after the last split.
  if (lines.size() < 4 || !lines.back().empty()) {
    return absl::InvalidArgumentError(
        "privacy ledger is truncated: it must end with the 'end' line and a newline");
  }
  lines.pop_back();
  if (lines[0] != kHeader) {
    return LineError(1, absl::StrCat("expected header '", kHeader, "', got '", lines[0], "'"));
  }
  if (!absl::StartsWith(lines[1], "orders ")) return LineError(2, "expected 'orders <o_1> ...'");
  std::vector<double> orders;
  for (absl::string_view o : absl::StrSplit(lines[1].substr(7), ' ')) {
    absl::StatusOr<double> v = ParseDouble(2, "orders", o);
    if (!v.ok()) return v.status();
    orders.push_back(*v);
  }
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create(orders);
  if (!ledger.ok()) return LineError(2, ledger.status().message());

  const int end_line = static_cast<int>(lines.size());  // 1-based number of the last line
  for (int i = 2; i + 1 < end_line; ++i) {
    const int line = i + 1;
    if (!absl::StartsWith(lines[i], "entry ")) {
      return LineError(line, absl::StrCat("expected 'entry ...', got '", lines[i], "'"));
    }
    absl::StatusOr<LedgerEntry> entry = ParseEntry(line, lines[i].substr(6), orders.size());
    if (!entry.ok()) return entry.status();
    if (absl::Status s = ledger->Append(*std::move(entry)); !s.ok()) {
      return LineError(line, s.message());
    }
  }

  const absl::string_view last = lines.back();
  if (!absl::StartsWith(last, "end ")) {
    return LineError(end_line, "missing 'end entries=... fnv1a64=...' trailer (truncated?)");
  }
  absl::StatusOr<absl::flat_hash_map<std::string, std::string>> f =
      Fields(end_line, last.substr(4), {"entries", "fnv1a64"});
  if (!f.ok()) return f.status();
  absl::StatusOr<int64_t> count = ParseInt(end_line, "entries", (*f)["entries"]);
  if (!count.ok()) return count.status();
  if (*count != static_cast<int64_t>(ledger->entries().size())) {
    return LineError(end_line, absl::StrCat("field 'entries': trailer says ", *count,
                                            " entries, file has ", ledger->entries().size()));
  }
  const size_t body = text.size() - last.size() - 1;
  const std::string expected = absl::StrFormat("%016x", Fnv1a64(text.substr(0, body)));
  if ((*f)["fnv1a64"] != expected) {
    return LineError(end_line, absl::StrCat("field 'fnv1a64': checksum ", (*f)["fnv1a64"],
                                            " does not match the content (", expected, ")"));
  }
  return ledger;
}

}  // namespace fedmf::dp
