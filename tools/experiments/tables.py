"""The tables of docs/results/*.md, one function per page, from the rows of results.read().

Each function takes the rows and returns the page's tables (and the lines between them) as
Markdown, in blocks separated by blank lines; test_experiments.py checks that every block appears
verbatim in its page. Figures quoted from the papers are constants here, next to their table.
"""
import math
import statistics
from collections import defaultdict


def _cell(xs):
    """Mean (+- sample std and n when several), and the text of the cell."""
    if not xs:
        return None, "-"
    mean = statistics.fmean(xs)
    text = f"{mean:,.0f}" if abs(mean) >= 1000 else f"{mean:.4g}"
    if len(xs) > 1:
        text += f" ± {statistics.stdev(xs):.2g} (n={len(xs)})"
    return mean, text


def _versus(name, real, synthetic):
    r, real_text = _cell(real)
    s, synthetic_text = _cell(synthetic)
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

    real, synthetic = "ml-100k", "synthetic:ml-100k"
    lines = [f"| ML-100K numbers | real | {synthetic} | off |", "|---|---|---|---|"]
    for name, metric in [("central ALS RMSE", "als_rmse"), ("popularity F1@10", "popularity_f1"),
                         ("non-private DPMF-RP F1@10", "dpmf_f1_10"),
                         ("non-private DPMF-RP RMSE", "dpmf_rmse")]:
        lines.append(_versus(name, values(real, metric), values(synthetic, metric)))
    lines.append(_versus("DPMF-RP F1@10 / popularity F1@10",
                         ratio(real, "dpmf_f1_10", "popularity_f1"),
                         ratio(synthetic, "dpmf_f1_10", "popularity_f1")))
    out.append(lines)

    real, synthetic = "gowalla", "synthetic:gowalla"
    lines = [f"| Gowalla numbers | real | {synthetic} | off |", "|---|---|---|---|"]
    for name, metric in [("GF-CF Recall@20", "gf-cf_recall_long"),
                         ("popularity Recall@20", "popularity_recall_long"),
                         ("GF-CF NDCG@20", "gf-cf_ndcg_long"),
                         ("popularity NDCG@20", "popularity_ndcg_long")]:
        lines.append(_versus(name, values(real, metric), values(synthetic, metric)))
    lines.append(_versus("GF-CF Recall@20 / popularity Recall@20",
                         ratio(real, "gf-cf_recall_long", "popularity_recall_long"),
                         ratio(synthetic, "gf-cf_recall_long", "popularity_recall_long")))
    out.append(lines)

    lines = ["| synthetic:ml-20m | value |", "|---|---|"]
    for m in ["users", "items", "ratings", "per_user_median", "per_user_max", "per_item_median",
              "per_item_max", "top_tenth_item_share", "load_s", "peak_rss_mib"]:
        lines.append(f"| {m} | {_cell(values('synthetic:ml-20m', m))[1]} |")
    out.append(lines)
    return "\n\n".join("\n".join(lines) for lines in out)


# HDPMF paper, Table 3, ML-100K block: (MSE, MAE) per K.
HDPMF_PAPER = {
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


def _mean_std4(xs):
    if not xs:
        return "-"
    if len(xs) == 1:
        return f"{xs[0]:.4f}"
    return f"{statistics.mean(xs):.4f} ± {statistics.stdev(xs):.4f}"


def _paired_t(a, b):
    """t statistic of mean(b - a) and its one-sided stars (*, **, ***: 90/95/99%) in the
    direction of its sign (t > 0: a lower; t < 0: b lower)."""
    d = [y - x for x, y in zip(a, b)]
    if len(d) < 2 or statistics.stdev(d) == 0:
        return None, ""
    t = statistics.mean(d) / (statistics.stdev(d) / math.sqrt(len(d)))
    crit = T_CRIT.get(len(d) - 1)
    return t, "" if crit is None else "*" * sum(abs(t) > c for c in crit)


def hdpmf(rows):
    """docs/results/hdpmf.md: MSE is the square of each run's test RMSE, P@10 its Precision@10;
    mean +- sample std over seeds (a run without an RMSE does not count). The paired t-test
    (HDPMF vs PDPMF, same seeds) is one-sided, as the paper's Table 3 marks, in the direction
    the data show."""
    metrics = defaultdict(dict)  # (group, name, rank, seed) -> metric -> value
    for row in rows:
        metrics[(row["group"], row["name"], int(row["rank"]), int(row["seed"]))][
            row["metric"]] = float(row["value"])
    runs = defaultdict(dict)  # (group, name, rank) -> seed -> (mse, mae, p@10)
    for (group, name, rank, seed), m in metrics.items():
        if "rmse" in m:
            runs[(group, name, rank)][seed] = (m["rmse"] ** 2, m["mae"], m.get("p10"))

    def metric(key, i):
        return [v[i] for _, v in sorted(runs.get(key, {}).items()) if v[i] is not None]

    out = []
    ranks = sorted({k[2] for k in runs if k[0] == "table3" and k[2] > 0}, reverse=True)
    out.append(["### Table 3, ML-100K, paper mode"])
    lines = ["| method | K | MSE (ours) | MSE (paper) | MAE (ours) | MAE (paper) | P@10 (ours) "
             "| seeds |", "|---|---|---|---|---|---|---|---|"]
    for rank in ranks:
        for name in ("mf", "hdpmf", "pdpmf", "dpmf"):
            key = ("table3", name, rank)
            if key in runs:
                paper = HDPMF_PAPER.get(name, {}).get(rank, ("-", "-"))
                lines.append(f"| {name} | {rank} | {_mean_std4(metric(key, 0))} | {paper[0]} "
                             f"| {_mean_std4(metric(key, 1))} | {paper[1]} "
                             f"| {_mean_std4(metric(key, 2))} | {len(runs[key])} |")
    for name in ("global-mean", "user-mean", "popularity"):
        key = ("table3", name, 0)
        if key in runs:
            lines.append(f"| {name} (fedmf-central) | - | {_mean_std4(metric(key, 0))} | - | "
                         f"{_mean_std4(metric(key, 1))} | - | {_mean_std4(metric(key, 2))} "
                         f"| {len(runs[key])} |")
    out.append(lines)
    lines = []
    for rank in ranks:
        h, p = runs.get(("table3", "hdpmf", rank), {}), runs.get(("table3", "pdpmf", rank), {})
        seeds = sorted(set(h) & set(p))
        for i, label in ((0, "MSE"), (1, "MAE")):
            t, stars = _paired_t([h[s][i] for s in seeds], [p[s][i] for s in seeds])
            if t is not None:
                lower = "HDPMF" if t > 0 else "PDPMF"
                verdict = (f"significant at {('90', '95', '99')[len(stars) - 1]}% (one-sided)"
                           if stars else "not significant at 90%")
                lines.append(f"- K = {rank}, {label}: paired t (PDPMF - HDPMF, {len(seeds)} "
                             f"seeds) = {t:.2f}: {lower} lower, {verdict}")
    out.append(lines)
    ablation = [r for r in ranks if ("table3", "hdpmf-r", r) in runs]
    if ablation:
        out.append(["### Fig. 8 ablation: MSE on the seeds HDPMF-R ran"])
        names = ("hdpmf", "hdpmf-r", "dpmf", "pdpmf", "mf")
        lines = ["| K | seeds | " + " | ".join(n.upper() for n in names) + " |",
                 "|---|---|" + "---|" * len(names)]
        for rank in ablation:
            seeds = sorted(runs[("table3", "hdpmf-r", rank)])
            cells = [_mean_std4([runs[("table3", n, rank)][s][0] for s in seeds
                                 if s in runs.get(("table3", n, rank), {})]) for n in names]
            lines.append(f"| {rank} | {', '.join(map(str, seeds))} | " + " | ".join(cells) + " |")
        out.append(lines)
    sound = sorted(k for k in runs if k[0] == "sound")
    if sound:
        out.append(["### Sound mode"])
        lines = ["| method | K | MSE | MAE | P@10 | seeds |", "|---|---|---|---|---|---|"]
        for key in sound:
            lines.append(f"| {key[1]} | {key[2]} | {_mean_std4(metric(key, 0))} "
                         f"| {_mean_std4(metric(key, 1))} | {_mean_std4(metric(key, 2))} "
                         f"| {len(runs[key])} |")
        out.append(lines)
    for group, label in (("fuc", "f_uc"), ("euc", "eps_uc")):
        keys = [k for k in runs if k[0] == group]
        for rank in sorted({k[2] for k in keys}, reverse=True):
            values = sorted({k[1].split(group)[1] for k in keys if k[2] == rank}, key=float)
            out.append([f"### MSE vs {label} (K = {rank}, seed 1)"])
            lines = [f"| {label} | HDPMF MSE | PDPMF MSE | (PDPMF - HDPMF) / PDPMF |",
                     "|---|---|---|---|"]
            for v in values:
                h = metric((group, f"hdpmf-{group}{v}", rank), 0)
                p = metric((group, f"pdpmf-{group}{v}", rank), 0)
                gap = f"{100 * (p[0] - h[0]) / p[0]:.1f}%" if h and p else "-"
                lines.append(f"| {v} | {_mean_std4(h)} | {_mean_std4(p)} | {gap} |")
            out.append(lines)
    sparsity = sorted({k[0] for k in runs if k[0].startswith("sparsity")},
                      key=lambda g: float(g[len("sparsity"):]))
    for rank in sorted({k[2] for k in runs if k[0] in sparsity and k[2] > 0}, reverse=True):
        out.append([f"### MSE vs training fraction (leave-one-out, K = {rank}, seed 1)"])
        lines = ["| fraction | MF | HDPMF | PDPMF | user mean | item popularity |",
                 "|---|---|---|---|---|---|"]
        for g in sparsity:
            cells = [_mean_std4(metric((g, name, rank), 0)) for name in ("mf", "hdpmf", "pdpmf")]
            cells += [_mean_std4(metric((g, name, 0), 0)) for name in ("user-mean", "popularity")]
            lines.append(f"| {g[len('sparsity'):]} | " + " | ".join(cells) + " |")
        out.append(lines)
    return "\n\n".join("\n".join(lines) for lines in out if lines)
