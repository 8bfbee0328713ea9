#!/usr/bin/env python3
"""Tables of docs/results/fmf.md from tools/experiments/fmf.sh's runs.csv.

    tools/experiments/fmf_summary.py [docs/results/fmf/runs.csv]

Test MSE (the paper's metric) and RMSE as mean +- sample standard deviation over seeds: the
baselines, the non-private reference, Fig. 4 per unit (rows: clipping methods, columns: epsilon,
0 = no noise) and the privacy figures of the embedding-clipping runs.
"""
import csv
import statistics
import sys
from collections import defaultdict

METHODS = ["embedding", "gradient-1", "gradient-10", "gradient-50"]
LABELS = {"embedding": "embedding clipping (Pi)", "gradient-1": "gradient clipping C = 1",
          "gradient-10": "gradient clipping C = 10", "gradient-50": "gradient clipping C = 50"}


def stats(values):
    if not values:
        return "-"
    mean = statistics.fmean(values)
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{mean:.3f} ± {std:.3f}"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "docs/results/fmf/runs.csv"
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    fig4 = defaultdict(list)
    lr = {}
    for r in rows:
        if r["group"] == "fig4":
            fig4[(r["unit"], r["method"], float(r["epsilon"]))].append(r)
            lr[(r["unit"], r["method"], float(r["epsilon"]))] = r["lr"]
    epsilons = sorted({k[2] for k in fig4})
    baselines = {m: [r for r in rows if r["group"] == "baselines" and r["method"] == m]
                 for m in ["global-mean", "user-mean", "popularity"]}

    def metric_table(unit, metric, head):
        """Rows: the clipping methods, then the baselines (the same in every column)."""
        print(f"| method | {head} |")
        print("|---|" + "---|" * len(epsilons))
        for m in METHODS:
            cells = [stats([float(r[metric]) for r in fig4.get((unit, m, e), [])])
                     for e in epsilons]
            print(f"| {LABELS[m]} | " + " | ".join(cells) + " |")
        for model, sel in baselines.items():
            cell = stats([float(r[metric]) for r in sel])
            print(f"| baseline: {model} | " + " | ".join([cell] * len(epsilons)) + " |")

    print("### Baselines and the non-private reference (test MSE, RMSE; mean ± std over seeds)\n")
    print("| model | seeds | test MSE | test RMSE |")
    print("|---|---|---|---|")
    for model in ["global-mean", "user-mean", "popularity"]:
        sel = [r for r in rows if r["group"] == "baselines" and r["method"] == model]
        print(f"| {model} | {len(sel)} | {stats([float(r['test_mse']) for r in sel])} | "
              f"{stats([float(r['test_rmse']) for r in sel])} |")
    long_runs = [r for r in rows if r["group"] == "reference"]
    if long_runs:
        print(f"| non-private SGD, embedding clipping, 10000 steps (lr {long_runs[0]['lr']}) | "
              f"{len(long_runs)} | {stats([float(r['test_mse']) for r in long_runs])} | "
              f"{stats([float(r['test_rmse']) for r in long_runs])} |")
    for unit in ["rating", "user"]:
        sel = fig4.get((unit, "embedding", 0.0), [])
        label = "all ratings" if unit == "rating" else "trimmed to theta = 10 per user"
        print(f"| non-private SGD, embedding clipping ({label}; lr {lr.get((unit, 'embedding', 0.0))})"
              f" | {len(sel)} | {stats([float(r['test_mse']) for r in sel])} | "
              f"{stats([float(r['test_rmse']) for r in sel])} |")

    for unit in ["rating", "user"]:
        title = "per rating" if unit == "rating" else "per user (theta = 10)"
        print(f"\n### Fig. 4, {title}: test MSE (mean ± std over seeds), (epsilon, 1e-5)-DP\n")
        head = " | ".join("no noise" if e == 0 else f"eps = {e:g}" for e in epsilons)
        metric_table(unit, "test_mse", head)
        print(f"\nTest RMSE, {title}:\n")
        metric_table(unit, "test_rmse", head)
        print(f"\nLearning rate chosen by the lowest training MSE on seed 1, {title}:\n")
        print(f"| method | {head} |")
        print("|---|" + "---|" * len(epsilons))
        for m in METHODS:
            print(f"| {LABELS[m]} | " + " | ".join(lr.get((unit, m, e), "-") for e in epsilons)
                  + " |")

    print("\n### Privacy of the embedding-clipping runs (seed 1; every run: 1000 noisy steps, "
          "eta = 0.01, delta = 1e-5)\n")
    print("| unit | epsilon budget | z | epsilon spent (ours, all steps) | Delta ours | "
          "Delta paper | c1 of Prop. 2 for our z |")
    print("|---|---|---|---|---|---|---|")
    for unit in ["rating", "user"]:
        for e in epsilons:
            if e == 0:
                continue
            sel = [r for r in fig4.get((unit, "embedding", e), []) if r["seed"] == "1"]
            if not sel:
                continue
            r = sel[0]
            print(f"| {unit} | {e:g} | {float(r['z']):.4f} | {float(r['epsilon_spent']):.4f} | "
                  f"{float(r['sensitivity']):.2f} | {float(r['paper_sensitivity']):.2f} | "
                  f"{float(r['paper_c1']):.3f} |")


if __name__ == "__main__":
    main()
