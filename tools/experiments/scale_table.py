#!/usr/bin/env python3
"""The tables of docs/results/scale.md from tools/experiments/scale.sh's runs.csv: one row per
(group, dataset, epsilon) with its per-round seconds, peak RSS, F1@10 and RMSE, and popularity's
F1@10 on the same users; the last row of a repeated measurement wins."""
import csv
import sys


def main(path):
    rows = {}
    popularity = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["group"] == "popularity":
                popularity[r["dataset"]] = r["value"]
                continue
            rows.setdefault((r["group"], r["dataset"], r["epsilon"]), {})[r["metric"]] = r["value"]
    print("| run | users | epsilon | rounds | s/round | peak RSS MiB | F1@10 | RMSE | popularity F1@10 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (group, dataset, epsilon), m in rows.items():
        print(f"| {group} | {dataset} | {epsilon} | {m.get('rounds', '')} | {m.get('s_per_round', '')} "
              f"| {m.get('peak_rss_mib', '')} | {m.get('f1_10', '')} | {m.get('rmse', '')} "
              f"| {popularity.get(dataset, '')} |")


if __name__ == "__main__":
    main(sys.argv[1])
