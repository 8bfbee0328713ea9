"""docs/results/hdpmf.md's tables: HDPMF, PDPMF and MF next to the paper's figures."""
import math
import re
import statistics
from collections import defaultdict

from .formatting import mean_std4


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
                lines.append(f"| {name} | {rank} | {mean_std4(metric(key, 0))} | {paper[0]} "
                             f"| {mean_std4(metric(key, 1))} | {paper[1]} "
                             f"| {mean_std4(metric(key, 2))} | {len(runs[key])} |")
    for name in ("global-mean", "user-mean", "popularity"):
        key = ("table3", name, 0)
        if key in runs:
            lines.append(f"| {name} (fedmf-central) | - | {mean_std4(metric(key, 0))} | - | "
                         f"{mean_std4(metric(key, 1))} | - | {mean_std4(metric(key, 2))} "
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
            cells = [mean_std4([runs[("table3", n, rank)][s][0] for s in seeds
                                 if s in runs.get(("table3", n, rank), {})]) for n in names]
            lines.append(f"| {rank} | {', '.join(map(str, seeds))} | " + " | ".join(cells) + " |")
        out.append(lines)
    out += _paper_choices(runs)
    sound = sorted(k for k in runs if k[0] == "sound")
    if sound:
        out.append(["### Sound mode"])
        lines = ["| method | K | MSE | MAE | P@10 | seeds |", "|---|---|---|---|---|---|"]
        for key in sound:
            lines.append(f"| {key[1]} | {key[2]} | {mean_std4(metric(key, 0))} "
                         f"| {mean_std4(metric(key, 1))} | {mean_std4(metric(key, 2))} "
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
                lines.append(f"| {v} | {mean_std4(h)} | {mean_std4(p)} | {gap} |")
            out.append(lines)
    sparsity = sorted({k[0] for k in runs if k[0].startswith("sparsity")},
                      key=lambda g: float(g[len("sparsity"):]))
    for rank in sorted({k[2] for k in runs if k[0] in sparsity and k[2] > 0}, reverse=True):
        out.append([f"### MSE vs training fraction (leave-one-out, K = {rank}, seed 1)"])
        lines = ["| fraction | MF | HDPMF | PDPMF | user mean | item popularity |",
                 "|---|---|---|---|---|---|"]
        for g in sparsity:
            cells = [mean_std4(metric((g, name, rank), 0)) for name in ("mf", "hdpmf", "pdpmf")]
            cells += [mean_std4(metric((g, name, 0), 0)) for name in ("user-mean", "popularity")]
            lines.append(f"| {g[len('sparsity'):]} | " + " | ".join(cells) + " |")
        out.append(lines)
    return "\n\n".join("\n".join(lines) for lines in out if lines)


# The ablation's rows (group "choices"): a choice's name, its HDPMF and PDPMF runs' names (the
# threshold rows change PDPMF only, so their HDPMF is ours).
CHOICES = [("ours (refit scorer, projection, clamp, midpoint init, t from the specification)",
            "hdpmf-ours", "pdpmf-ours"),
           ("u_i not projected onto the unit ball", "hdpmf-no-projection", "pdpmf-no-projection"),
           ("predictions not clamped", "hdpmf-no-clamp", "pdpmf-no-clamp"),
           ("zero-mean initial factors", "hdpmf-zero-init", "pdpmf-zero-init"),
           ("all three above", "hdpmf-all", "pdpmf-all"),
           ("device predicts with its trained u_i", "hdpmf-trained-factor",
            "pdpmf-trained-factor")]


def _paper_choices(runs):
    """The ablation of our deviations (group "choices"): MSE of HDPMF and PDPMF under each of
    the paper's choices, each paired with ours on the same seeds, and the paired t of PDPMF -
    HDPMF under that choice."""
    keys = [k for k in runs if k[0] == "choices"]
    if not keys:
        return []
    rank = max(k[2] for k in keys)
    thresholds = sorted({k[1] for k in keys if re.fullmatch(r"pdpmf-t[0-9.]+", k[1])},
                        key=lambda n: float(n[len("pdpmf-t"):]))
    rows = CHOICES + [(f"PDPMF's t from a mean weight of {n[len('pdpmf-t'):]}", "hdpmf-ours", n)
                      for n in thresholds]

    def mse(name):
        return {s: v[0] for s, v in runs.get(("choices", name, rank), {}).items()}

    def versus(values, base, seeds):
        seeds = [s for s in seeds if s in base]
        t, stars = _paired_t([base[s] for s in seeds], [values[s] for s in seeds])
        return "" if t is None else f" (t = {t:+.1f}{stars})"

    ours_h, ours_p = mse("hdpmf-ours"), mse("pdpmf-ours")
    lines = ["| the paper's choice | seeds | HDPMF MSE (t vs ours) | PDPMF MSE (t vs ours) "
             "| (PDPMF - HDPMF) / PDPMF | paired t (PDPMF - HDPMF) | lower |",
             "|---|---|---|---|---|---|---|"]
    for label, h_name, p_name in rows:
        h, p = mse(h_name), mse(p_name)
        seeds = sorted(set(h) & set(p))
        if not seeds:
            continue
        t, stars = _paired_t([h[s] for s in seeds], [p[s] for s in seeds])
        hm, pm = statistics.mean(h[s] for s in seeds), statistics.mean(p[s] for s in seeds)
        lower = "-" if t is None else ("HDPMF" if t > 0 else "PDPMF") + (f" {stars}" if stars else
                                                                       " (not significant)")
        lines.append(
            f"| {label} | {len(seeds)} | {mean_std4([h[s] for s in seeds])}"
            f"{'' if h_name == 'hdpmf-ours' else versus(h, ours_h, seeds)} "
            f"| {mean_std4([p[s] for s in seeds])}{'' if p_name == 'pdpmf-ours' else versus(p, ours_p, seeds)} "
            f"| {100 * (pm - hm) / pm:+.1f}% | {'-' if t is None else f'{t:+.2f}'} | {lower} |")
    for name in ("global-mean", "user-mean", "popularity"):
        base = {s: v[0] for s, v in runs.get(("table3", name, 0), {}).items()}
        if base:
            lines.append(f"| {name} (fedmf-central, Table 3's split) | {len(base)} "
                         f"| {mean_std4(list(base.values()))} | | | | |")
    return [[f"### Ablation: the paper's choices where ours differ (K = {rank}, paper mode)"],
            lines,
            ["t: paired over the seeds, one-sided stars (*, **, ***: 90/95/99%) in the direction "
             "of its sign; \"t vs ours\" > 0: the choice's MSE is higher than ours."]]


# Local-DP MF paper: its Fig. 9 table (MovieLens 20M, epsilon = 0.1) and Fig. 2 slopes.
