#!/usr/bin/python3
# Numeric study for issue 50 item 2: can a matrix-factorization (correlated-noise) mechanism lower
# the noise of DPMF-RP's T rounds at the same whole-run user-level privacy? Needs python3 with
# numpy and scipy (Debian: apt-get install python3-numpy python3-scipy; run it with /usr/bin/python3
# if another python3 comes first on PATH). Not run by CI. Prints the tables of
# docs/results/privacy-utility.md, section "Correlated noise across rounds".
#
# Model (Denisov et al. 2022; Choquette-Choo et al. 2023): round t releases the sum x_t of the
# clipped contributions (one user's change of x_t has L2 norm <= 1 here; DPMF-RP's 2(C + ...)
# scales every row alike) plus noise (C^-1 z)_t, z ~ N(0, s^2 I): the server sees C^-1 (C x + z),
# and the workload that matters for the model is the prefix sums A x (A lower-triangular ones;
# Adam's step adds up the noisy sums). Its error is s^2 ||A C^-1||_F^2 per coordinate and the run
# is ONE Gaussian mechanism whose sensitivity^2 is the largest ||sum_t C[:, t] g_t||^2 over the
# sequences a user may change (||g_t|| <= 1 in the rounds it takes part in, 0 elsewhere).
# For X = C^T C with non-negative entries that is max over participation patterns P of
# 1_P^T X 1_P (all g_t equal); every C below has non-negative entries, which is checked.
# loss(C) = sens(C)^2 ||A C^-1||_F^2 is the total squared error at unit noise multiplier, so
# at equal privacy the variance ratio of two mechanisms is the ratio of their losses.
#
# Regimes: full participation (every user every round, DPMF-RP's default options) and cyclic
# participation (users in b fixed groups, group j in rounds t = j mod b, T/b participations each).
# A cyclic round sums n/b users, so the server's n/contributors rescaling multiplies its noise by
# b: the "normalized" column is b^2 loss, comparable with full participation. The triangle
# inequality gives sens_full(C) <= b sens_cyclic(C) for every C, so normalized cyclic loss is never
# below full participation's for the same C: cyclic can only help when it buys more rounds.
# For full participation the optimum over ALL factorizations (any C, true sensitivity
# sup over G in the elliptope of <X, G>) is, by minimax, max over correlation matrices G of
# (tr (A G A^T)^(1/2))^2: any G gives a lower bound, printed as "bound".
import math
import sys

import numpy as np
from scipy import optimize

ORDERS = ([1.05, 1.1, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75, 4.0, 4.5, 5.0,
           5.5, 6.0, 6.5, 7.0, 7.5] + list(range(8, 65)) + [72, 80, 96, 112, 128, 160, 192, 256,
                                                           384, 512, 1024])


def epsilon(z, delta):
    """(eps, delta) of one Gaussian mechanism with noise multiplier z: RDP alpha/(2 z^2) converted
    as common/dp/dp_conversion.h's EpsilonImproved (Balle et al. 2020, Thm. 21), same orders."""
    return min(max(0.0, a / (2 * z * z) + math.log((a - 1) / a) - (math.log(delta) + math.log(a)) /
                   (a - 1)) for a in ORDERS)


def whole_run_multiplier(eps, delta):
    """Smallest z (noise std / sensitivity of the whole run) with epsilon(z) <= eps."""
    return optimize.brentq(lambda z: epsilon(z, delta) - eps, 1e-3, 1e4, xtol=1e-10)


def patterns(T, b):
    return [np.arange(j, T, b) for j in range(b)]


def sens2(C, pats):
    X = C.T @ C
    assert X.min() >= -1e-12, "X has a negative entry: max over patterns is not the sensitivity"
    return max(X[np.ix_(P, P)].sum() for P in pats)


def loss(C, A, pats):
    return sens2(C, pats) * np.linalg.norm(A @ np.linalg.inv(C), "fro") ** 2


def sqrt_factor(T):
    """C = A^(1/2): lower-triangular Toeplitz with c_j = binom(2j, j) / 4^j."""
    c = np.ones(T)
    for j in range(1, T):
        c[j] = c[j - 1] * (2 * j - 1) / (2 * j)
    return sum(np.diag(np.full(T - j, c[j]), -j) for j in range(T))


def best_diagonal(T, pats):
    """The best C = diag(sqrt(x)) (closed form): with w_t = ||A e_t||^2 = T - t + 1 and each
    pattern's x summing to at most 1, loss = sum_j (sum_{t in P_j} w_t / x_t) is minimized pattern
    by pattern at x_t = sqrt(w_t) / sum_{s in P_j} sqrt(w_s)."""
    w = np.arange(T, 0, -1.0)
    x = np.sqrt(w)
    for P in pats:
        x[P] /= np.sqrt(w[P]).sum()
    return np.diag(np.sqrt(x))


def optimize_dense(T, A, pats, start):
    """Lower-triangular C with entries theta^2 >= 0 (so X >= 0), minimizing log loss with a
    smooth maximum (log-sum-exp, temperature tau) over the patterns; L-BFGS from `start`."""
    rows, cols = np.tril_indices(T)
    M = A.T @ A
    tau = 200.0

    def f(theta):
        C = np.zeros((T, T))
        C[rows, cols] = theta ** 2
        Ci = np.linalg.inv(C)
        frob = np.trace(Ci.T @ M @ Ci)
        gfro = -2 * (Ci @ Ci.T @ M @ Ci).T  # d tr(Ci^T M Ci) = -2 tr(Ci Ci^T M Ci dC)
        s = np.array([np.sum(C[:, P].sum(axis=1) ** 2) for P in pats])
        m = s.max()
        wts = np.exp(tau * (s / m - 1))
        smax = m * (1 + np.log(wts.sum()) / tau)
        gs = np.zeros((T, T))
        for wt, P in zip(wts / wts.sum(), pats):
            v = C[:, P].sum(axis=1)
            gs[:, P] += 2 * wt * v[:, None]
        g = gfro / frob + gs / smax
        return math.log(frob) + math.log(smax), g[rows, cols] * 2 * theta

    theta0 = np.sqrt(np.maximum(start[rows, cols], 0) + 1e-6)
    res = optimize.minimize(f, theta0, jac=True, method="L-BFGS-B",
                            options={"maxiter": 3000, "maxfun": 6000})
    C = np.zeros((T, T))
    C[rows, cols] = res.x ** 2
    return C


def full_lower_bound(A, T, iters=3000):
    """max over correlation matrices G (unit diagonal) of (tr (A G A^T)^(1/2))^2: a concave
    maximization, by projected gradient ascent on G = V V^T with unit rows (Burer-Monteiro).
    Any G gives a valid lower bound on every factorization's loss under full participation."""
    rng = np.random.default_rng(1)
    V = np.ones((T, T)) + 0.3 * rng.standard_normal((T, T))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    best = 0.0
    step = 0.05
    for _ in range(iters):
        w, U = np.linalg.eigh(A @ V @ V.T @ A.T)
        w = np.maximum(w, 1e-12)
        val = np.sqrt(w).sum() ** 2
        best = max(best, val)
        grad_G = 0.5 * A.T @ (U / np.sqrt(w)) @ U.T @ A
        V = V + step * grad_G @ V / np.abs(grad_G).max()
        V /= np.linalg.norm(V, axis=1, keepdims=True)
    return best


def main():
    ts = [int(a) for a in sys.argv[1:]] or [20, 50, 100]
    z5 = whole_run_multiplier(5, 1e-5)
    z1 = whole_run_multiplier(1, 1e-5)
    print(f"whole-run Gaussian noise multiplier (std / whole-run sensitivity): "
          f"(5, 1e-5): {z5:.4f}  (1, 1e-5): {z1:.4f}")
    print("z(eps)_rms: root mean square over the rounds of the noise multiplier of one round's sum "
          "(its noise std over one round's L2 sensitivity) at whole-run (eps, 1e-5); for identity "
          "under full participation it is the constant multiplier DPMF-RP calibrates now")
    print()
    print("T   regime       mechanism   loss/identity_full  normalized  z(5)_rms  z(1)_rms  minX")
    for T in ts:
        A = np.tril(np.ones((T, T)))
        ident_full = T * T * (T + 1) / 2
        for b in [1, 2, 4, 10]:
            pats = patterns(T, b)
            cands = {"identity": np.eye(T), "diagonal": best_diagonal(T, pats)}
            if b == 1:
                cands["sqrt"] = sqrt_factor(T)
            cands["dense-opt"] = optimize_dense(T, A, pats, cands["diagonal"])
            for name, C in cands.items():
                L = loss(C, A, pats)
                s = math.sqrt(sens2(C, pats))
                # injected noise of round t: (C^-1 z)_t with z std sigma = z_run * s
                row = np.linalg.norm(np.linalg.inv(C), axis=1)
                rms = math.sqrt(np.mean(row ** 2)) * s
                minx = (C.T @ C).min()
                regime = "full" if b == 1 else f"cyclic b={b}"
                print(f"{T:<3} {regime:<12} {name:<11} {L / ident_full:18.4f} "
                      f"{b * b * L / ident_full:11.4f} {z5 * rms:9.3f} {z1 * rms:9.3f} "
                      f"{minx:8.1e}")
        lb = full_lower_bound(A, T)
        print(f"{T:<3} full         bound(any C) {lb / ident_full:17.4f}")
        print()
    print("More rounds for the same work: each user still takes part k = T times, but the run has")
    print("b T rounds of n/b users (cyclic, step size / b so an epoch moves the model as one full")
    print("round did). Normalized = loss / b (prefix sums at every round, weighted 1/b) against")
    print("full participation's identity over T rounds.")
    print("k   b   mechanism   normalized")
    for T in [t for t in ts if t <= 20] or [20]:
        ident_full = T * T * (T + 1) / 2
        for b in [2, 4]:
            R = b * T
            A = np.tril(np.ones((R, R)))
            pats = patterns(R, b)
            cands = {"identity": np.eye(R), "sqrt": sqrt_factor(R)}
            cands["dense-opt"] = optimize_dense(R, A, pats, cands["sqrt"])
            for name, C in cands.items():
                print(f"{T:<3} {b:<3} {name:<11} {loss(C, A, pats) / b / ident_full:10.4f}")


if __name__ == "__main__":
    main()
