#!/usr/bin/env python3
"""The LFL-SGDMF dropout table and Fig. 2's communication table of docs/results/fmf.md.

Reads DIR/lfl_dropout.csv (tools/experiments/fmf_lfl.sh dropout) and DIR/comm.csv
(tools/experiments/fmf_comm.sh); a missing file's table is left out. Prints Markdown. (Fig. 10's
tables are `tools/experiments/run.py fmf --table`.)

  tools/experiments/fmf_lfl_summary.py [DIR]   (default docs/results/fmf)
"""
import csv
import os
import sys


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
    drop = read(os.path.join(directory, "lfl_dropout.csv"))
    comm = read(os.path.join(directory, "comm.csv"))
    for rows, fn in [(drop, dropout), (comm, communication)]:
        if rows:
            fn(rows)
            print()


if __name__ == "__main__":
    main()
