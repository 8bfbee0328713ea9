#!/usr/bin/env python3
"""Mean +/- sample std over seeds of the DP curves in docs/results/privirec.md, from the CSVs of
tools/experiments/privirec-dp.sh (dp-ml100k.csv) and privirec-k-dp.sh (dp-k-*.csv).

usage: privirec_dp_summary.py CSV [CSV ...]   (one Markdown table per CSV on stdout)

A row is one (model, k, epsilon); a run repeated with the same seed (the same noise: a rerun
for timing) counts once, its first line. Rows keep the order of their first run.
"""
import csv
import statistics
import sys


def summarize(path):
    groups = {}
    seen = set()
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            key = (row["model"], row.get("k", ""), row["epsilon"])
            if key + (row["seed"],) in seen:
                continue
            seen.add(key + (row["seed"],))
            groups.setdefault(key, []).append((float(row["recall20"]), float(row["ndcg20"])))
    print(f"\n{path}\n")
    print("| model | k | epsilon | seeds | Recall@20 | NDCG@20 |")
    print("|---|---|---|---|---|---|")
    for (model, k, epsilon), runs in groups.items():
        cells = []
        for metric in range(2):
            values = [run[metric] for run in runs]
            spread = f" ± {statistics.stdev(values):.4f}" if len(values) > 1 else ""
            cells.append(f"{statistics.mean(values):.4f}{spread}")
        print(f"| {model} | {k} | {epsilon} | {len(runs)} | {cells[0]} | {cells[1]} |")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        summarize(path)


if __name__ == "__main__":
    main()
