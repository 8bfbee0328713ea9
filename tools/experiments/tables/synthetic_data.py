"""docs/results/synthetic-data.md's tables: the synthetic data's shape and metrics against the real data's."""
from collections import defaultdict

from .formatting import cell


def _versus(name, real, synthetic):
    r, real_text = cell(real)
    s, synthetic_text = cell(synthetic)
    off = f"{s / r - 1:+.0%}" if r and s is not None else "-"
    return f"| {name} | {real_text} | {synthetic_text} | {off} |"


def synthetic_data(rows):
    """docs/results/synthetic-data.md: a synthetic figure is the mean over its generator seeds
    (dataset `NAME~gG`) and split seeds, a real one over its split seeds; "off" is synthetic /
    real - 1. A ratio is taken run by run: both metrics of the same dataset and seed."""
    by_run = defaultdict(dict)  # (family, dataset, seed) -> metric -> value
    for row in rows:
        family = row["dataset"].split("~")[0]
        by_run[(family, row["dataset"], row["seed"])].setdefault(row["metric"], []).append(
            float(row["value"]))

    def values(family, metric):
        return [v for (f, _, _), m in by_run.items() if f == family for v in m.get(metric, [])]

    def ratio(family, top, bottom):
        return [a / b for (f, _, _), m in by_run.items() if f == family
                for a, b in zip(m.get(top, []), m.get(bottom, [])) if b]

    out = []
    shape_metrics = ["users", "items", "ratings", "per_user_min", "per_user_median",
                     "per_user_max", "per_item_min", "per_item_median", "per_item_max",
                     "top_tenth_item_share", "stars_1", "stars_2", "stars_3", "stars_4",
                     "stars_5"]
    for real, synthetic in [("ml-100k", "synthetic:ml-100k"), ("gowalla", "synthetic:gowalla")]:
        lines = [f"| {real} shape | real | {synthetic} | off |", "|---|---|---|---|"]
        lines += [_versus(m, values(real, m), values(synthetic, m)) for m in shape_metrics
                  if values(real, m) or values(synthetic, m)]
        out.append(lines)

    def numbers(title, real, synthetic, metrics, ratio_name, top, bottom):
        lines = [f"| {title} | real | {synthetic} | off |", "|---|---|---|---|"]
        lines += [_versus(name, values(real, m), values(synthetic, m)) for name, m in metrics]
        lines.append(_versus(ratio_name, ratio(real, top, bottom), ratio(synthetic, top, bottom)))
        return lines

    out.append(numbers("ML-100K numbers", "ml-100k", "synthetic:ml-100k",
                       [("central ALS RMSE", "als_rmse"), ("popularity F1@10", "popularity_f1"),
                        ("non-private DPMF-RP F1@10", "dpmf_f1_10"),
                        ("non-private DPMF-RP RMSE", "dpmf_rmse")],
                       "DPMF-RP F1@10 / popularity F1@10", "dpmf_f1_10", "popularity_f1"))
    out.append(numbers("Gowalla numbers", "gowalla", "synthetic:gowalla",
                       [("GF-CF Recall@20", "gf-cf_recall_long"),
                        ("popularity Recall@20", "popularity_recall_long"),
                        ("GF-CF NDCG@20", "gf-cf_ndcg_long"),
                        ("popularity NDCG@20", "popularity_ndcg_long")],
                       "GF-CF Recall@20 / popularity Recall@20", "gf-cf_recall_long",
                       "popularity_recall_long"))

    lines = ["| synthetic:ml-20m | value |", "|---|---|"]
    for m in ["users", "items", "ratings", "per_user_median", "per_user_max", "per_item_median",
              "per_item_max", "top_tenth_item_share", "load_s", "peak_rss_mib"]:
        lines.append(f"| {m} | {cell(values('synthetic:ml-20m', m))[1]} |")
    out.append(lines)
    return "\n\n".join("\n".join(lines) for lines in out)


# HDPMF paper, Table 3, ML-100K block: (MSE, MAE) per K.
