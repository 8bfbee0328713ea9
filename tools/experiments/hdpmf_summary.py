#!/usr/bin/env python3
"""Tables of docs/results/hdpmf.md from tools/experiments/hdpmf.sh's runs.csv.

usage: hdpmf_summary.py RUNS_CSV  (markdown on stdout)

Precision@10 (threshold 4) of the final evaluation is the CSV's p10 column.

MSE is the square of each run's test RMSE; mean +/- sample standard deviation over seeds. The
paired t-test (HDPMF vs PDPMF, same seeds) is one-sided, as the paper's Table 3 marks, in the
direction the data show.
"""
import collections
import csv
import math
import statistics
import sys

# Table 3 of the paper, ML-100K block: (MSE, MAE) per K.
PAPER = {
    "mf": {10: ("0.9269 ± 0.0042", "0.7617 ± 0.0015"),
           5: ("0.9231 ± 0.0065", "0.7609 ± 0.0031")},
    "hdpmf": {10: ("1.4690 ± 0.0369", "0.9356 ± 0.0124"),
              5: ("1.2257 ± 0.0187", "0.8606 ± 0.0045")},
    "pdpmf": {10: ("1.5623 ± 0.0244", "0.9664 ± 0.0057"),
              5: ("1.2475 ± 0.0214", "0.8715 ± 0.0078")},
    "dpmf": {10: ("4.9264 ± 0.3218", "1.8811 ± 0.0783"),
             5: ("4.4484 ± 0.2955", "1.7685 ± 0.0719")},
}
# One-sided critical values of Student's t at 90/95/99% for df = 1..9.
T_CRIT = {1: (3.078, 6.314, 31.821), 2: (1.886, 2.920, 6.965), 3: (1.638, 2.353, 4.541),
          4: (1.533, 2.132, 3.747), 5: (1.476, 2.015, 3.365), 6: (1.440, 1.943, 3.143),
          7: (1.415, 1.895, 2.998), 8: (1.397, 1.860, 2.896), 9: (1.383, 1.833, 2.821)}


def fmt(xs):
    if not xs:
        return "-"
    if len(xs) == 1:
        return f"{xs[0]:.4f}"
    return f"{statistics.mean(xs):.4f} ± {statistics.stdev(xs):.4f}"


def paired_t(a, b):
    """t statistic of mean(b - a) and its one-sided stars (*, **, ***: 90/95/99%) in the direction
    of its sign (t > 0: a lower; t < 0: b lower)."""
    d = [y - x for x, y in zip(a, b)]
    if len(d) < 2 or statistics.stdev(d) == 0:
        return None, ""
    t = statistics.mean(d) / (statistics.stdev(d) / math.sqrt(len(d)))
    crit = T_CRIT.get(len(d) - 1)
    stars = "" if crit is None else "*" * sum(abs(t) > c for c in crit)
    return t, stars


def main():
    runs = collections.defaultdict(dict)  # (group, name, rank) -> seed -> (mse, mae, p@10)
    for row in csv.DictReader(open(sys.argv[1])):
        if not row["rmse"]:
            continue
        rmse, mae = float(row["rmse"]), float(row["mae"])
        p10 = float(row["p10"]) if row.get("p10") else None
        runs[(row["group"], row["name"], int(row["rank"]))][int(row["seed"])] = (rmse * rmse, mae,
                                                                                 p10)

    def metric(key, i):
        return [v[i] for _, v in sorted(runs.get(key, {}).items()) if v[i] is not None]

    ranks = sorted({k[2] for k in runs if k[0] == "table3" and k[2] > 0}, reverse=True)
    print("### Table 3, ML-100K, paper mode\n")
    print("| method | K | MSE (ours) | MSE (paper) | MAE (ours) | MAE (paper) | P@10 (ours) | seeds |")
    print("|---|---|---|---|---|---|---|---|")
    for rank in ranks:
        for name in ("mf", "hdpmf", "pdpmf", "dpmf"):
            key = ("table3", name, rank)
            if key not in runs:
                continue
            paper = PAPER.get(name, {}).get(rank, ("-", "-"))
            print(f"| {name} | {rank} | {fmt(metric(key, 0))} | {paper[0]} | {fmt(metric(key, 1))} "
                  f"| {paper[1]} | {fmt(metric(key, 2))} | {len(runs[key])} |")
    for name in ("global-mean", "user-mean", "popularity"):
        key = ("table3", name, 0)
        if key in runs:
            print(f"| {name} (fedmf-central) | - | {fmt(metric(key, 0))} | - | "
                  f"{fmt(metric(key, 1))} | - | {fmt(metric(key, 2))} | {len(runs[key])} |")
    print()
    for rank in ranks:
        h, p = runs.get(("table3", "hdpmf", rank), {}), runs.get(("table3", "pdpmf", rank), {})
        seeds = sorted(set(h) & set(p))
        for i, label in ((0, "MSE"), (1, "MAE")):
            t, stars = paired_t([h[s][i] for s in seeds], [p[s][i] for s in seeds])
            if t is not None:
                lower = "HDPMF" if t > 0 else "PDPMF"
                print(f"- K = {rank}, {label}: paired t (PDPMF - HDPMF, {len(seeds)} seeds) = "
                      f"{t:.2f}: {lower} lower, " + (
                          f"significant at {('90', '95', '99')[len(stars) - 1]}% (one-sided)"
                          if stars else "not significant at 90%"))
    print()
    ablation = [r for r in ranks if ("table3", "hdpmf-r", r) in runs]
    if ablation:
        print("### Fig. 8 ablation: MSE on the seeds HDPMF-R ran\n")
        names = ("hdpmf", "hdpmf-r", "dpmf", "pdpmf", "mf")
        print("| K | seeds | " + " | ".join(n.upper() for n in names) + " |")
        print("|---|---|" + "---|" * len(names))
        for rank in ablation:
            seeds = sorted(runs[("table3", "hdpmf-r", rank)])
            cells = [fmt([runs[("table3", n, rank)][s][0] for s in seeds
                          if s in runs.get(("table3", n, rank), {})]) for n in names]
            print(f"| {rank} | {', '.join(map(str, seeds))} | " + " | ".join(cells) + " |")
        print()
    sound = sorted(k for k in runs if k[0] == "sound")
    if sound:
        print("### Sound mode\n")
        print("| method | K | MSE | MAE | P@10 | seeds |")
        print("|---|---|---|---|---|---|")
        for key in sound:
            print(f"| {key[1]} | {key[2]} | {fmt(metric(key, 0))} | {fmt(metric(key, 1))} | "
                  f"{fmt(metric(key, 2))} | {len(runs[key])} |")
        print()
    for group, label in (("fuc", "f_uc"), ("euc", "eps_uc")):
        keys = [k for k in runs if k[0] == group]
        for rank in sorted({k[2] for k in keys}, reverse=True):
            values = sorted({k[1].split(group)[1] for k in keys if k[2] == rank}, key=float)
            print(f"### MSE vs {label} (K = {rank}, seed 1)\n")
            print(f"| {label} | HDPMF MSE | PDPMF MSE | (PDPMF - HDPMF) / PDPMF |")
            print("|---|---|---|---|")
            for v in values:
                h = metric((group, f"hdpmf-{group}{v}", rank), 0)
                p = metric((group, f"pdpmf-{group}{v}", rank), 0)
                gap = f"{100 * (p[0] - h[0]) / p[0]:.1f}%" if h and p else "-"
                print(f"| {v} | {fmt(h)} | {fmt(p)} | {gap} |")
            print()
    sparsity = sorted({k[0] for k in runs if k[0].startswith("sparsity")},
                      key=lambda g: float(g[len("sparsity"):]))
    for rank in sorted({k[2] for k in runs if k[0] in sparsity and k[2] > 0}, reverse=True):
        print(f"### MSE vs training fraction (leave-one-out, K = {rank}, seed 1)\n")
        print("| fraction | MF | HDPMF | PDPMF | user mean | item popularity |")
        print("|---|---|---|---|---|---|")
        for g in sparsity:
            cells = [fmt(metric((g, name, rank), 0)) for name in ("mf", "hdpmf", "pdpmf")]
            cells += [fmt(metric((g, name, 0), 0)) for name in ("user-mean", "popularity")]
            print(f"| {g[len('sparsity'):]} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
