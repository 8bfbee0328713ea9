#!/usr/bin/env python3
"""The LFL-SGDMF tables of docs/results/fmf.md (Fig. 10, dropouts, Fig. 2's communication).

Reads DIR/lfl.csv (tools/experiments/fmf_lfl.sh: baselines, tune, fig10), DIR/lfl_dropout.csv
(its dropout group) and DIR/comm.csv (tools/experiments/fmf_comm.sh); a missing file's tables
are left out. Prints Markdown.

  tools/experiments/fmf_lfl_summary.py [DIR]   (default docs/results/fmf)
"""
import csv
import os
import sys

from tables import mean_std3

EPSILONS = ["0.5", "1", "2", "5"]
BASELINES = [("global-mean", "global-mean"), ("user-mean", "user-mean"),
             ("popularity", "popularity (item mean)")]
# ML-100K and the paper's p; the paper's Fig. 2 dataset (ML10M) for its byte figures.
N_USERS, N_ITEMS, RANK = 943, 1682, 20
PAPER_N, PAPER_M, PAPER_VFL_MB, PAPER_MP_MB = 69878, 10677, 5.6, 1.7


def read(path):
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def mses(rows, group, method, eps=None, seeds=None):
    return [float(r["test_mse"]) for r in rows if r["group"] == group and r["method"] == method
            and (eps is None or r["epsilon"] == eps) and (seeds is None or r["seed"] in seeds)
            and r["test_mse"]]


def chosen_lr(rows, method, eps):
    tune = [r for r in rows if r["group"] == "tune" and r["method"] == method and r["epsilon"] == eps]
    return min(tune, key=lambda r: float(r["test_mse"]))["lr"] if tune else "-"


def complete_seeds(rows):
    """The seeds with every Fig. 10 run (a run stopped midway leaves a seed incomplete)."""
    wanted = {("stage1-only", "0"), ("lfl-none", "0")} | {
        (m, e) for m in ("lfl-sgdmf", "gd-dr") for e in EPSILONS}
    runs = {}
    for r in rows:
        if r["group"] == "fig10":
            runs.setdefault(r["seed"], set()).add((r["method"], r["epsilon"]))
    return sorted(seed for seed, have in runs.items() if wanted <= have)


def fig10(rows):
    seeds = complete_seeds(rows)
    rows = [r for r in rows if r["group"] != "fig10" or r["seed"] in seeds]
    print(f"### Fig. 10 on ML-100K: test MSE (mean ± std over seeds {', '.join(seeds)}), "
          "(epsilon, 1e-5)-DP per user\n")
    out = []
    for method, label in [("stage1-only", "LFL stage 1 only (V_0, no federated phase)"),
                          ("lfl-sgdmf", "LFL-SGDMF, two-phase, omega 0.3, T = 10"),
                          ("gd-dr", "GD-DR (eps-LDP, k = 10)")]:
        if method == "stage1-only":
            cells = [mean_std3(mses(rows, "fig10", method))] * len(EPSILONS)
        else:
            cells = [mean_std3(mses(rows, "fig10", method, e)) for e in EPSILONS]
        out.append([label] + cells)
    none = mean_std3(mses(rows, "fig10", "lfl-none"))
    out.append([f"LFL-SGDMF non-private (lr {chosen_lr(rows, 'lfl-none', '0')}), T = 10"] +
               [none] * len(EPSILONS))
    for model, label in BASELINES:
        out.append([f"baseline: {label}"] +
                   [mean_std3(mses(rows, "baselines", model, seeds=seeds))] * len(EPSILONS))
    print(table(["method"] + [f"eps = {e}" for e in EPSILONS], out))
    print("\nLearning rate of LFL-SGDMF chosen on seed 1 (lowest test MSE; seed 1 is not in the "
          "table above), and seed 1's test MSE at each rate:\n")
    lrs = sorted({r["lr"] for r in rows if r["group"] == "tune" and r["method"] == "lfl-sgdmf"},
                 key=float)
    tune_rows = []
    for e in EPSILONS:
        cells = []
        for lr in lrs:
            v = [float(r["test_mse"]) for r in rows if r["group"] == "tune" and
                 r["method"] == "lfl-sgdmf" and r["epsilon"] == e and r["lr"] == lr]
            cells.append(f"{v[0]:.4f}" if v else "-")
        tune_rows.append([e, chosen_lr(rows, "lfl-sgdmf", e)] + cells)
    none_lrs = sorted({r["lr"] for r in rows if r["group"] == "tune" and r["method"] == "lfl-none"},
                      key=float)
    print(table(["epsilon", "chosen"] + [f"lr {lr}" for lr in lrs], tune_rows))
    print("\nNon-private LFL on seed 1: " + ", ".join(
        f"lr {lr}: {float(r['test_mse']):.4f}" for lr in none_lrs for r in rows
        if r["group"] == "tune" and r["method"] == "lfl-none" and r["lr"] == lr) + ".")
    print("\nPrivacy of the LFL-SGDMF runs (seed 2): sigma of the sum and the ledger's epsilon\n")
    priv = []
    for e in EPSILONS:
        r = [r for r in rows if r["group"] == "fig10" and r["method"] == "lfl-sgdmf" and
             r["epsilon"] == e]
        if r:
            priv.append([e, f"{float(r[0]['noise_std']):.1f}", r[0]["epsilon_spent"]])
    print(table(["budget", "sigma (per coordinate of the sum)", "epsilon spent (ledger)"], priv))


def dropout(rows):
    print("### Dropouts in real processes: LFL-SGDMF at (1, 1e-5), cohort 94 of 943, 3 rounds, "
          "seed 1\n")
    # drop_phase "all": a user drops out of its whole round, so the losses fall in phase 0.
    lost_in = {"all": "0", "0": "0", "1": "1"}
    out = []
    for r in rows:
        out.append([r["mode"], r["omega"], r["dropout"], lost_in[r["drop_phase"]], r["status"],
                    r["n_min"], f"{r['rounds_applied']} / {r['attempts_failed']}", r["mean_n1"],
                    r["mean_n2"] or "-", f"{float(r['test_mse']):.4f}" if r["test_mse"] else "-",
                    r["epsilon_spent"] or "-"])
    print(table(["noise", "omega", "dropout D", "phase losing users", "run", "n_min",
                 "rounds applied / failed attempts", "mean n_1", "mean n_2", "test MSE",
                 "epsilon (ledger)"], out))


def communication(rows):
    print("### Communication per sync per party (Fig. 2): measured on ML-100K against the "
          "paper's formulas\n")
    n_p, m_p = N_USERS * RANK, N_ITEMS * RANK
    out = []
    order = ["vfl-sgdmf", "hfl-sgdmf", "lfl-sgdmf"]  # fmf_comm.sh appends re-measured rows last
    for r in sorted(rows, key=lambda r: order.index(r["algorithm"])):
        values = int(r["length"])
        if r["algorithm"] == "vfl-sgdmf":
            formula = f"n p = {n_p}" if values == n_p else "- (last round: the test-error sum)"
        elif r["algorithm"] == "hfl-sgdmf":
            formula = f"m p = {m_p}" if values == m_p else "- (last round: the test-error sums)"
        else:
            formula = f"m p + O(log n) = {m_p} + O(log n)"
        out.append([r["algorithm"], r["parties"], r["phase"], formula,
                    f"{values} x {r['bits']} bits", r["up_masked_input"],
                    f"{int(r['up_masked_input']) / values:.2f}", r["up_total"], r["down_task"],
                    r["down_total"]])
    print(table(["algorithm", "parties in the sync", "phase", "paper's formula (values)",
                 "measured vector", "up: masked input (bytes)", "bytes per value",
                 "up: all stages", "down: plan (bytes)", "down: all stages"], out))
    print(f"\nThe paper's Fig. 2 figures on ML10M (n = {PAPER_N}, m = {PAPER_M}, p = 20): VFL "
          f"{PAPER_VFL_MB} MB = {PAPER_VFL_MB * 1e6 / (PAPER_N * RANK):.1f} bytes per value of n p; "
          f"HFL and each LFL phase {PAPER_MP_MB} MB = "
          f"{PAPER_MP_MB * 1e6 / (PAPER_M * RANK):.1f} bytes per value of m p.")


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else "docs/results/fmf"
    lfl = read(os.path.join(directory, "lfl.csv"))
    drop = read(os.path.join(directory, "lfl_dropout.csv"))
    comm = read(os.path.join(directory, "comm.csv"))
    for rows, fn in [(lfl, fig10), (drop, dropout), (comm, communication)]:
        if rows:
            fn(rows)
            print()


if __name__ == "__main__":
    main()
