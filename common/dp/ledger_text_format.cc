#include "common/dp/ledger_text_format.h"

#include <algorithm>
#include <initializer_list>
#include <utility>
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

constexpr absl::string_view kLedgerHeaderV1 = "fedmf-privacy-ledger v1";
constexpr absl::string_view kLedgerHeader = "fedmf-privacy-ledger v2";
constexpr absl::string_view kParticipantHeader = "fedmf-participant-budget v1";

using FieldMap = absl::flat_hash_map<std::string, std::string>;

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

bool Contains(std::initializer_list<absl::string_view> keys, absl::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Splits "k1=v1 k2=v2 ..." after the line's keyword: every `required` key exactly once, every
// `optional` key at most once, no others.
absl::StatusOr<FieldMap> Fields(int line, absl::string_view rest,
                                std::initializer_list<absl::string_view> required,
                                std::initializer_list<absl::string_view> optional = {}) {
  FieldMap fields;
  for (absl::string_view token : absl::StrSplit(rest, ' ')) {
    const size_t eq = token.find('=');
    if (eq == absl::string_view::npos) {
      return LineError(line, absl::StrCat("expected key=value, got '", token, "'"));
    }
    std::string key(token.substr(0, eq));
    if (!Contains(required, key) && !Contains(optional, key)) {
      return LineError(line, absl::StrCat("unknown field '", key, "'"));
    }
    if (!fields.emplace(key, std::string(token.substr(eq + 1))).second) {
      return LineError(line, absl::StrCat("field '", key, "' appears twice"));
    }
  }
  for (absl::string_view key : required) {
    if (!fields.contains(key)) return LineError(line, absl::StrCat("missing field '", key, "'"));
  }
  return fields;
}

absl::StatusOr<bool> ParseYesNo(int line, absl::string_view field, absl::string_view text) {
  if (text == "yes") return true;
  if (text == "no") return false;
  return LineError(line, absl::StrCat("field '", field, "': expected yes or no, got '", text, "'"));
}

// `legacy`: a v1 entry, which has no unit, heterogeneous or epsilon field and protects one user.
absl::StatusOr<LedgerEntry> ParseEntry(int line, absl::string_view rest, size_t num_orders,
                                       bool legacy) {
  absl::StatusOr<FieldMap> f =
      legacy ? Fields(line, rest, {"round", "mechanism", "participants", "n_min", "params", "rdp"})
             : Fields(line, rest,
                      {"round", "mechanism", "unit", "participants", "n_min", "params",
                       "heterogeneous"},
                      {"rdp", "epsilon"});
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
  if (legacy) {
    e.unit = PrivacyUnit::kUser;
  } else {
    absl::StatusOr<PrivacyUnit> unit = ParsePrivacyUnit((*f)["unit"]);
    if (!unit.ok()) return LineError(line, absl::StrCat("field 'unit': ", unit.status().message()));
    e.unit = *unit;
    absl::StatusOr<bool> heterogeneous = ParseYesNo(line, "heterogeneous", (*f)["heterogeneous"]);
    if (!heterogeneous.ok()) return heterogeneous.status();
    e.heterogeneous = *heterogeneous;
    if (f->contains("rdp") == f->contains("epsilon")) {
      return LineError(line, "an entry needs exactly one of the fields 'rdp' and 'epsilon'");
    }
  }
  if (f->contains("epsilon")) {
    absl::StatusOr<double> epsilon = ParseDouble(line, "epsilon", (*f)["epsilon"]);
    if (!epsilon.ok()) return epsilon.status();
    e.pure_epsilon = *epsilon;
  } else {
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
  }
  if (absl::Status s = ValidateEntry(e); !s.ok()) return LineError(line, s.message());
  return e;
}

absl::string_view BudgetKindName(PrivacyBudget::Kind kind) {
  switch (kind) {
    case PrivacyBudget::Kind::kRdp:
      return "rdp";
    case PrivacyBudget::Kind::kApproxDp:
      return "approx_dp";
    case PrivacyBudget::Kind::kPureDp:
      return "pure";
  }
  return "unknown";
}

std::string BudgetLine(const PrivacyBudget& b) {
  std::string line = absl::StrCat("budget kind=", BudgetKindName(b.kind),
                                  " unit=", PrivacyUnitName(b.unit), " epsilon=", Num(b.epsilon));
  if (b.kind == PrivacyBudget::Kind::kRdp) absl::StrAppend(&line, " order=", Num(b.order));
  if (b.kind == PrivacyBudget::Kind::kApproxDp) absl::StrAppend(&line, " delta=", Num(b.delta));
  return absl::StrCat(line, "\n");
}

absl::StatusOr<PrivacyBudget> ParseBudget(int line, absl::string_view text) {
  if (!absl::StartsWith(text, "budget ")) {
    return LineError(line, absl::StrCat("expected 'budget kind=...', got '", text, "'"));
  }
  absl::StatusOr<FieldMap> f =
      Fields(line, text.substr(7), {"kind", "unit", "epsilon"}, {"order", "delta"});
  if (!f.ok()) return f.status();
  const std::string& kind = (*f)["kind"];
  if (kind != "rdp" && kind != "approx_dp" && kind != "pure") {
    return LineError(
        line, absl::StrCat("field 'kind': expected rdp, approx_dp or pure, got '", kind, "'"));
  }
  const bool wants_order = kind == "rdp";
  const bool wants_delta = kind == "approx_dp";
  if (f->contains("order") != wants_order || f->contains("delta") != wants_delta) {
    return LineError(line, absl::StrCat("a budget of kind ", kind, " needs ",
                                        wants_order   ? "an 'order' and no 'delta'"
                                        : wants_delta ? "a 'delta' and no 'order'"
                                                      : "neither 'order' nor 'delta'"));
  }
  absl::StatusOr<PrivacyUnit> unit = ParsePrivacyUnit((*f)["unit"]);
  if (!unit.ok()) return LineError(line, absl::StrCat("field 'unit': ", unit.status().message()));
  absl::StatusOr<double> epsilon = ParseDouble(line, "epsilon", (*f)["epsilon"]);
  if (!epsilon.ok()) return epsilon.status();
  PrivacyBudget b = PrivacyBudget::PureDp(*epsilon, *unit);
  if (wants_order || wants_delta) {
    const char* key = wants_order ? "order" : "delta";
    absl::StatusOr<double> x = ParseDouble(line, key, (*f)[key]);
    if (!x.ok()) return x.status();
    b = wants_order ? PrivacyBudget::Rdp(*epsilon, *x, *unit)
                    : PrivacyBudget::ApproxDp(*epsilon, *x, *unit);
  }
  if (absl::Status s = ValidateBudget(b); !s.ok()) return LineError(line, s.message());
  return b;
}

// The orders line and one line per entry.
void AppendBody(const PrivacyLedger& ledger, std::string* out) {
  absl::StrAppend(out, "orders");
  for (double o : ledger.orders()) absl::StrAppend(out, " ", Num(o));
  absl::StrAppend(out, "\n");
  for (const LedgerEntry& e : ledger.entries()) {
    absl::StrAppend(
        out, "entry round=", e.round, " mechanism=", e.mechanism, " unit=", PrivacyUnitName(e.unit),
        " participants=", e.participants, " n_min=", e.n_min, " params=",
        absl::StrJoin(
            e.params, ";",
            [](std::string* s, const auto& p) { absl::StrAppend(s, p.first, ":", Num(p.second)); }),
        " heterogeneous=", e.heterogeneous ? "yes" : "no");
    if (e.pure_epsilon) {
      absl::StrAppend(out, " epsilon=", Num(*e.pure_epsilon), "\n");
    } else {
      absl::StrAppend(
          out, " rdp=",
          absl::StrJoin(e.rdp, ",", [](std::string* s, double v) { absl::StrAppend(s, Num(v)); }),
          "\n");
    }
  }
  absl::StrAppend(out, "end entries=", ledger.entries().size(),
                  absl::StrFormat(" fnv1a64=%016x\n", Fnv1a64(*out)));
}

// The text's lines without the empty string after its final newline; `min_lines` counts the
// header lines, orders and trailer.
absl::StatusOr<std::vector<absl::string_view>> Lines(absl::string_view text, size_t min_lines) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  // A complete file ends with "\n", which leaves one empty string after the last split.
  if (lines.size() < min_lines + 1 || !lines.back().empty()) {
    return absl::InvalidArgumentError(
        "privacy ledger is truncated: it must end with the 'end' line and a newline");
  }
  lines.pop_back();
  return lines;
}

// Parses lines[first] ("orders ...") to the trailer, whose checksum covers every byte of `text`
// before it.
absl::StatusOr<PrivacyLedger> ParseBody(absl::string_view text,
                                        const std::vector<absl::string_view>& lines, size_t first,
                                        bool legacy) {
  const int orders_line = static_cast<int>(first) + 1;
  if (!absl::StartsWith(lines[first], "orders ")) {
    return LineError(orders_line, "expected 'orders <o_1> ...'");
  }
  std::vector<double> orders;
  for (absl::string_view o : absl::StrSplit(lines[first].substr(7), ' ')) {
    absl::StatusOr<double> v = ParseDouble(orders_line, "orders", o);
    if (!v.ok()) return v.status();
    orders.push_back(*v);
  }
  absl::StatusOr<PrivacyLedger> ledger = PrivacyLedger::Create(orders);
  if (!ledger.ok()) return LineError(orders_line, ledger.status().message());

  const int end_line = static_cast<int>(lines.size());  // 1-based number of the last line
  for (int i = orders_line; i + 1 < end_line; ++i) {
    const int line = i + 1;
    if (!absl::StartsWith(lines[i], "entry ")) {
      return LineError(line, absl::StrCat("expected 'entry ...', got '", lines[i], "'"));
    }
    absl::StatusOr<LedgerEntry> entry = ParseEntry(line, lines[i].substr(6), orders.size(), legacy);
    if (!entry.ok()) return entry.status();
    if (absl::Status s = ledger->Append(*std::move(entry)); !s.ok()) {
      return LineError(line, s.message());
    }
  }

  const absl::string_view last = lines.back();
  if (!absl::StartsWith(last, "end ")) {
    return LineError(end_line, "missing 'end entries=... fnv1a64=...' trailer (truncated?)");
  }
  absl::StatusOr<FieldMap> f = Fields(end_line, last.substr(4), {"entries", "fnv1a64"});
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
  std::string out = absl::StrCat(kLedgerHeader, "\n");
  AppendBody(ledger, &out);
  return out;
}

absl::StatusOr<PrivacyLedger> ParseLedger(absl::string_view text) {
  absl::StatusOr<std::vector<absl::string_view>> lines = Lines(text, 3);
  if (!lines.ok()) return lines.status();
  const absl::string_view header = (*lines)[0];
  if (header != kLedgerHeader && header != kLedgerHeaderV1) {
    return LineError(1, absl::StrCat("expected header '", kLedgerHeader, "' (or '", kLedgerHeaderV1,
                                     "'), got '", header, "'"));
  }
  return ParseBody(text, *lines, 1, /*legacy=*/header == kLedgerHeaderV1);
}

std::string SerializeParticipantBudget(const ParticipantBudget& participant) {
  std::string out = absl::StrCat(kParticipantHeader, "\n", BudgetLine(participant.budget()));
  AppendBody(participant.ledger(), &out);
  return out;
}

absl::StatusOr<ParticipantBudget> ParseParticipantBudget(absl::string_view text) {
  absl::StatusOr<std::vector<absl::string_view>> lines = Lines(text, 4);
  if (!lines.ok()) return lines.status();
  if ((*lines)[0] != kParticipantHeader) {
    return LineError(
        1, absl::StrCat("expected header '", kParticipantHeader, "', got '", (*lines)[0], "'"));
  }
  absl::StatusOr<PrivacyBudget> budget = ParseBudget(2, (*lines)[1]);
  if (!budget.ok()) return budget.status();
  absl::StatusOr<PrivacyLedger> ledger = ParseBody(text, *lines, 2, /*legacy=*/false);
  if (!ledger.ok()) return ledger.status();
  absl::StatusOr<ParticipantBudget> participant =
      ParticipantBudget::Restore(*budget, *std::move(ledger));
  if (!participant.ok()) return LineError(2, participant.status().message());
  return participant;
}

}  // namespace fedmf::dp
