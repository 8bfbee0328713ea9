#!/usr/bin/env python3
"""The VFL-SGDMF tables of docs/results/fmf.md (Figs. 6-7) from tools/experiments/fmf.sh's vfl.csv,
next to the baselines and the central run (s = 1) of runs.csv.

    tools/experiments/fmf_vfl_summary.py [docs/results/fmf/vfl.csv] [docs/results/fmf/runs.csv]
                                         [docs/results/fmf/vfl_privacy.csv]

Test MSE and RMSE as mean +- sample standard deviation over seeds, one row per setting
(partition, s, T x T'), one column per epsilon; then each setting's privacy figures (seed 1), and
the per-user accounting (fmf.sh vfl-privacy): ours next to the paper's Theorem 4.
"""
import csv
import sys
from collections import defaultdict

from fmf_summary import stats


def label(partition, s, t, tp, group):
    split = "genres" if partition == "vfl-genre" else "random"
    if group == "vfl-local-only":
        return f"local-only (each party alone, T T' = {t * tp} steps), {split}, s = {s}"
    return f"VFL-SGDMF, {split}, s = {s}, (T, T') = ({t}, {tp})"


def main():
    vfl_path = sys.argv[1] if len(sys.argv) > 1 else "docs/results/fmf/vfl.csv"
    runs_path = sys.argv[2] if len(sys.argv) > 2 else "docs/results/fmf/runs.csv"
    privacy_path = sys.argv[3] if len(sys.argv) > 3 else "docs/results/fmf/vfl_privacy.csv"
    with open(vfl_path, newline="") as f:
        vfl = list(csv.DictReader(f))
    with open(runs_path, newline="") as f:
        runs = list(csv.DictReader(f))
    by_setting = defaultdict(list)
    for r in vfl:
        key = (r["partition"], int(r["parties"]), int(r["T"]), int(r["Tp"]), r["unit"], r["group"])
        by_setting[key].append(r)
    epsilons = sorted({float(r["epsilon"]) for r in vfl})
    head = " | ".join("no noise" if e == 0 else f"eps = {e:g}" for e in epsilons)

    def row(label, selected, metric):
        cells = [stats([float(r[metric]) for r in selected if float(r["epsilon"]) == e])
                 for e in epsilons]
        print(f"| {label} | " + " | ".join(cells) + " |")

    for metric, name in (("test_mse", "test MSE"), ("test_rmse", "test RMSE")):
        print(f"\n### VFL-SGDMF per rating: {name} (mean ± std over seeds), (epsilon, 1e-5)-DP\n")
        print(f"| setting | {head} |")
        print("|---|" + "---|" * len(epsilons))
        for (partition, s, t, tp, unit, group), selected in sorted(by_setting.items()):
            row(label(partition, s, t, tp, group), selected, metric)
        central = [r for r in runs if r["group"] == "fig4" and r["method"] == "embedding"
                   and r["unit"] == "rating"]
        row("central DP-SGD, s = 1 (Fig. 4 runs)", central, metric)
        for model in ("global-mean", "user-mean", "popularity"):
            sel = [r for r in runs if r["group"] == "baselines" and r["method"] == model]
            cell = stats([float(r[metric]) for r in sel])
            print(f"| baseline: {model} | " + " | ".join([cell] * len(epsilons)) + " |")

    print("\n### Privacy of the VFL runs (seed 1): ours (every step composed) and the paper's\n")
    print("| setting | epsilon budget | lr | z | epsilon ours | epsilon paper (Thm. 3) | "
          "seconds per run |")
    print("|---|---|---|---|---|---|---|")
    for (partition, s, t, tp, unit, group), selected in sorted(by_setting.items()):
        for r in selected:
            if r["seed"] != "1":
                continue
            kind = "local-only " if group == "vfl-local-only" else ""
            print(f"| {kind}{partition} s = {s} ({t}, {tp}) | {r['epsilon']} | {r['lr']} | {r['z']} | "
                  f"{r['epsilon_ours'] or '-'} | {r['epsilon_paper'] or '-'} | "
                  f"{float(r['run_s']):.0f} |")


    with open(privacy_path, newline="") as f:
        privacy = list(csv.DictReader(f))
    budgets = sorted({float(r["epsilon"]) for r in privacy})
    print("\n### Per-user privacy of VFL-SGDMF: the paper's Theorem 4 at our calibrated z\n")
    print("z is calibrated so that our composition of all s (T T' + kappa) = s 1000 steps spends "
          "exactly the budget; the paper's column is sqrt(s) times one party's epsilon at that z.\n")
    print("| s | " + " | ".join(f"eps = {e:g}: z, paper" for e in budgets) + " |")
    print("|---|" + "---|" * len(budgets))
    for s in sorted({int(r["parties"]) for r in privacy}):
        cells = []
        for e in budgets:
            sel = [r for r in privacy if int(r["parties"]) == s and float(r["epsilon"]) == e]
            cells.append(f"{float(sel[0]['z']):.3f}, {float(sel[0]['epsilon_paper']):.3f}"
                         if sel else "-")
        print(f"| {s} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
