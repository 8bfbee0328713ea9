// Chooses the neighbor graph (degree k) and Shamir threshold t of a SecAgg session from the
// number of clients n, the fraction of clients that may drop out (delta) and that may be corrupt
// (gamma, colluding with the server), for a stated statistical security.
//
// Model (after Bell et al., CCS 2020, Section 3 and Appendix on concrete parameters): C =
// floor(gamma n) corrupt and D = floor(delta n) dropped clients, chosen independently of the
// random ring order of the Harary graph H(k, n); the holders of client u's secrets are its closed
// neighborhood N[u] (k + 1 clients). The failure probabilities, each bounded by a union bound:
//  * privacy (P1): the graph minus corrupt and dropped clients is disconnected (the server would
//    learn partial sums). In H(k, n) that needs two disjoint, non-adjacent runs of k/2 removed
//    ring positions: P1 <= n (n - k - 1) / 2 * [B]_k / [n]_k, B = C + D, [x]_k = x!/(x-k)!.
//  * privacy (P2): an honest client has A > a_max corrupt neighbors, A ~ Hypergeometric(n - 1,
//    C, k): P2 <= n * P[A > a_max]. a_max = t - 1 against a semi-honest server; against a server
//    that lies about dropouts (each honest holder reveals at most one of the two shares of u, and
//    u never its own key share) a_max = min(t - 1, 2t - k - 2), i.e. 2t > k + 1 + A.
//  * correctness (C1): a client has fewer than t live neighbors, the number of dropped neighbors
//    X ~ Hypergeometric(n - 1, D, k): C1 <= n * P[X > k - t].
// Requirement: P1 <= 2^-(sigma+1), P2 <= 2^-(sigma+1) (so privacy fails w.p. <= 2^-sigma) and
// C1 <= 2^-eta. The finder returns the smallest even k with some t meeting all three, and the
// smallest such t. All probabilities are summed in log space from lgamma, so tails far below
// 2^-1000 are still exact to double precision. If no k < n - 1 works it returns the complete
// graph with t = n - D (the largest t tolerating D dropouts), provided t > C (semi-honest) or
// 2t > n + C (lying server: two sets of t revealing clients must share an honest one, as in
// Bonawitz et al.'s active-security analysis).
#ifndef FEDMF_CRYPTO_SECAGG_PARAMETER_FINDER_H_
#define FEDMF_CRYPTO_SECAGG_PARAMETER_FINDER_H_

#include "absl/status/statusor.h"
#include "crypto/secagg/config.h"

namespace fedmf::secagg {

enum class ThreatModel {
  kSemiHonest,       // the server follows the protocol; corrupt clients share their state with it
  kMaliciousServer,  // the server may also lie to clients about who dropped out
};

struct ParameterRequirements {
  int num_clients = 0;           // n >= 2
  double corrupt_fraction = 0;   // gamma in [0, 1)
  double dropout_fraction = 0;   // delta in [0, 1), gamma + delta < 1
  double security_bits = 40;     // sigma: privacy fails w.p. <= 2^-sigma
  double correctness_bits = 40;  // eta: the protocol aborts for lack of shares w.p. <= 2^-eta
  ThreatModel threat = ThreatModel::kSemiHonest;
};

struct GraphParameters {
  GraphKind graph = GraphKind::kComplete;
  int degree = 0;     // k (Harary), 0 for the complete graph
  int threshold = 0;  // t
  // log2 of the bounds above for the chosen (k, t) (-infinity when the event is impossible).
  double log2_privacy_failure = 0;
  double log2_correctness_failure = 0;
};

// kInvalidArgument for out-of-range requirements, kNotFound if even the complete graph cannot meet
// them (e.g. corrupt + dropped clients leave no valid threshold).
absl::StatusOr<GraphParameters> FindGraphParameters(const ParameterRequirements& requirements);

// ln P[X > a] for X ~ Hypergeometric(population, successes, draws) (-infinity if impossible).
double LogHypergeometricTail(int population, int successes, int draws, int a);

// ln of the bound P1 above for H(k, n) with `removed` clients removed.
double LogHararyDisconnectionBound(int n, int degree, int removed);

}  // namespace fedmf::secagg

#endif  // FEDMF_CRYPTO_SECAGG_PARAMETER_FINDER_H_
