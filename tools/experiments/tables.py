"""The tables of docs/results/*.md, one function per page, from the rows of results.read().

Each function takes the rows and returns the page's tables (and the lines between them) as
Markdown, in blocks separated by blank lines; test_experiments.py checks that every block appears
verbatim in its page. Figures quoted from the papers are constants here, next to their table.
A *_plot_data(rows, directory) function returns {file name: text}, the data files a page's
gnuplot script draws (run.py --plot-data writes them).
"""
import csv
import math
import os
import statistics

import results
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


def _mean_std4(xs, empty="-"):
    """Mean +- sample std to 4 decimals; a single value alone."""
    if not xs:
        return empty
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


# Local-DP MF paper: its Fig. 9 table (MovieLens 20M, epsilon = 0.1) and Fig. 2 slopes.
LDP_PAPER_FIG9 = {
    "non-private": {1: 1.269, 3: 1.204, 5: 1.187, 10: 1.173, 20: 1.161, 50: 1.145},
    "gd-dr": {1: 2.960, 3: 1.697, 5: 1.500, 10: 1.409, 20: 1.381, 50: 1.372},
}
LDP_PAPER_SLOPES = {("ldp-gd", "none", "false"): "-1.035", ("ldp-gd", "none", "true"): "-0.975",
                    ("ldp-gd-dr", "paper", "false"): "-1.028",
                    ("ldp-gd-dr", "paper", "true"): "-0.821 (to eps 0.2, then flat)"}
LDP_LABELS = {("ldp-gd", "none"): "Private GD",
              ("ldp-gd-dr", "paper"): "GD-DR (paper: one Phi, Phi^+)",
              ("ldp-gd-dr", "unbiased"): "GD-DR (unbiased: Phi_t, Phi_t^T)"}


def _stats(values):
    values = [float(v) for v in values]
    if not values:
        return None
    return (statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0,
            len(values))


def _fmt_stats(s, digits=4):
    return "-" if s is None else f"{s[0]:.{digits}f} ± {s[1]:.{digits}f}"


def ldp_mf(rows):
    """docs/results/ldp-mf.md: mean +- sample std over folds (a rerun of a fold replaces its
    metrics), the paper's figures next to ours, and the verdict; the model distances (group
    distance, fold all) and the bytes of one round (group communication)."""
    cells = defaultdict(lambda: defaultdict(dict))  # run key -> fold -> metric -> value
    distance = defaultdict(dict)  # (algorithm, mode, correction) -> epsilon -> metric -> value
    communication = {}  # algorithm -> metric -> value, in the order of the runs
    for r in rows:
        if r["group"] == "distance":
            distance[(r["algorithm"], r["mode"], r["correction"])].setdefault(
                float(r["epsilon"]), {})[r["metric"]] = r["value"]
        elif r["group"] == "communication":
            communication.setdefault(r["algorithm"], {})[r["metric"]] = r["value"]
        else:
            key = (r["group"], r["algorithm"], r["mode"], r["correction"], int(r["k"]),
                   r["epsilon"])
            cells[key][r["fold"]][r["metric"]] = r["value"]

    def metric(key, name):
        folds = cells.get(key, {})
        return _stats([m[name] for m in folds.values() if m.get(name, "") not in ("", "nan")])

    baseline = {m: {n: metric(("baselines", m, "central", "off", 0, "0"), n)
                    for n in ("rmse", "mae", "f1")}
                for m in ("global-mean", "user-mean", "popularity")}
    ks = sorted({k for (g, a, _, _, k, _) in cells if g == "baselines" and a == "ldp-gd"})
    gd = {k: {n: metric(("baselines", "ldp-gd", "central", "off", k, "0"), n)
              for n in ("rmse", "mae", "f1")} for k in ks}
    folds = max((len(v) for v in cells.values()), default=0)

    out = [f"### Baselines ({folds} folds of a 10-fold split)",
           "| model | RMSE | MAE | F1@10 |\n|---|---|---|---|"]
    for m, label in (("global-mean", "global mean"), ("user-mean", "user mean"),
                     ("popularity", "item popularity (ranks by count, predicts the item mean)")):
        b = baseline[m]
        out[-1] += (f"\n| {label} | {_fmt_stats(b['rmse'])} | {_fmt_stats(b['mae'])} "
                    f"| {_fmt_stats(b['f1'])} |")
    for k in ks:
        out[-1] += (f"\n| non-private GD, k = {k} | {_fmt_stats(gd[k]['rmse'])} "
                    f"| {_fmt_stats(gd[k]['mae'])} | {_fmt_stats(gd[k]['f1'])} |")

    k_rows = sorted({k for (g, _, _, _, k, _) in cells if g == "k"})
    if k_rows:
        out.append("### RMSE vs k at epsilon = 0.1 (the paper's Fig. 9)")
        lines = ["| k | non-private GD | GD-DR, f_k = k^2 | GD-DR, no correction | "
                 "paper non-private (ML-20M) | paper GD-DR (ML-20M) |\n|---|---|---|---|---|---|"]
        for k in k_rows:
            on = metric(("k", "ldp-gd-dr", "paper", "true", k, "0.1"), "rmse")
            off = metric(("k", "ldp-gd-dr", "paper", "false", k, "0.1"), "rmse")
            lines.append(f"| {k} | {_fmt_stats(gd.get(k, {}).get('rmse'))} | {_fmt_stats(on)} "
                         f"| {_fmt_stats(off)} | {LDP_PAPER_FIG9['non-private'].get(k, '-')} "
                         f"| {LDP_PAPER_FIG9['gd-dr'].get(k, '-')} |")
        lines.append(f"| baselines | user mean {_fmt_stats(baseline['user-mean']['rmse'])}, "
                     f"global mean {_fmt_stats(baseline['global-mean']['rmse'])}, popularity "
                     f"{_fmt_stats(baseline['popularity']['rmse'])} | | | | |")
        out.append("\n".join(lines))

    eps_rows = sorted({float(e) for (g, _, _, _, _, e) in cells if g == "epsilon"})
    algos = [("ldp-gd", "none"), ("ldp-gd-dr", "paper"), ("ldp-gd-dr", "unbiased")]
    if eps_rows:
        out.append("### RMSE and F1@10 vs epsilon, k = 10, f_k = k^2 (the paper's Figs. 3-4)")
        lines = ["| epsilon |" + "".join(f" {LDP_LABELS[a]} RMSE | F1@10 |" for a in algos)
                 + "\n|---|" + "---|---|" * len(algos)]
        for e in eps_rows:
            line = f"| {e:g} |"
            for a, mode in algos:
                key = ("epsilon", a, mode, "true", 10, f"{e:g}")
                line += f" {_fmt_stats(metric(key, 'rmse'))} | {_fmt_stats(metric(key, 'f1'))} |"
            lines.append(line)
        out.append("\n".join(lines))
        ref = gd.get(10, {})
        out.append(f"At k = 10 the non-private GD has RMSE {_fmt_stats(ref.get('rmse'))} and "
                   f"F1@10 {_fmt_stats(ref.get('f1'))}; the user mean RMSE "
                   f"{_fmt_stats(baseline['user-mean']['rmse'])}, item popularity F1@10 "
                   f"{_fmt_stats(baseline['popularity']['f1'])}.")
        # Does any private model beat the user mean's RMSE by more than two standard errors?
        user = baseline["user-mean"]["rmse"]
        wins = []
        for e in eps_rows:
            for a, mode in algos:
                s = metric(("epsilon", a, mode, "true", 10, f"{e:g}"), "rmse")
                if s and user and s[0] + 2 * s[1] / math.sqrt(s[2]) < user[0]:
                    wins.append(f"{LDP_LABELS[(a, mode)]} at epsilon {e:g}")
        out.append("**Verdict (computed):** " + (
            "the private model beats the user-mean predictor's RMSE for " + ", ".join(wins)
            if wins else
            "no private model beats the user-mean predictor's RMSE at any epsilon tested "
            f"({', '.join(f'{e:g}' for e in eps_rows)})") + ".")

    large = sorted({float(e) for (g, _, _, _, _, e) in cells if g == "large_epsilon"})
    if large:
        out.append("### Beyond the paper: larger epsilon, k = 10, no correction factor")
        lines = ["| epsilon | Private GD RMSE | F1@10 | GD-DR (unbiased) RMSE | F1@10 |\n"
                 "|---|---|---|---|---|"]
        for e in large:
            line = f"| {e:g} |"
            for a, mode in (("ldp-gd", "none"), ("ldp-gd-dr", "unbiased")):
                key = ("large_epsilon", a, mode, "false", 10, f"{e:g}")
                line += f" {_fmt_stats(metric(key, 'rmse'))} | {_fmt_stats(metric(key, 'f1'))} |"
            lines.append(line)
        out.append("\n".join(lines))

    if distance:
        eps = sorted({e for s in distance.values() for e in s})
        order = [o for o in [("ldp-gd", "none", "false"), ("ldp-gd", "none", "true"),
                             ("ldp-gd-dr", "paper", "false"), ("ldp-gd-dr", "paper", "true"),
                             ("ldp-gd-dr", "unbiased", "true")] if o in distance]
        names = [f"{LDP_LABELS[(o[0], o[1])]}{', f_k = k^2' if o[2] == 'true' else ''}"
                 for o in order]

        def by_epsilon(metric, spec):
            """The header and one row an epsilon of metric, each series' cell formatted by spec."""
            return ["| epsilon | " + " | ".join(names) + " |\n|---|" + "---|" * len(order)] + [
                f"| {e:g} | " + " | ".join(f"{float(distance[o][e][metric]):{spec}}"
                                           if e in distance[o] else "-" for o in order) + " |"
                for e in eps]

        out.append("### ||V* - V||_max vs epsilon, k = 10, all of ML-100K (the paper's Fig. 2)")
        lines = by_epsilon("max_abs_item_diff", ".4g")
        slopes = []
        for o in order:
            pts = [(math.log(e), math.log(float(m["max_abs_item_diff"])))
                   for e, m in sorted(distance[o].items()) if float(m["max_abs_item_diff"]) > 0]
            if len(pts) > 1:
                mx = statistics.fmean(p[0] for p in pts)
                my = statistics.fmean(p[1] for p in pts)
                slope = (sum((x - mx) * (y - my) for x, y in pts)
                         / sum((x - mx) ** 2 for x, _ in pts))
                slopes.append(f"{slope:.3f}")
            else:
                slopes.append("-")
        lines.append("| log-log slope | " + " | ".join(slopes) + " |")
        lines.append("| paper's slope (ML-20M) | "
                     + " | ".join(LDP_PAPER_SLOPES.get(o, "-") for o in order) + " |")
        out.append("\n".join(lines))
        out.append("### Top-10 agreement with the non-private GD (F-score, the paper's Figs. 7-8)")
        out.append("\n".join(by_epsilon("top10_f_score", ".4f")))

    if communication:
        out.append("### Communication per user per iteration (the paper's Table 3)")
        lines = ["| algorithm | report coordinates D | report information (bits: index + sign) "
                 "| uplink on the wire (bytes) | downlink (bytes: the plan with V) | paper |",
                 "|---|---|---|---|---|---|"]
        for algorithm, m in communication.items():
            dim = int(m["coordinates"])
            bits = math.ceil(math.log2(dim)) + 1
            paper = "1 bit up, O(d log m) down" if algorithm == "ldp-gd-dr" else "-"
            lines.append(f"| {algorithm} | {dim} | {bits} | {m['up_bytes_per_user']} | "
                         f"{m['down_bytes_per_user']} | {paper} |")
        out.append("\n".join(lines))
    return "\n\n".join(out)


# DPMF-RP: the run whose sweep points stand for the tuned settings (clip sweep gamma 1.25,
# epsilon 100, m/p 3) is Table 2's seed 1.
DPMF_TUNED_GAMMA = "1.25"
DPMF_METRICS = ["rmse", "precision", "recall", "f1", "map", "map_at_n"]
DPMF_LABELS = {"rmse": "RMSE", "precision": "Precision@10", "recall": "Recall@10", "f1": "F1@10",
               "map": "mAP@10 (eq. 56, 1/tp)", "map_at_n": "mAP@10 (1/min(N, relevant))"}
# The paper's Table 2 (ML100K column) and Table 7 (ML100K rows).
DPMF_PAPER_TABLE2 = {
    "centralmf": {"rmse": "0.9968 ± 0.0108", "precision": "0.2776 ± 0.0048",
                  "recall": "0.2418 ± 0.0040", "f1": "0.2451 ± 0.0041", "map": "0.1395 ± 0.0018"},
    "dpmf-rp": {"rmse": "1.0083 ± 0.0024", "precision": "0.1965 ± 0.0103",
                "recall": "0.2472 ± 0.0125", "f1": "0.2189 ± 0.0112", "map": "0.1158 ± 0.0095"},
}
DPMF_PAPER_TABLE7 = {
    "case1-non-private": {"rmse": "1.00", "precision": "0.27", "recall": "0.23", "f1": "0.24",
                          "map": "0.13"},
    "case2-non-secagg": {"rmse": "1.10", "precision": "0.12", "recall": "0.13", "f1": "0.13",
                         "map": "0.05"},
    "case3-non-projected": {"rmse": "1.01", "precision": "0.23", "recall": "0.26", "f1": "0.24",
                            "map": "0.13"},
    "case4-non-dp": {"rmse": "1.01", "precision": "0.20", "recall": "0.24", "f1": "0.22",
                     "map": "0.11"},
}


def _dpmf_runs(rows):
    """(group, name) -> the runs' metrics, one dict a seed in the order of first appearance; a
    rerun of a seed replaces its metrics."""
    by_seed = defaultdict(dict)
    for r in rows:
        by_seed[(r["group"], r["name"])].setdefault(r["seed"], {})[r["metric"]] = r["value"]
    return {key: list(seeds.values()) for key, seeds in by_seed.items()}


def _dpmf_stat(runs, key):
    return _mean_std4([float(r[key]) for r in runs if r.get(key, "") != ""], "n/a")


def _dpmf_epsilon(run):
    """A run without an RDP epsilon (a central or noiseless run) is not private."""
    if float(run.get("epsilon_rdp2", 0)) == 0:
        return "none"
    return (f"RDP(α=2) {float(run['epsilon_rdp2']):.3g}; "
            f"({float(run['epsilon_dp']):.3g}, 1e-5)-DP")


def _dpmf_table(runs, group, names, paper=None):
    present = [n for n in names if (group, n) in runs]
    if not present:
        return ""
    paper = paper or {}
    header = "| metric | " + " | ".join(
        f"{n} (n={len(runs[(group, n)])})" + (f" | paper {n}" if n in paper else "")
        for n in present) + " |"
    cols = sum(2 if n in paper else 1 for n in present)
    lines = [header, "|---" * (cols + 1) + "|"]
    for m in DPMF_METRICS:
        cells = []
        for n in present:
            cells.append(_dpmf_stat(runs[(group, n)], m))
            if n in paper:
                cells.append(paper[n].get(m, "-"))
        lines.append(f"| {DPMF_LABELS[m]} | " + " | ".join(cells) + " |")
    cells = []
    for n in present:
        cells.append(_dpmf_epsilon(runs[(group, n)][0]))
        if n in paper:
            private = n not in ("centralmf", "case1-non-private", "case4-non-dp")
            cells.append("paper: ε = 1" if private else "-")
    lines.append("| privacy (whole run) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _dpmf_sweeps(rows):
    """The three sweeps, as (axis label, .dat name, [(x, the run's metrics)] sorted by x); Table
    2's seed 1 stands for the sweep point at the tuned settings."""
    runs = _dpmf_runs(rows)
    tuned = runs.get(("table2", "dpmf-rp"), [])[:1]

    def points(group, x_of, extra):
        found = [(x_of(n), r[0]) for (g, n), r in runs.items() if g == group]
        return sorted(found + [(extra, r) for r in tuned], key=lambda p: p[0])

    return [("RDP ε (α=2)", "epsilon.dat", points("epsilon", lambda n: float(n[3:]), 100.0)),
            ("m/p", "compression.dat", points("compression", lambda n: int(n[2:]), 3)),
            ("gamma", "clip.dat", points("clip", lambda n: float(n[5:]),
                                         float(DPMF_TUNED_GAMMA)))]


def dpmf_rp(rows):
    """docs/results/dpmf-rp.md: mean +- sample std over seeds, the paper's figures next to ours,
    and the sweeps (one seed each)."""
    runs = _dpmf_runs(rows)
    out = [_dpmf_table(runs, "table2", ["centralmf", "dpmf-rp"], DPMF_PAPER_TABLE2),
           _dpmf_table(runs, "ablation", list(DPMF_PAPER_TABLE7), DPMF_PAPER_TABLE7),
           _dpmf_table(runs, "paper", ["paper-settings"])]
    for label, _, points in _dpmf_sweeps(rows):
        lines = [f"| {label} | RMSE | Precision@10 | Recall@10 | F1@10 | mAP@10 (AP@N) "
                 "| whole-run ε |", "|---|---|---|---|---|---|---|"]
        for x, r in points:
            lines.append(f"| {x} | {float(r['rmse']):.4f} | {float(r['precision']):.4f} | "
                         f"{float(r['recall']):.4f} | {float(r['f1']):.4f} | "
                         f"{float(r['map_at_n']):.4f} | {_dpmf_epsilon(r)} |")
        out.append("\n".join(lines))
    l2 = sorted({n for g, n in runs if g == "l2"}, key=lambda n: (n.startswith("l2"), n))
    out.append(_dpmf_table(runs, "l2", l2))
    out.append(_dpmf_table(runs, "l2eps", sorted({n for g, n in runs if g == "l2eps"},
                                                 key=lambda n: float(n.rsplit("eps", 1)[1]))))
    return "\n\n".join(t for t in out if t)


def dpmf_rp_plot_data(rows, directory):
    """The .dat files tools/experiments/plot.gp draws: the three sweeps, and payload.dat from the
    two tables of tools/measure-communication.sh in directory (communication-<geometry>.csv),
    when both are there. Returns {file name: text}."""
    files = {}
    for _, name, points in _dpmf_sweeps(rows):
        files[name] = "# x rmse precision recall f1 map_at_n epsilon_dp\n" + "".join(
            f"{x} {r['rmse']} {r['precision']} {r['recall']} {r['f1']} {r['map_at_n']} "
            f"{r.get('epsilon_dp', 0)}\n" for x, r in points)
    payload = {}
    for geometry in ["rotated_l2", "column_l1"]:
        path = os.path.join(directory, f"communication-{geometry}.csv")
        if not os.path.exists(path):
            return files
        with open(path, newline="") as f:
            payload[geometry] = {r["compression"]: r for r in csv.DictReader(f)
                                 if r["dataset"] == "synthetic"}
    lines = ["# m/p rotated_l2_masked rotated_l2_total column_l1_masked column_l1_total"]
    for c in sorted(payload["rotated_l2"], key=float):
        a, b = payload["rotated_l2"][c], payload["column_l1"][c]
        lines.append(f"{c} {a['up_masked_input_per_user']} {a['up_total_per_user']} "
                     f"{b['up_masked_input_per_user']} {b['up_total_per_user']}")
    files["payload.dat"] = "\n".join(lines) + "\n"
    return files


# Scale: how each group's rows are labelled (groups of summed-noise DPMF-RP share one label), in
# the order they are listed; popularity is shown next to DPMF-RP, the model it is compared with.
SCALE_RUNS = [("per-user", "DPMF-RP per-user noise"), ("summed", "DPMF-RP summed noise"),
              ("lfl", "LFL-SGDMF (two phases a round)"), ("ldp", "GD-DR (ldp-gd-dr, paper mode)")]
SCALE_SUMMED = {"dpmf", "curve", "curve100"}
ML20M_USERS = 138493  # synthetic:ml-20m's users, the dataset "full"


def scale(rows):
    """docs/results/scale.md: one row per measured run (group, users, epsilon), the last of a
    repeated measurement winning, with wall seconds a round, peak RSS, F1@10 and RMSE, and
    popularity's F1@10 on the same users."""
    runs = {}
    popularity = {}
    for r in rows:
        if r["group"] == "popularity":
            popularity[r["dataset"]] = float(r["value"])
        else:
            runs.setdefault((r["group"], r["dataset"], r["epsilon"]), {})[r["metric"]] = r["value"]

    def users(dataset):
        return ML20M_USERS if dataset == "full" else int(dataset)

    def kind(group):
        return "summed" if group in SCALE_SUMMED else group

    def cell(m, key, spec, suffix=""):
        return f"{float(m[key]):{spec}}{suffix}" if key in m else "-"

    lines = ["| run | users | epsilon | rounds | s/round (wall, loaded) | peak RSS | F1@10 | RMSE "
             "| popularity F1@10 |", "|---|---|---|---|---|---|---|---|---|"]
    for run_kind, label in SCALE_RUNS:
        keys = sorted((k for k in runs if kind(k[0]) == run_kind),
                      key=lambda k: (users(k[1]), int(runs[k]["rounds"]), float(k[2])))
        for group, dataset, epsilon in keys:
            m = runs[(group, dataset, epsilon)]
            seconds = float(m["s_per_round"])
            pop = popularity.get(dataset) if label.startswith("DPMF-RP") else None
            lines.append(f"| {label} | {users(dataset):,} | {epsilon} | {m['rounds']} "
                         f"| {seconds:{',.0f' if seconds >= 1000 else '.1f'}} "
                         f"| {cell(m, 'peak_rss_mib', ',.0f', ' MiB')} | {cell(m, 'f1_10', '.4f')} "
                         f"| {cell(m, 'rmse', '.3f')} | "
                         + (f"{pop:.4f}" if pop is not None else "-") + " |")
    return "\n".join(lines)


_FMF_METHODS = {"embedding": "embedding clipping (Pi)", "gradient-1": "gradient clipping C = 1",
                "gradient-10": "gradient clipping C = 10",
                "gradient-50": "gradient clipping C = 50"}
_FMF_BASELINES = ["global-mean", "user-mean", "popularity"]


def fmf_runs(rows):
    """The runs of specs/fmf.toml's CSV, one dict a run: its label columns and its metrics, as
    the CSV has them (text), and for a central run test_mse, the square of test_rmse (the
    paper's metric) to 6 decimals, as the page's figures were computed. fmf_*_summary.py read the
    baselines and central runs from it too."""
    by_run = {}
    for row in rows:
        labels = {c: v for c, v in row.items() if c not in ("metric", "value")}
        run = by_run.setdefault(tuple(labels.values()), labels)
        run[row["metric"]] = row["value"]
    for run in by_run.values():
        if "test_rmse" in run and "test_mse" not in run:
            run["test_mse"] = f"{float(run['test_rmse']) ** 2:.6f}"
    return list(by_run.values())


def mean_std3(values):
    """"mean ± sample std" to 3 decimals (0 for one value), "-" for none: the cells of fmf.md."""
    if not values:
        return "-"
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.3f} ± {std:.3f}"


def fmf(rows):
    """docs/results/fmf.md, central part: test MSE and RMSE as mean ± sample std over seeds of
    the baselines, the non-private reference, Fig. 4 per unit (rows: clipping methods, columns:
    epsilon, 0 = no noise; the baselines the same in every column), the rates chosen, and the
    privacy figures of the seed-1 embedding-clipping runs."""
    runs = fmf_runs(rows)
    fig4 = defaultdict(list)  # (unit, method, epsilon) -> runs
    for run in runs:
        if run["group"] == "fig4":
            fig4[(run["unit"], run["method"], float(run["epsilon"]))].append(run)
    lr = {key: selected[-1]["lr"] for key, selected in fig4.items()}
    epsilons = sorted({key[2] for key in fig4})
    baselines = {m: [r for r in runs if r["group"] == "baselines" and r["method"] == m]
                 for m in _FMF_BASELINES}
    head = " | ".join("no noise" if e == 0 else f"eps = {e:g}" for e in epsilons)
    rule = "|---|" + "---|" * len(epsilons)

    lines = ["### Baselines and the non-private reference (test MSE, RMSE; mean ± std over "
             "seeds)", "", "| model | seeds | test MSE | test RMSE |", "|---|---|---|---|"]
    lines += [f"| {model} | {len(sel)} | {mean_std3([float(r['test_mse']) for r in sel])} | "
              f"{mean_std3([float(r['test_rmse']) for r in sel])} |"
              for model, sel in baselines.items()]
    references = [("non-private SGD, embedding clipping, 10000 steps (lr {lr})",
                   [r for r in runs if r["group"] == "reference"])]
    for unit, label in (("rating", "all ratings"), ("user", "trimmed to theta = 10 per user")):
        references.append((f"non-private SGD, embedding clipping ({label}; lr {{lr}})",
                           fig4.get((unit, "embedding", 0.0), [])))
    lines += [f"| {label.format(lr=sel[0]['lr'])} | {len(sel)} | "
              f"{mean_std3([float(r['test_mse']) for r in sel])} | "
              f"{mean_std3([float(r['test_rmse']) for r in sel])} |"
              for label, sel in references if sel]
    out = ["\n".join(lines)]

    def metric_table(unit, metric):
        lines = [f"| method | {head} |", rule]
        for method, label in _FMF_METHODS.items():
            lines.append(f"| {label} | " + " | ".join(
                mean_std3([float(r[metric]) for r in fig4.get((unit, method, e), [])])
                for e in epsilons) + " |")
        for model, sel in baselines.items():
            cell = mean_std3([float(r[metric]) for r in sel])
            lines.append(f"| baseline: {model} | " + " | ".join([cell] * len(epsilons)) + " |")
        return "\n".join(lines)

    for unit, title in (("rating", "per rating"), ("user", "per user (theta = 10)")):
        out.append(f"### Fig. 4, {title}: test MSE (mean ± std over seeds), (epsilon, 1e-5)-DP")
        out.append(metric_table(unit, "test_mse"))
        out.append(f"Test RMSE, {title}:")
        out.append(metric_table(unit, "test_rmse"))
        out.append(f"Learning rate chosen by the lowest training MSE on seed 1, {title}:")
        out.append("\n".join([f"| method | {head} |", rule] + [
            f"| {label} | " + " | ".join(lr.get((unit, method, e), "-") for e in epsilons) + " |"
            for method, label in _FMF_METHODS.items()]))

    lines = ["### Privacy of the embedding-clipping runs (seed 1; every run: 1000 noisy steps, "
             "eta = 0.01, delta = 1e-5)", "",
             "| unit | epsilon budget | z | epsilon spent (ours, all steps) | Delta ours | "
             "Delta paper | c1 of Prop. 2 for our z |", "|---|---|---|---|---|---|---|"]
    for unit in ("rating", "user"):
        for e in epsilons:
            sel = [r for r in fig4.get((unit, "embedding", e), []) if r["seed"] == "1"]
            if e and sel:
                r = sel[0]
                lines.append(f"| {unit} | {e:g} | {float(r['z']):.4f} | "
                             f"{float(r['epsilon_spent']):.4f} | {float(r['sensitivity']):.2f} | "
                             f"{float(r['paper_sensitivity']):.2f} | {float(r['paper_c1']):.3f} |")
    out.append("\n".join(lines))
    return "\n\n".join(out)


def _vfl_label(partition, s, t, tp, group, lrs=None):
    split = "genres" if partition == "vfl-genre" else "random"
    rate = f", lr {lrs} tuned at s = {s}" if group.endswith("-tuned") else ""
    if group.startswith("vfl-local-only"):
        return f"local-only (each party alone, T T' = {t * tp} steps), {split}, s = {s}{rate}"
    return f"VFL-SGDMF, {split}, s = {s}, (T, T') = ({t}, {tp}){rate}"


def _rate_table(tune, head, key_of, keys, label_of, chosen, test_metric):
    """A tuning table of fmf.md: a row per key (its label_of cells, head their header), a column
    per rate, "train MSE / test MSE" of the key's first run at that rate, bold at chosen[key]."""
    lrs = sorted({r["lr"] for r in tune}, key=float)
    first = {}
    for r in tune:
        first.setdefault((key_of(r), r["lr"]), r)
    lines = [f"| {head} | " + " | ".join(f"lr {lr}" for lr in lrs) + " |",
             "|---|---|" + "---|" * len(lrs)]
    for key in keys:
        cells = []
        for lr in lrs:
            r = first.get((key, lr))
            cell = f"{float(r['train_mse']):.3f} / {float(r[test_metric]):.3f}" if r else ""
            cells.append(f"**{cell}**" if r and lr == chosen[key] else cell)
        lines.append(f"| {label_of(key)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def fmf_vfl(rows):
    """docs/results/fmf.md, VFL-SGDMF (Figs. 6-7): test MSE and RMSE as mean ± sample std over
    seeds, a row per setting (partition, s, T x T'; the runs at a tuned rate only at the rate
    their tuning chose at their budget, results.lowest as run.py chose it), a column per
    epsilon, next to the central Fig. 4 runs and the baselines; each setting's privacy figures
    (seed 1); the tuning (train / test MSE, the chosen rate bold); the per-user accounting
    (vfl-privacy): z and the paper's Theorem 4."""
    runs = fmf_runs(rows)
    setting_of = lambda r: (r["partition"], r["parties"], r["T"], r["Tp"], r["epsilon"])
    tune = [r for r in runs if r["group"] in ("vfl-tune", "vfl-local-only-tune")]
    rates = {}  # (tune group, partition, s, T, T', epsilon) -> the rate with the lowest train MSE
    for r in tune:
        key = (r["group"],) + setting_of(r)
        if key not in rates:
            where = dict(zip(("group", "partition", "parties", "T", "Tp", "epsilon"), key))
            rates[key] = results.lowest(rows, where, "train_mse", "lr")
    vfl = [r for r in runs if r["group"] in ("vfl", "vfl-local-only") or (
        r["group"].endswith("-tuned") and r["partition"] and
        r["lr"] == rates.get((r["group"][:-1],) + setting_of(r)))]
    by_setting = defaultdict(list)
    for r in vfl:
        by_setting[(r["partition"], int(r["parties"]), int(r["T"]), int(r["Tp"]), r["unit"],
                    r["group"])].append(r)
    epsilons = sorted({float(r["epsilon"]) for r in vfl})
    head = " | ".join("no noise" if e == 0 else f"eps = {e:g}" for e in epsilons)

    def rates_by_budget(selected):  # "0.003 / 0.01 / ...": a tuned row's rate at each budget
        return " / ".join(next((r["lr"] for r in selected if float(r["epsilon"]) == e), "-")
                          for e in epsilons)

    def row(label, selected, metric):
        return f"| {label} | " + " | ".join(
            mean_std3([float(r[metric]) for r in selected if float(r["epsilon"]) == e])
            for e in epsilons) + " |"

    out = []
    for metric, name in (("test_mse", "test MSE"), ("test_rmse", "test RMSE")):
        out.append(f"### VFL-SGDMF per rating: {name} (mean ± std over seeds), "
                   "(epsilon, 1e-5)-DP")
        lines = [f"| setting | {head} |", "|---|" + "---|" * len(epsilons)]
        for (partition, s, t, tp, _, group), selected in sorted(by_setting.items()):
            lines.append(row(_vfl_label(partition, s, t, tp, group, rates_by_budget(selected)),
                             selected, metric))
        lines.append(row("central DP-SGD, s = 1 (Fig. 4 runs)", [
            r for r in runs if r["group"] == "fig4" and r["method"] == "embedding"
            and r["unit"] == "rating"], metric))
        for model in _FMF_BASELINES:
            cell = mean_std3([float(r[metric]) for r in runs
                              if r["group"] == "baselines" and r["method"] == model])
            lines.append(f"| baseline: {model} | " + " | ".join([cell] * len(epsilons)) + " |")
        out.append("\n".join(lines))

    out.append("### Privacy of the VFL runs (seed 1): ours (every step composed) and the "
               "paper's")
    out.append("The runs at a rate tuned per setting and budget have the same z and epsilon as "
               "these.")
    lines = ["| setting | epsilon budget | lr | z | epsilon ours | epsilon paper (Thm. 3) | "
             "seconds per run |", "|---|---|---|---|---|---|---|"]
    for (partition, s, t, tp, _, group), selected in sorted(by_setting.items()):
        if group.endswith("-tuned"):  # the same z and epsilon: only the rate differs
            continue
        kind = "local-only " if group.startswith("vfl-local-only") else ""
        lines += [f"| {kind}{partition} s = {s} ({t}, {tp}) | {r['epsilon']} | {r['lr']} | "
                  f"{r['z']} | {r.get('epsilon_ours') or '-'} | "
                  f"{r.get('epsilon_paper') or '-'} | {float(r['run_s']):.0f} |"
                  for r in selected if r["seed"] == "1"]
    out.append("\n".join(lines))

    if tune:
        out.append("### Rate tuning (run.py fmf --only vfl-tune): train MSE / test MSE, seed 1")
        out.append("The rate with the lowest train MSE (bold) at a budget is the one vfl-tuned "
                   "runs with at that budget.")
        key_of = lambda r: (r["group"],) + setting_of(r)
        label_of = lambda k: (f"{_vfl_label(k[1], int(k[2]), int(k[3]), int(k[4]), k[0])} | "
                              f"{k[5]}")
        out.append(_rate_table(tune, "setting | epsilon", key_of, sorted(
            {key_of(r) for r in tune}, key=lambda k: (int(k[2]), k[1], k[0], float(k[5]),
                                                      int(k[3]))), label_of, rates, "test_mse"))

    privacy = [r for r in runs if r["group"] == "vfl-privacy"]
    budgets = sorted({float(r["epsilon"]) for r in privacy})
    out.append("### Per-user privacy of VFL-SGDMF: the paper's Theorem 4 at our calibrated z")
    out.append("z is calibrated so that our composition of all s (T T' + kappa) = s 1000 steps "
               "spends exactly the budget; the paper's column is sqrt(s) times one party's "
               "epsilon at that z.")
    lines = ["| s | " + " | ".join(f"eps = {e:g}: z, paper" for e in budgets) + " |",
             "|---|" + "---|" * len(budgets)]
    for s in sorted({int(r["parties"]) for r in privacy}):
        cells = []
        for e in budgets:
            sel = [r for r in privacy if int(r["parties"]) == s and float(r["epsilon"]) == e]
            cells.append(f"{float(sel[0]['z']):.3f}, {float(sel[0]['epsilon_paper']):.3f}"
                         if sel else "-")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    out.append("\n".join(lines))
    return "\n\n".join(out)


_HFL_METHODS = {"pretrain-u": "HFL-SGDMF (pre-train U)", "train-both": "train-both (vanilla FMF)",
                "syn-sgd": "HFL-synSGD", "local-only": "local-only, non-private"}
_HFL_NETWORKED = {
    ("hfl-networked-in-process", "pretrain-u"): "in process (fedmf-central)",
    ("hfl-networked", "pretrain-u"):
        "real processes (fedmf-coordinator + s fedmf-client --party=hfl)",
    ("hfl-networked-in-process", "syn-sgd"):
        "HFL-synSGD in process (fedmf-central --hfl_mode=syn-sgd)",
    ("hfl-networked", "syn-sgd"): "HFL-synSGD, real processes (1001 SecAgg rounds)"}


def fmf_hfl(rows):
    """docs/results/fmf.md, HFL-SGDMF (Figs. 8-9): test MSE after and before fine-tuning as mean
    ± sample std over seeds, a row per s and method (a run counts only at the rate hfl-tune
    chose for its method and s, when s was tuned: a wider grid may have moved the rate after it
    ran), a column per epsilon (local-only's one figure in every column), next to the central
    non-private reference and the baselines; the rates and privacy of the seed-1 runs; the
    tuning (train / test MSE after fine-tuning, the chosen rate bold); the networked runs next
    to their in-process twins and the seed-1 baselines."""
    runs = fmf_runs(rows)
    tune = [r for r in runs if r["group"] == "hfl-tune"]
    tuned = {}  # (method, s) -> the rate with the lowest train MSE
    for r in tune:
        key = (r["method"], r["parties"])
        if key not in tuned:
            tuned[key] = results.lowest(rows, {"group": "hfl-tune", "method": key[0],
                                               "parties": key[1]}, "train_mse", "lr")
    hfl = [r for r in runs if r["group"] == "hfl-runs" and
           tuned.get((r["method"], r["parties"]), r["lr"]) == r["lr"]]
    groups = defaultdict(list)
    for r in hfl:
        groups[(int(r["parties"]), r["method"])].append(r)
    epsilons = sorted({float(r["epsilon"]) for r in hfl if float(r["epsilon"]) > 0})
    head = " | ".join(f"eps = {e:g}" for e in epsilons)
    order = lambda kv: (kv[0][0], list(_HFL_METHODS).index(kv[0][1]))

    def cells(selected, metric):
        return [mean_std3([float(r[metric]) for r in selected
                           if r["method"] == "local-only" or float(r["epsilon"]) == e])
                for e in epsilons]

    out = []
    for metric, name in (("test_mse_after", "after fine-tuning (Fig. 9; Fig. 8 right)"),
                         ("test_mse_before", "before fine-tuning (Fig. 8 left)")):
        out.append(f"### HFL per user: test MSE {name}, mean ± std over seeds, "
                   "(epsilon, 1e-5)-DP")
        lines = [f"| s | method | seeds | {head} |", "|---|---|---|" + "---|" * len(epsilons)]
        for (s, method), selected in sorted(groups.items(), key=order):
            lines.append(f"| {s} | {_HFL_METHODS[method]} | {len({r['seed'] for r in selected})}"
                         " | " + " | ".join(cells(selected, metric)) + " |")
        references = [("central non-private SGD, embedding clipping (run.py fmf fig4, eps 0)",
                       [r for r in runs if r["group"] == "fig4" and r["method"] == "embedding"
                        and r["unit"] == "rating" and float(r["epsilon"]) == 0])]
        references += [(f"baseline: {model}", [r for r in runs if r["group"] == "baselines"
                                               and r["method"] == model])
                       for model in _FMF_BASELINES]
        for label, sel in references:
            cell = mean_std3([float(r["test_mse"]) for r in sel])
            lines.append(f"| - | {label} | {len(sel)} | " + " | ".join([cell] * len(epsilons))
                         + " |")
        out.append("\n".join(lines))

    out.append("### Rates and privacy (seed 1): ours composes all T T' = 1000 noisy steps of a "
               "user's party; Proposition 3 counts T' = 10")
    lines = ["| s | method | epsilon budget | lr | z | epsilon ours | epsilon paper (Prop. 3) | "
             "sensitivity ours / paper | seconds |", "|---|---|---|---|---|---|---|---|---|"]
    for (s, method), selected in sorted(groups.items()):
        lines += [f"| {s} | {_HFL_METHODS[method]} | "
                  f"{r['epsilon'] if method != 'local-only' else '-'} | {r['lr']} | "
                  f"{r.get('z') or '-'} | {r.get('epsilon_ours') or '-'} | "
                  f"{r.get('epsilon_paper') or '-'} | {r['sensitivity']} / "
                  f"{r['paper_sensitivity']} | {float(r['train_s']):.0f} |"
                  for r in selected if r["seed"] == "1"]
    out.append("\n".join(lines))

    if tune:
        out.append("### Rate tuning (run.py fmf --only hfl-tune): train MSE / test MSE after "
                   "fine-tuning, epsilon = 1, seed 1")
        out.append("The rate with the lowest train MSE (bold, the paper's rule) is the one the "
                   "runs use.")
        key_of = lambda r: (r["method"], r["parties"])
        out.append(_rate_table(tune, "s | method", key_of, sorted(
            {key_of(r) for r in tune}, key=lambda k: (int(k[1]), list(_HFL_METHODS).index(k[0]))),
            lambda k: f"{k[1]} | {_HFL_METHODS[k[0]]}", tuned, "test_mse_after"))

    networked = [r for r in runs if (r["group"], r["method"]) in _HFL_NETWORKED]
    if networked:
        lines = ["| run | s | epsilon | lr | z | test MSE before fine-tuning | test MSE after | "
                 "train MSE after | seconds |", "|---|---|---|---|---|---|---|---|---|"]
        lines += [f"| {_HFL_NETWORKED[(r['group'], r['method'])]} | {r['parties']} | "
                  f"{r['epsilon']} | {r['lr']} | {r['z']} | {r['test_mse_before']} | "
                  f"{r['test_mse_after']} | {r.get('train_mse') or '-'} | "
                  f"{float(r['train_s']):.0f} |" for r in networked]
        lines += [f"| baseline: {r['method']} | - | - | - | - | - | {r['test_mse']} | - | - |"
                  for r in runs if r["group"] == "baselines" and r["seed"] == "1"]
        out.append("\n".join(lines))
    return "\n\n".join(out)


_LFL_EPSILONS = ["0.5", "1", "2", "5"]


def fmf_lfl(rows):
    """docs/results/fmf.md, LFL-SGDMF (Fig. 10): test MSE as mean ± sample std over the seeds
    with every lfl-fig10 run (a run stopped midway leaves a seed incomplete), a row per method
    (stage 1 only, the non-private run and the baselines the same in every column), a column
    per epsilon; the rates chosen on seed 1 (lowest test MSE) and seed 1's test MSE at each; the
    privacy of the seed-2 LFL-SGDMF runs."""
    runs = [r for r in fmf_runs(rows) if r["group"].startswith("lfl-")]
    wanted = {("stage1-only", "0"), ("lfl-none", "0")} | {
        (m, e) for m in ("lfl-sgdmf", "gd-dr") for e in _LFL_EPSILONS}
    have = defaultdict(set)
    for r in runs:
        if r["group"] == "lfl-fig10":
            have[r["seed"]].add((r["method"], r["epsilon"]))
    seeds = sorted(seed for seed, done in have.items() if wanted <= done)
    runs = [r for r in runs if r["group"] != "lfl-fig10" or r["seed"] in seeds]

    def mses(group, method, eps=None, in_seeds=None):
        return [float(r["test_mse"]) for r in runs if r["group"] == group and
                r["method"] == method and (eps is None or r["epsilon"] == eps) and
                (in_seeds is None or r["seed"] in in_seeds)]

    def tune(method, eps):
        return [r for r in runs if r["group"] == "lfl-tune" and r["method"] == method and
                (eps is None or r["epsilon"] == eps)]

    def chosen(method, eps):
        return results.lowest(rows, {"group": "lfl-tune", "method": method, "epsilon": eps},
                              "test_rmse", "lr") or "-"

    def table(header, body):
        return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] +
                         ["| " + " | ".join(row) + " |" for row in body])

    body = []
    for method, label in [("stage1-only", "LFL stage 1 only (V_0, no federated phase)"),
                          ("lfl-sgdmf", "LFL-SGDMF, two-phase, omega 0.3, T = 10"),
                          ("gd-dr", "GD-DR (eps-LDP, k = 10)")]:
        if method == "stage1-only":
            body.append([label] + [mean_std3(mses("lfl-fig10", method))] * len(_LFL_EPSILONS))
        else:
            body.append([label] + [mean_std3(mses("lfl-fig10", method, e))
                                   for e in _LFL_EPSILONS])
    body.append([f"LFL-SGDMF non-private (lr {chosen('lfl-none', '0')}), T = 10"] +
                [mean_std3(mses("lfl-fig10", "lfl-none"))] * len(_LFL_EPSILONS))
    for model, label in [("global-mean", "global-mean"), ("user-mean", "user-mean"),
                         ("popularity", "popularity (item mean)")]:
        body.append([f"baseline: {label}"] + [mean_std3(mses(
            "lfl-baselines", model, in_seeds=seeds))] * len(_LFL_EPSILONS))
    out = [f"### Fig. 10 on ML-100K: test MSE (mean ± std over seeds {', '.join(seeds)}), "
           "(epsilon, 1e-5)-DP per user",
           table(["method"] + [f"eps = {e}" for e in _LFL_EPSILONS], body),
           "Learning rate of LFL-SGDMF chosen on seed 1 (lowest test MSE; seed 1 is not in the "
           "table above), and seed 1's test MSE at each rate:"]
    lrs = sorted({r["lr"] for r in tune("lfl-sgdmf", None)}, key=float)
    body = []
    for e in _LFL_EPSILONS:
        cells = []
        for lr in lrs:
            v = [float(r["test_mse"]) for r in tune("lfl-sgdmf", e) if r["lr"] == lr]
            cells.append(f"{v[0]:.4f}" if v else "-")
        body.append([e, chosen("lfl-sgdmf", e)] + cells)
    out.append(table(["epsilon", "chosen"] + [f"lr {lr}" for lr in lrs], body))
    none = sorted(tune("lfl-none", None), key=lambda r: float(r["lr"]))
    out.append("Non-private LFL on seed 1: " + ", ".join(
        f"lr {r['lr']}: {float(r['test_mse']):.4f}" for r in none) + ".")
    out.append("Privacy of the LFL-SGDMF runs (seed 2): sigma of the sum and the ledger's "
               "epsilon")
    body = []
    for e in _LFL_EPSILONS:
        sel = [r for r in runs if r["group"] == "lfl-fig10" and r["method"] == "lfl-sgdmf" and
               r["epsilon"] == e]
        if sel:
            body.append([e, f"{float(sel[0]['noise_std']):.1f}", sel[0]["epsilon_spent"]])
    out.append(table(["budget", "sigma (per coordinate of the sum)", "epsilon spent (ledger)"],
                     body))
    return "\n\n".join(out)
