#!/usr/bin/env python3
"""The HFL-SGDMF tables of docs/results/fmf.md (Figs. 8-9) from tools/experiments/fmf_hfl.sh's
hfl.csv, next to the baselines and the non-private central reference of runs.csv (run.py fmf).

    tools/experiments/fmf_hfl_summary.py [docs/results/fmf/hfl.csv] [docs/results/fmf/runs.csv]

Test MSE as mean +- sample standard deviation over seeds (the number of seeds in each row), one
row per method and s, one column per epsilon, before and after stage-3 fine-tuning; then the
rates tune chose and the privacy figures (ours over every noisy step, the paper's Proposition 3);
then the tuning itself (train and test MSE at every rate); then the networked run next to the same run in process, if fmf_hfl.sh networked made them.
"""
import csv
import sys
from collections import defaultdict

import results
from tables import fmf_runs, mean_std3

LABELS = {
    "pretrain-u": "HFL-SGDMF (pre-train U)",
    "train-both": "train-both (vanilla FMF)",
    "syn-sgd": "HFL-synSGD",
    "local-only": "local-only, non-private",
}


def main():
    hfl_path = sys.argv[1] if len(sys.argv) > 1 else "docs/results/fmf/hfl.csv"
    runs_path = sys.argv[2] if len(sys.argv) > 2 else "docs/results/fmf/runs.csv"
    with open(hfl_path, newline="") as f:
        rows_all = list(csv.DictReader(f))
    # A run counts only at the rate tune chose for its method and s (fmf_hfl.sh best_lr), when s
    # was tuned: a wider grid may have moved the rate after it ran.
    tuned = {}  # (mode, s): (lowest train MSE, its rate)
    for r in rows_all:
        if r["group"] == "tune" and r["train_mse"] not in ("", "nan"):
            key = (r["mode"], r["parties"])
            if key not in tuned or float(r["train_mse"]) < tuned[key][0]:
                tuned[key] = (float(r["train_mse"]), r["lr"])
    hfl = [r for r in rows_all if r["group"] == "runs" and
           tuned.get((r["mode"], r["parties"]), (None, r["lr"]))[1] == r["lr"]]
    networked = [r for r in rows_all if r["group"] in ("networked", "networked-in-process")]
    runs = fmf_runs(results.read(runs_path))
    groups = defaultdict(list)
    for r in hfl:
        groups[(int(r["parties"]), r["mode"])].append(r)
    epsilons = sorted({float(r["epsilon"]) for r in hfl if float(r["epsilon"]) > 0})
    head = " | ".join(f"eps = {e:g}" for e in epsilons)

    def cells(selected, metric):
        out = []
        for e in epsilons:
            # local-only adds no noise: its one figure stands in every column.
            sel = [r for r in selected if r["mode"] == "local-only" or float(r["epsilon"]) == e]
            out.append(mean_std3([float(r[metric]) for r in sel]))
        return out

    for metric, name in (("test_mse_after", "after fine-tuning (Fig. 9; Fig. 8 right)"),
                         ("test_mse_before", "before fine-tuning (Fig. 8 left)")):
        print(f"\n### HFL per user: test MSE {name}, mean ± std over seeds, (epsilon, 1e-5)-DP\n")
        print(f"| s | method | seeds | {head} |")
        print("|---|---|---|" + "---|" * len(epsilons))
        for (s, mode), selected in sorted(groups.items(),
                                          key=lambda kv: (kv[0][0], list(LABELS).index(kv[0][1]))):
            seeds = len({r["seed"] for r in selected})
            print(f"| {s} | {LABELS[mode]} | {seeds} | " + " | ".join(cells(selected, metric)) + " |")
        reference = [r for r in runs if r["group"] == "fig4" and r["method"] == "embedding"
                     and r["unit"] == "rating" and float(r["epsilon"]) == 0]
        rows = [("central non-private SGD, embedding clipping (run.py fmf fig4, eps 0)", reference)]
        for model in ("global-mean", "user-mean", "popularity"):
            rows.append((f"baseline: {model}",
                         [r for r in runs if r["group"] == "baselines" and r["method"] == model]))
        for label, sel in rows:
            cell = mean_std3([float(r["test_mse"]) for r in sel])
            print(f"| - | {label} | {len(sel)} | " + " | ".join([cell] * len(epsilons)) + " |")

    print("\n### Rates and privacy (seed 1): ours composes all T T' = 1000 noisy steps of a "
          "user's party; Proposition 3 counts T' = 10\n")
    print("| s | method | epsilon budget | lr | z | epsilon ours | epsilon paper (Prop. 3) | "
          "sensitivity ours / paper | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (s, mode), selected in sorted(groups.items()):
        for r in selected:
            if r["seed"] != "1":
                continue
            print(f"| {s} | {LABELS[mode]} | {r['epsilon'] if mode != 'local-only' else '-'} | "
                  f"{r['lr']} | {r['z'] or '-'} | {r['epsilon_ours'] or '-'} | "
                  f"{r['epsilon_paper'] or '-'} | {r['sensitivity']} / {r['paper_sensitivity']} | "
                  f"{float(r['train_s']):.0f} |")

    tune = [r for r in rows_all if r["group"] == "tune"]
    if tune:
        lrs = sorted({r["lr"] for r in tune}, key=float)
        print("\n### Rate tuning (fmf_hfl.sh tune): train MSE / test MSE after fine-tuning, "
              "epsilon = 1, seed 1\n")
        print("The rate with the lowest train MSE (bold, the paper's rule) is the one the runs use.\n")
        print("| s | method | " + " | ".join(f"lr {lr}" for lr in lrs) + " |")
        print("|---|---|" + "---|" * len(lrs))
        for s, mode in sorted({(int(r["parties"]), r["mode"]) for r in tune},
                              key=lambda k: (k[0], list(LABELS).index(k[1]))):
            sel = {r["lr"]: r for r in tune if int(r["parties"]) == s and r["mode"] == mode}
            best = tuned[(mode, str(s))][1]
            cells = []
            for lr in lrs:
                r = sel.get(lr)
                cell = "" if r is None else (f"{float(r['train_mse']):.3f} / "
                                             f"{float(r['test_mse_after']):.3f}")
                cells.append(f"**{cell}**" if r is not None and lr == best else cell)
            print(f"| {s} | {LABELS[mode]} | " + " | ".join(cells) + " |")

    if networked:
        print("\n### Networked (fmf_hfl.sh networked): HFL-SGDMF through real processes next to "
              "the same run in process, seed 1\n")
        print("| run | s | epsilon | lr | z | test MSE before fine-tuning | test MSE after | "
              "train MSE after | seconds |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in networked:
            label = ("real processes (fedmf-coordinator + s fedmf-client --party=hfl)"
                     if r["group"] == "networked" else "in process (fedmf-central)")
            print(f"| {label} | {r['parties']} | {r['epsilon']} | {r['lr']} | {r['z']} | "
                  f"{r['test_mse_before']} | {r['test_mse_after']} | {r['train_mse'] or '-'} | "
                  f"{float(r['train_s']):.0f} |")
        for r in runs:
            if r["group"] == "baselines" and r["seed"] == "1":
                print(f"| baseline: {r['method']} | - | - | - | - | - | {r['test_mse']} | - | - |")


if __name__ == "__main__":
    main()
