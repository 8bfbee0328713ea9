"""docs/results/ldp-mf.md's tables: private GD and GD-DR next to the LDP paper's figures."""
import math
import statistics
from collections import defaultdict

from .formatting import fmt_stats, stats


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
        return stats([m[name] for m in folds.values() if m.get(name, "") not in ("", "nan")])

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
        out[-1] += (f"\n| {label} | {fmt_stats(b['rmse'])} | {fmt_stats(b['mae'])} "
                    f"| {fmt_stats(b['f1'])} |")
    for k in ks:
        out[-1] += (f"\n| non-private GD, k = {k} | {fmt_stats(gd[k]['rmse'])} "
                    f"| {fmt_stats(gd[k]['mae'])} | {fmt_stats(gd[k]['f1'])} |")

    k_rows = sorted({k for (g, _, _, _, k, _) in cells if g == "k"})
    if k_rows:
        out.append("### RMSE vs k at epsilon = 0.1 (the paper's Fig. 9)")
        lines = ["| k | non-private GD | GD-DR, f_k = k^2 | GD-DR, no correction | "
                 "paper non-private (ML-20M) | paper GD-DR (ML-20M) |\n|---|---|---|---|---|---|"]
        for k in k_rows:
            on = metric(("k", "ldp-gd-dr", "paper", "true", k, "0.1"), "rmse")
            off = metric(("k", "ldp-gd-dr", "paper", "false", k, "0.1"), "rmse")
            lines.append(f"| {k} | {fmt_stats(gd.get(k, {}).get('rmse'))} | {fmt_stats(on)} "
                         f"| {fmt_stats(off)} | {LDP_PAPER_FIG9['non-private'].get(k, '-')} "
                         f"| {LDP_PAPER_FIG9['gd-dr'].get(k, '-')} |")
        lines.append(f"| baselines | user mean {fmt_stats(baseline['user-mean']['rmse'])}, "
                     f"global mean {fmt_stats(baseline['global-mean']['rmse'])}, popularity "
                     f"{fmt_stats(baseline['popularity']['rmse'])} | | | | |")
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
                line += f" {fmt_stats(metric(key, 'rmse'))} | {fmt_stats(metric(key, 'f1'))} |"
            lines.append(line)
        out.append("\n".join(lines))
        ref = gd.get(10, {})
        out.append(f"At k = 10 the non-private GD has RMSE {fmt_stats(ref.get('rmse'))} and "
                   f"F1@10 {fmt_stats(ref.get('f1'))}; the user mean RMSE "
                   f"{fmt_stats(baseline['user-mean']['rmse'])}, item popularity F1@10 "
                   f"{fmt_stats(baseline['popularity']['f1'])}.")
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
                line += f" {fmt_stats(metric(key, 'rmse'))} | {fmt_stats(metric(key, 'f1'))} |"
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
