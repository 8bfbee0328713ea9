#!/usr/bin/env python3
"""The VFL-SGDMF tables of docs/results/fmf.md (Figs. 6-7) from tools/experiments/fmf.sh's vfl.csv,
next to the baselines and the central run (s = 1) of runs.csv (run.py fmf).

    tools/experiments/fmf_vfl_summary.py [docs/results/fmf/vfl.csv] [docs/results/fmf/runs.csv]
                                         [docs/results/fmf/vfl_privacy.csv]

Test MSE and RMSE as mean +- sample standard deviation over seeds, one row per setting
(partition, s, T x T'), one column per epsilon; then each setting's privacy figures (seed 1), and
the per-user accounting (fmf.sh vfl-privacy): ours next to the paper's Theorem 4.
"""
import csv
import sys
from collections import defaultdict

import results
from tables import fmf_runs, mean_std3


def label(partition, s, t, tp, group, lrs=None):
    split = "genres" if partition == "vfl-genre" else "random"
    rate = f", lr {lrs} tuned at s = {s}" if group.endswith("-tuned") else ""
    if group.startswith("vfl-local-only"):
        return f"local-only (each party alone, T T' = {t * tp} steps), {split}, s = {s}{rate}"
    return f"VFL-SGDMF, {split}, s = {s}, (T, T') = ({t}, {tp}){rate}"


def tuned_rates(vfl):
    """{(tune group, partition, s, T, T', epsilon): the rate with the lowest train MSE} (fmf.sh's
    rule: the rate is tuned per setting and budget)."""
    best = {}
    for r in vfl:
        if not r["group"].endswith("-tune") or r["train_mse"] in ("", "nan"):
            continue
        key = (r["group"], r["partition"], r["parties"], r["T"], r["Tp"], r["epsilon"])
        if key not in best or float(r["train_mse"]) < best[key][0]:
            best[key] = (float(r["train_mse"]), r["lr"])
    return {k: lr for k, (_, lr) in best.items()}


def main():
    vfl_path = sys.argv[1] if len(sys.argv) > 1 else "docs/results/fmf/vfl.csv"
    runs_path = sys.argv[2] if len(sys.argv) > 2 else "docs/results/fmf/runs.csv"
    privacy_path = sys.argv[3] if len(sys.argv) > 3 else "docs/results/fmf/vfl_privacy.csv"
    with open(vfl_path, newline="") as f:
        rows = list(csv.DictReader(f))
    rates = tuned_rates(rows)
    tune = [r for r in rows if r["group"].endswith("-tune")]
    # A tuned run counts only at the rate its tuning chose at its budget (a wider grid, or an
    # earlier tuning at another budget, may have run it at another rate).
    vfl = [r for r in rows if not r["group"].endswith("-tune") and (
        not r["group"].endswith("-tuned") or
        r["lr"] == rates.get((r["group"][:-1], r["partition"], r["parties"], r["T"], r["Tp"],
                              r["epsilon"])))]
    runs = fmf_runs(results.read(runs_path))
    by_setting = defaultdict(list)
    for r in vfl:
        key = (r["partition"], int(r["parties"]), int(r["T"]), int(r["Tp"]), r["unit"], r["group"])
        by_setting[key].append(r)
    epsilons = sorted({float(r["epsilon"]) for r in vfl})

    def rates_by_budget(selected):  # "0.003 / 0.01 / ...": a tuned row's rate at each budget
        return " / ".join(next((r["lr"] for r in selected if float(r["epsilon"]) == e), "-")
                          for e in epsilons)
    head = " | ".join("no noise" if e == 0 else f"eps = {e:g}" for e in epsilons)

    def row(label, selected, metric):
        cells = [mean_std3([float(r[metric]) for r in selected if float(r["epsilon"]) == e])
                 for e in epsilons]
        print(f"| {label} | " + " | ".join(cells) + " |")

    for metric, name in (("test_mse", "test MSE"), ("test_rmse", "test RMSE")):
        print(f"\n### VFL-SGDMF per rating: {name} (mean ± std over seeds), (epsilon, 1e-5)-DP\n")
        print(f"| setting | {head} |")
        print("|---|" + "---|" * len(epsilons))
        for (partition, s, t, tp, unit, group), selected in sorted(by_setting.items()):
            row(label(partition, s, t, tp, group, rates_by_budget(selected)), selected, metric)
        central = [r for r in runs if r["group"] == "fig4" and r["method"] == "embedding"
                   and r["unit"] == "rating"]
        row("central DP-SGD, s = 1 (Fig. 4 runs)", central, metric)
        for model in ("global-mean", "user-mean", "popularity"):
            sel = [r for r in runs if r["group"] == "baselines" and r["method"] == model]
            cell = mean_std3([float(r[metric]) for r in sel])
            print(f"| baseline: {model} | " + " | ".join([cell] * len(epsilons)) + " |")

    print("\n### Privacy of the VFL runs (seed 1): ours (every step composed) and the paper's\n")
    print("The runs at a rate tuned per setting and budget have the same z and epsilon as these.\n")
    print("| setting | epsilon budget | lr | z | epsilon ours | epsilon paper (Thm. 3) | "
          "seconds per run |")
    print("|---|---|---|---|---|---|---|")
    for (partition, s, t, tp, unit, group), selected in sorted(by_setting.items()):
        if group.endswith("-tuned"):  # the same z and epsilon: only the rate differs
            continue
        for r in selected:
            if r["seed"] != "1":
                continue
            kind = "local-only " if group.startswith("vfl-local-only") else ""
            print(f"| {kind}{partition} s = {s} ({t}, {tp}) | {r['epsilon']} | {r['lr']} | {r['z']} | "
                  f"{r['epsilon_ours'] or '-'} | {r['epsilon_paper'] or '-'} | "
                  f"{float(r['run_s']):.0f} |")


    if tune:
        lrs = sorted({r["lr"] for r in tune}, key=float)
        print("\n### Rate tuning (fmf.sh vfl-tune): train MSE / test MSE, seed 1\n")
        print("The rate with the lowest train MSE (bold) at a budget is the one vfl-tuned runs with "
              "at that budget.\n")
        print("| setting | epsilon | " + " | ".join(f"lr {lr}" for lr in lrs) + " |")
        print("|---|---|" + "---|" * len(lrs))
        settings = sorted({(r["group"], r["partition"], int(r["parties"]), int(r["T"]), int(r["Tp"]),
                            r["epsilon"]) for r in tune},
                          key=lambda k: (k[2], k[1], k[0], float(k[5])))
        for group, partition, s, t, tp, eps in settings:
            chosen = rates.get((group, partition, str(s), str(t), str(tp), eps))
            cells = []
            for lr in lrs:
                sel = [r for r in tune if (r["group"], r["partition"], int(r["parties"]), int(r["T"]),
                                           int(r["Tp"]), r["epsilon"], r["lr"]) ==
                       (group, partition, s, t, tp, eps, lr)]
                cell = "" if not sel else f"{float(sel[0]['train_mse']):.3f} / {float(sel[0]['test_mse']):.3f}"
                cells.append(f"**{cell}**" if cell and lr == chosen else cell)
            print(f"| {label(partition, s, t, tp, group)} | {eps} | " + " | ".join(cells) + " |")

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
