#!/usr/bin/env python3
"""Turns the CSVs of tools/experiments/ldp-mf.sh into the Markdown tables of docs/results/ldp-mf.md
(mean +/- sample std over folds), the paper's figures next to ours, and the verdict.

    tools/experiments/ldp_mf_summarize.py DIR    # reads DIR/runs.csv, distance.csv,
                                                 # communication.csv; prints Markdown
"""
import csv
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

# The paper's Fig. 9 table (MovieLens 20M, epsilon = 0.1) and Fig. 2 slopes.
PAPER_FIG9 = {
    "non-private": {1: 1.269, 3: 1.204, 5: 1.187, 10: 1.173, 20: 1.161, 50: 1.145},
    "gd-dr": {1: 2.960, 3: 1.697, 5: 1.500, 10: 1.409, 20: 1.381, 50: 1.372},
}
PAPER_SLOPES = {("ldp-gd", "none", "false"): "-1.035", ("ldp-gd", "none", "true"): "-0.975",
                ("ldp-gd-dr", "paper", "false"): "-1.028",
                ("ldp-gd-dr", "paper", "true"): "-0.821 (to eps 0.2, then flat)"}
LABELS = {("ldp-gd", "none"): "Private GD", ("ldp-gd-dr", "paper"): "GD-DR (paper: one Phi, Phi^+)",
          ("ldp-gd-dr", "unbiased"): "GD-DR (unbiased: Phi_t, Phi_t^T)"}


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def stats(values):
    values = [float(v) for v in values]
    if not values:
        return None
    mean = statistics.fmean(values)
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, std, len(values)


def fmt(s, digits=4):
    if s is None:
        return "-"
    return f"{s[0]:.{digits}f} ± {s[1]:.{digits}f}"


def main(directory):
    d = Path(directory)
    runs = read(d / "runs.csv")
    # (group, algorithm, mode, correction, k, epsilon) -> {metric: [per fold]}; a rerun of a fold
    # replaces the earlier line.
    cells = defaultdict(dict)
    for r in runs:
        key = (r["group"], r["algorithm"], r["mode"], r["correction"], int(r["k"]), r["epsilon"])
        cells[key][r["fold"]] = r
    def metric(key, name):
        rows = cells.get(key, {})
        return stats([r[name] for r in rows.values() if r[name] not in ("", "nan")])

    baseline = {m: {n: metric(("baselines", m, "central", "off", 0, "0"), n)
                    for n in ("rmse", "mae", "f1")} for m in ("global-mean", "user-mean",
                                                              "popularity")}
    ks = sorted({k for (g, a, _, _, k, _) in cells if g == "baselines" and a == "ldp-gd"})
    gd = {k: {n: metric(("baselines", "ldp-gd", "central", "off", k, "0"), n)
              for n in ("rmse", "mae", "f1")} for k in ks}
    folds = max((len(v) for v in cells.values()), default=0)

    out = []
    out.append(f"### Baselines ({folds} folds of a 10-fold split)\n")
    out.append("| model | RMSE | MAE | F1@10 |\n|---|---|---|---|")
    for m, label in (("global-mean", "global mean"), ("user-mean", "user mean"),
                     ("popularity", "item popularity (ranks by count, predicts the item mean)")):
        b = baseline[m]
        out.append(f"| {label} | {fmt(b['rmse'])} | {fmt(b['mae'])} | {fmt(b['f1'])} |")
    for k in ks:
        out.append(f"| non-private GD, k = {k} | {fmt(gd[k]['rmse'])} | {fmt(gd[k]['mae'])} | "
                   f"{fmt(gd[k]['f1'])} |")

    k_rows = sorted({k for (g, _, _, _, k, _) in cells if g == "k"})
    if k_rows:
        out.append("\n### RMSE vs k at epsilon = 0.1 (the paper's Fig. 9)\n")
        out.append("| k | non-private GD | GD-DR, f_k = k^2 | GD-DR, no correction | "
                   "paper non-private (ML-20M) | paper GD-DR (ML-20M) |\n|---|---|---|---|---|---|")
        for k in k_rows:
            on = metric(("k", "ldp-gd-dr", "paper", "true", k, "0.1"), "rmse")
            off = metric(("k", "ldp-gd-dr", "paper", "false", k, "0.1"), "rmse")
            npg = gd.get(k, {}).get("rmse")
            out.append(f"| {k} | {fmt(npg)} | {fmt(on)} | {fmt(off)} | "
                       f"{PAPER_FIG9['non-private'].get(k, '-')} | {PAPER_FIG9['gd-dr'].get(k, '-')} |")
        out.append(f"| baselines | user mean {fmt(baseline['user-mean']['rmse'])}, global mean "
                   f"{fmt(baseline['global-mean']['rmse'])}, popularity "
                   f"{fmt(baseline['popularity']['rmse'])} | | | | |")

    eps_rows = sorted({float(e) for (g, _, _, _, _, e) in cells if g == "epsilon"})
    if eps_rows:
        out.append("\n### RMSE and F1@10 vs epsilon, k = 10, f_k = k^2 (the paper's Figs. 3-4)\n")
        header = "| epsilon |"
        rule = "|---|"
        algos = [("ldp-gd", "none"), ("ldp-gd-dr", "paper"), ("ldp-gd-dr", "unbiased")]
        for a in algos:
            header += f" {LABELS[a]} RMSE | F1@10 |"
            rule += "---|---|"
        out.append(header + "\n" + rule)
        for e in eps_rows:
            es = f"{e:g}"
            line = f"| {es} |"
            for a, mode in algos:
                key = ("epsilon", a, mode, "true", 10, es)
                line += f" {fmt(metric(key, 'rmse'))} | {fmt(metric(key, 'f1'))} |"
            out.append(line)
        ref = gd.get(10, {})
        out.append(f"\nAt k = 10 the non-private GD has RMSE {fmt(ref.get('rmse'))} and F1@10 "
                   f"{fmt(ref.get('f1'))}; the user mean RMSE {fmt(baseline['user-mean']['rmse'])}, "
                   f"item popularity F1@10 {fmt(baseline['popularity']['f1'])}.")
        # The verdict: does any private model beat the user mean's RMSE (by more than the two
        # standard errors over folds)?
        user = baseline["user-mean"]["rmse"]
        wins = []
        for e in eps_rows:
            es = f"{e:g}"
            for a, mode in algos:
                s = metric(("epsilon", a, mode, "true", 10, es), "rmse")
                if s and user and s[0] + 2 * s[1] / math.sqrt(s[2]) < user[0]:
                    wins.append(f"{LABELS[(a, mode)]} at epsilon {es}")
        out.append("\n**Verdict (computed):** " + (
            "the private model beats the user-mean predictor's RMSE for " + ", ".join(wins)
            if wins else
            "no private model beats the user-mean predictor's RMSE at any epsilon tested "
            f"({', '.join(f'{e:g}' for e in eps_rows)})") + ".")

    large = sorted({float(e) for (g, _, _, _, _, e) in cells if g == "large_epsilon"})
    if large:
        out.append("\n### Beyond the paper: larger epsilon, k = 10, no correction factor\n")
        out.append("| epsilon | Private GD RMSE | F1@10 | GD-DR (unbiased) RMSE | F1@10 |\n"
                   "|---|---|---|---|---|")
        for e in large:
            es = f"{e:g}"
            line = f"| {es} |"
            for a, mode in (("ldp-gd", "none"), ("ldp-gd-dr", "unbiased")):
                key = ("large_epsilon", a, mode, "false", 10, es)
                line += f" {fmt(metric(key, 'rmse'))} | {fmt(metric(key, 'f1'))} |"
            out.append(line)

    dist_path = d / "distance.csv"
    if dist_path.exists():
        dist = read(dist_path)
        series = defaultdict(dict)
        for r in dist:
            series[(r["algorithm"], r["mode"], r["correction"])][float(r["epsilon"])] = r
        eps = sorted({e for s in series.values() for e in s})
        order = [("ldp-gd", "none", "false"), ("ldp-gd", "none", "true"),
                 ("ldp-gd-dr", "paper", "false"), ("ldp-gd-dr", "paper", "true"),
                 ("ldp-gd-dr", "unbiased", "true")]
        order = [o for o in order if o in series]
        name = lambda o: f"{LABELS[(o[0], o[1])]}{', f_k = k^2' if o[2] == 'true' else ''}"
        out.append("\n### ||V* - V||_max vs epsilon, k = 10, all of ML-100K (the paper's Fig. 2)\n")
        out.append("| epsilon | " + " | ".join(name(o) for o in order) + " |\n|---|" +
                   "---|" * len(order))
        for e in eps:
            cells_ = [series[o].get(e) for o in order]
            out.append(f"| {e:g} | " + " | ".join(
                f"{float(c['max_abs_item_diff']):.4g}" if c else "-" for c in cells_) + " |")
        slopes = []
        for o in order:
            pts = [(math.log(e), math.log(float(r["max_abs_item_diff"]))) for e, r in
                   sorted(series[o].items()) if float(r["max_abs_item_diff"]) > 0]
            if len(pts) > 1:
                mx = statistics.fmean(p[0] for p in pts)
                my = statistics.fmean(p[1] for p in pts)
                sl = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
                slopes.append(f"{sl:.3f}")
            else:
                slopes.append("-")
        out.append("| log-log slope | " + " | ".join(slopes) + " |")
        out.append("| paper's slope (ML-20M) | " + " | ".join(PAPER_SLOPES.get(o, "-")
                                                            for o in order) + " |")
        out.append("\n### Top-10 agreement with the non-private GD (F-score, the paper's Figs. 7-8)\n")
        out.append("| epsilon | " + " | ".join(name(o) for o in order) + " |\n|---|" +
                   "---|" * len(order))
        for e in eps:
            cells_ = [series[o].get(e) for o in order]
            out.append(f"| {e:g} | " + " | ".join(
                f"{float(c['top10_f_score']):.4f}" if c else "-" for c in cells_) + " |")

    comm_path = d / "communication.csv"
    if comm_path.exists():
        out.append("\n### Communication per user per iteration (the paper's Table 3)\n")
        out.append("| algorithm | report coordinates D | report information (bits: index + sign) "
                   "| uplink on the wire (bytes) | downlink (bytes: the plan with V) | paper |")
        out.append("|---|---|---|---|---|---|")
        for r in read(comm_path):
            dim = int(r["coordinates"])
            bits = math.ceil(math.log2(dim)) + 1
            paper = "1 bit up, O(d log m) down" if r["algorithm"] == "ldp-gd-dr" else "-"
            out.append(f"| {r['algorithm']} | {dim} | {bits} | {r['up_bytes_per_user']} | "
                       f"{r['down_bytes_per_user']} | {paper} |")
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
