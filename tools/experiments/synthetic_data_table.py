#!/usr/bin/env python3
"""The tables of docs/results/synthetic-data.md from synthetic-data.sh's runs.csv.

Each synthetic figure is the mean over its generator seeds and split seeds, each real one over
its split seeds (mean +- sample std when there are several); "off" is synthetic / real - 1.
"""
import csv
import statistics
import sys
from collections import defaultdict


def load(path):
    values = defaultdict(list)  # (dataset family, metric) -> values
    for row in csv.DictReader(open(path)):
        family = row["dataset"].split("~")[0]  # synthetic:ml-100k~g2 -> synthetic:ml-100k
        values[(family, row["metric"])].append(float(row["value"]))
    return values


def cell(xs):
    if not xs:
        return None, "-"
    mean = statistics.fmean(xs)
    text = f"{mean:,.0f}" if abs(mean) >= 1000 else f"{mean:.4g}"
    if len(xs) > 1:
        text += f" ± {statistics.stdev(xs):.2g} (n={len(xs)})"
    return mean, text


def row(name, real, synthetic):
    r, rt = cell(real)
    s, st = cell(synthetic)
    off = f"{s / r - 1:+.0%}" if r and s is not None else "-"
    return f"| {name} | {rt} | {st} | {off} |"


def ratio(values, family, top, bottom):
    return [a / b for a, b in zip(values[(family, top)], values[(family, bottom)]) if b]


def main():
    values = load(sys.argv[1])
    shape_metrics = ["users", "items", "ratings", "per_user_min", "per_user_median",
                     "per_user_max", "per_item_min", "per_item_median", "per_item_max",
                     "top_tenth_item_share", "stars_1", "stars_2", "stars_3", "stars_4",
                     "stars_5"]
    for real, synthetic in [("ml-100k", "synthetic:ml-100k"), ("gowalla", "synthetic:gowalla")]:
        print(f"\n| {real} shape | real | {synthetic} | off |\n|---|---|---|---|")
        for m in shape_metrics:
            if values[(real, m)] or values[(synthetic, m)]:
                print(row(m, values[(real, m)], values[(synthetic, m)]))

    real, synthetic = "ml-100k", "synthetic:ml-100k"
    print(f"\n| ML-100K numbers | real | {synthetic} | off |\n|---|---|---|---|")
    for name, metric in [("central ALS RMSE", "als_rmse"), ("popularity F1@10", "popularity_f1"),
                         ("non-private DPMF-RP F1@10", "dpmf_f1_10"),
                         ("non-private DPMF-RP RMSE", "dpmf_rmse")]:
        print(row(name, values[(real, metric)], values[(synthetic, metric)]))
    print(row("DPMF-RP F1@10 / popularity F1@10", ratio(values, real, "dpmf_f1_10", "popularity_f1"),
              ratio(values, synthetic, "dpmf_f1_10", "popularity_f1")))

    real, synthetic = "gowalla", "synthetic:gowalla"
    print(f"\n| Gowalla numbers | real | {synthetic} | off |\n|---|---|---|---|")
    for name, metric in [("GF-CF Recall@20", "gf-cf_recall_long"),
                         ("popularity Recall@20", "popularity_recall_long"),
                         ("GF-CF NDCG@20", "gf-cf_ndcg_long"),
                         ("popularity NDCG@20", "popularity_ndcg_long")]:
        print(row(name, values[(real, metric)], values[(synthetic, metric)]))
    print(row("GF-CF Recall@20 / popularity Recall@20",
              ratio(values, real, "gf-cf_recall_long", "popularity_recall_long"),
              ratio(values, synthetic, "gf-cf_recall_long", "popularity_recall_long")))

    print("\n| synthetic:ml-20m | value |\n|---|---|")
    for m in ["users", "items", "ratings", "per_user_median", "per_user_max", "per_item_median",
              "per_item_max", "top_tenth_item_share", "load_s", "peak_rss_mib"]:
        print(f"| {m} | {cell(values[('synthetic:ml-20m', m)])[1]} |")


if __name__ == "__main__":
    main()
