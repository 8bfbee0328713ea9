"""docs/results/privacy-utility.md's tables and the .dat files of privacy-utility.gp.

A rerun of the same (data, group, name, seed) replaces the earlier value of each metric. The
frontier (and the tables that say "above") shows DPMF-RP on seed 1 but every mechanism at
epsilon 5 on all its seeds, at the frontier's epsilons, as that section measured it; the later
sections use every seed measured.
"""
import statistics
from collections import defaultdict

from .formatting import mean_std4

FRONTIER_EPSILONS = (1, 2, 5, 10, 20)
METRICS = [("f1", "F1@10"), ("recall", "Recall@10"), ("precision", "Precision@10"),
           ("rmse", "RMSE")]
# dpals-tune names run for section "Noise outlook and defaults" (the chosen settings at other
# budgets), not rows of section "DP-ALS"'s tuning grid.
OUTLOOK_TUNING = {
    "eps0.5-k2-T1-C100-gnone-s0.1-R1-U0.01-j1-kap5-itrue-ftrue-v1",
    "eps0.5-k5-T2-C100-gnone-s0.05-R1-U0.01-j1-kap5-ftrue-l0.05",
    "eps2-k2-T1-C100-gnone-s0.1-R1-U0.01-j1-kap5-itrue-ftrue-v1",
    "eps2-k5-T2-C100-gnone-s0.05-R1-U0.01-j1-kap5-ftrue-l0.05",
    "eps10-k5-T2-C100-gnone-s0.05-R1-U0.01-j1-kap5-ftrue-l0.05",
}
# DP-ALS's outlook points: its epsilon-5 model (rank 5, two releases); the epsilon-1 setting is
# another model, not a point of the same curve.
DPALS_OUTLOOK_MODEL = "-k5-T2-"
PREFIX_SUM = "dpmf-rp gaussian, `--set noise_schedule=prefix_sum`"


class Runs:
    """The runs of one dataset: (group, name, seed) -> metric -> value (the latest)."""

    def __init__(self, rows, data):
        self.runs = defaultdict(dict)
        for row in rows:
            if row["data"] == data:
                run = self.runs[(row["group"], row["name"], row["seed"])]
                run.update(group=row["group"], name=row["name"], mechanism=row["mechanism"],
                           epsilon=row["epsilon"], seed=row["seed"])
                run[row["metric"]] = row["value"]

    def select(self, group, name=None, epsilon=None, seeds=None):
        return [r for r in self.runs.values() if r["group"] == group
                and (name is None or r["name"] == name)
                and (epsilon is None or float(r["epsilon"]) == epsilon)
                and (seeds is None or r["seed"] in seeds)]

    def method(self, method, epsilon, frontier=False):
        """A frontier method's runs at epsilon (frontier: as the frontier section shows them)."""
        if method == "dp-popularity":
            return self.select("popularity", epsilon=epsilon)
        if method == "dp-als":
            return self.select("dpals", epsilon=epsilon)
        if method == PREFIX_SUM:
            return self.select("noise-schedule", epsilon=epsilon)
        runs = self.select("dpmf", f"{method.split()[1]}-eps{epsilon:g}")
        if frontier and epsilon != 5:
            runs = [r for r in runs if r["seed"] == "1"]
        return runs


def _values(runs, metric):
    return [float(r[metric]) for r in runs if r.get(metric, "nan") != "nan"]


def _fmt_n(runs, metric):
    """The summarizer's cell: one value, or mean ± sample std (n=k)."""
    xs = _values(runs, metric)
    if len(xs) > 1:
        return f"{statistics.mean(xs):.4f} ± {statistics.stdev(xs):.4f} (n={len(xs)})"
    return f"{xs[0]:.4f}" if xs else "-"


def _cell(runs, metric):
    """mean ± sample std, with (n=k) when fewer of the runs report the metric."""
    xs = _values(runs, metric)
    text = mean_std4(xs)
    return text + (f" (n={len(xs)})" if 1 < len(xs) < len(runs) else "")


def _mean(runs, metric):
    xs = _values(runs, metric)
    return f"{statistics.mean(xs):.4f}" if xs else "-"


def _baselines(runs):
    by_name = defaultdict(list)
    for r in runs.select("baselines"):
        by_name[r["name"]].append(r)
    lines = ["| baseline | seeds | " + " | ".join(label for _, label in METRICS) + " |",
             "|---|---|" + "---|" * len(METRICS)]
    for name, rs in sorted(by_name.items()):
        lines.append(f"| {name} | {len(rs)} | " +
                     " | ".join(_fmt_n(rs, k) for k, _ in METRICS) + " |")
    return lines


def _frontier(runs):
    lines = ["| method | ε (whole run, δ = 1e-5) | " +
             " | ".join(label for _, label in METRICS) +
             " | seeds | bits / coordinate (client, sum) | values up | SecAgg masked input bytes "
             "/ user / round | fedmf-sim upload bytes / user / round |",
             "|---|---|" + "---|" * (len(METRICS) + 5)]
    methods = ["dp-popularity"] + [f"dpmf-rp {m}" for m in ("ddg", "gaussian", "pbm")]
    for method in methods:
        for eps in FRONTIER_EPSILONS:
            rs = sorted(runs.method(method, eps, frontier=True), key=lambda r: int(r["seed"]))
            if not rs:
                continue
            r0 = rs[0]
            length, sum_bits = int(r0["upload_length"]), int(r0["sum_bits"])
            lines.append(f"| {method} | {eps:g} | " +
                         " | ".join(_fmt_n(rs, k) for k, _ in METRICS) +
                         f" | {len(rs)} | {r0['client_bits']}, {sum_bits} | {length} |"
                         f" {(length * sum_bits + 7) // 8} | {r0['up_bytes_per_user']} |")
    return lines


def _caps(runs):
    tune = {(float(r["epsilon"]), int(r["name"].split("-c")[-1])): float(r["f1"])
            for r in runs.select("popularity-tune") if float(r["epsilon"]) in FRONTIER_EPSILONS}
    caps = sorted({c for _, c in tune})
    lines = ["| ε \\ c (F1@10, seed 1) | " + " | ".join(str(c) for c in caps) + " |",
             "|---|" + "---|" * len(caps)]
    for eps in sorted({e for e, _ in tune}):
        lines.append(f"| {eps:g} | " + " | ".join(
            f"{tune[(eps, c)]:.4f}" if (eps, c) in tune else "-" for c in caps) + " |")
    return lines


def _gaussian_routes(runs):
    def settings(r):  # eps<E>-T<rounds>-C<clip>-s<step>
        _, rounds, clip, step = r["name"].split("-")
        return int(rounds[1:]), float(clip[1:]), float(step[1:])
    lines = ["| ε | rounds T | clip C | step | F1@10 | Recall@10 | RMSE (seed 1) |",
             "|---|---|---|---|---|---|---|"]
    for r in sorted(runs.select("gaussian-tune"), key=lambda r: (float(r["epsilon"]), settings(r))):
        rounds, clip, step = (f"{v:g}" for v in settings(r))
        lines.append(f"| {float(r['epsilon']):g} | {rounds} | {clip} | {step} |"
                     f" {float(r['f1']):.4f} | {float(r['recall']):.4f} | {float(r['rmse']):.4f} |")
    return lines


RANKING = ("f1", "recall", "ndcg")


def _dpals_seeds(runs, global_mean, item_mean_label):
    """Section DP-ALS's tables: the baselines, DP-ALS at 1 and 5, the frontier's rows."""
    lines = ["| method | ε | F1@10 | Recall@10 | NDCG@10 | RMSE | seeds |",
             "|---|---|---|---|---|---|---|"]

    def row(label, eps, rs, metrics=RANKING + ("rmse",)):
        cells = [_cell(rs, m) if m in metrics else "-" for m in RANKING + ("rmse",)]
        lines.append(f"| {label} | {eps} | " + " | ".join(cells) + f" | {len(rs)} |")
    if global_mean:
        row("global mean", "-", runs.select("baselines", "global-mean"))
    row("user mean", "-", runs.select("baselines", "user-mean"))
    row(item_mean_label, "-", runs.select("baselines", "popularity"), ("rmse",))
    row("popularity (non-private)", "-", runs.select("baselines", "popularity"), RANKING)
    for eps in (1, 5):
        row("**dp-als**", eps, runs.method("dp-als", eps))
    if global_mean:  # the full data's frontier rows
        for method, eps in (("dp-popularity", 1), ("dp-popularity", 5), ("dpmf-rp gaussian", 1),
                            ("dpmf-rp gaussian", 5), ("dpmf-rp ddg", 5)):
            row(f"{method} (above)", eps, runs.method(method, eps, frontier=True))
    return lines


def _dpals_grid(runs):
    lines = ["| DP-ALS settings (seed 1) | F1@10 | Recall@10 | NDCG@10 | RMSE |",
             "|---|---|---|---|---|"]
    tried = [r for r in runs.select("dpals-tune") if r["name"] not in OUTLOOK_TUNING]
    for r in sorted(tried, key=lambda r: (float(r["epsilon"]), -float(r["f1"]))):
        lines.append(f"| {r['name']} | " +
                     " | ".join(_fmt_n([r], k) for k in ("f1", "recall", "ndcg", "rmse")) + " |")
    return lines


def _schedule_per_seed(runs):
    lines = ["| ε | seed | F1@10 constant | F1@10 prefix_sum | Δ | RMSE constant "
             "| RMSE prefix_sum | Δ |", "|---|---|---|---|---|---|---|---|"]
    for eps, seed, constant, scheduled in _schedule_pairs(runs):
        cells = []
        for m in ("f1", "rmse"):
            a, b = float(constant[m]), float(scheduled[m])
            cells += [f"{a:.4f}", f"{b:.4f}", f"{b - a:+.4f}"]
        lines.append(f"| {eps:g} | {seed} | " + " | ".join(cells) + " |")
    return lines


def _schedule_pairs(runs):
    """(epsilon, seed, constant run, prefix_sum run) on ML-100K, by epsilon and seed."""
    pairs = []
    for r in runs.select("noise-schedule"):
        eps = float(r["epsilon"])
        constant = runs.select("dpmf", f"gaussian-eps{eps:g}", seeds={r["seed"]})
        if constant:
            pairs.append((eps, int(r["seed"]), constant[0], r))
    return sorted(pairs, key=lambda p: p[:2])


def _schedule_seeds(runs):
    lines = ["| ε | F1@10 constant | F1@10 prefix_sum | paired Δ F1 | RMSE constant | RMSE "
             "prefix_sum | paired Δ RMSE |", "|---|---|---|---|---|---|---|"]
    by_eps = defaultdict(list)
    for eps, _, constant, scheduled in _schedule_pairs(runs):
        by_eps[eps].append((constant, scheduled))
    for eps, pairs in sorted(by_eps.items()):
        if len(pairs) < 2:
            continue
        cells = []
        for m in ("f1", "rmse"):
            a = [float(c[m]) for c, _ in pairs]
            b = [float(s[m]) for _, s in pairs]
            d = [y - x for x, y in zip(a, b)]
            cells += [mean_std4(a), mean_std4(b),
                      f"{statistics.mean(d):+.4f} ± {statistics.stdev(d):.4f}"]
        lines.append(f"| {eps:g} | " + " | ".join(cells) + " |")
    return lines


def _outlook_frontier(runs, epsilons, methods, seeds_column, user_mean_spread):
    """Section "Noise outlook"'s frontiers: every seed measured."""
    lines = ["| method | ε | F1@10 | Recall@10 | NDCG@10 | RMSE |" +
             (" seeds |" if seeds_column else ""),
             "|---|---|---|---|---|---|" + ("---|" if seeds_column else "")]

    def row(label, eps, ranking, rmse, rs):
        lines.append(f"| {label} | {eps} | " + " | ".join(ranking + [rmse]) + " |" +
                     (f" {len(rs)} |" if seeds_column else ""))
    popular = runs.select("baselines", "popularity")
    row("popularity (non-private)", "-", [_cell(popular, m) for m in RANKING],
        f"{_mean(popular, 'rmse')} (item mean)", popular)
    user = runs.select("baselines", "user-mean")
    row("user mean", "-", [(_cell if user_mean_spread else _mean)(user, m) for m in RANKING],
        _cell(user, "rmse"), user)
    for method in methods:
        for eps in epsilons:
            rs = runs.method(method, eps)
            if rs:
                row(method, f"{eps:g}", [_cell(rs, m) for m in RANKING], _cell(rs, "rmse"), rs)
    return lines


def _outlook_calibration(runs):
    lines = ["| algorithm | ε | noise_to_signal | seeds | F1@10 | DP popularity (same seeds) "
             "| ratio |", "|---|---|---|---|---|---|---|"]
    for algorithm, method in (("dpmf-rp", "dpmf-rp gaussian"), ("dp-als", "dp-als")):
        points = []
        for r in runs.select("outlook", algorithm):
            eps = float(r["epsilon"])
            private = {x["seed"]: float(x["f1"]) for x in runs.method(method, eps)
                       if algorithm != "dp-als" or DPALS_OUTLOOK_MODEL in x["name"]}
            popular = {x["seed"]: float(x["f1"]) for x in runs.method("dp-popularity", eps)}
            seeds = sorted(set(private) & set(popular))
            if seeds:
                f1 = statistics.mean(private[s] for s in seeds)
                pop = statistics.mean(popular[s] for s in seeds)
                points.append((float(r["noise_to_signal"]), eps, len(seeds), f1, pop))
        for nts, eps, n, f1, pop in sorted(points):
            lines.append(f"| {algorithm} | {eps:g} | {nts:.4g} | {n} | {f1:.4f} | {pop:.4f} "
                         f"| {f1 / pop:.3f} |")
    return lines


def _synthetic(rows):
    lines = ["| data | method | ε | F1@10 | Recall@10 | NDCG@10 | RMSE |",
             "|---|---|---|---|---|---|---|"]
    for users in (400, 2000):
        runs = Runs(rows, f"synthetic-ml-100k-users-{users}")
        label = f"| `synthetic:ml-100k,users={users}` |"
        for name, method in (("popularity (non-private)", "popularity"),
                             ("user mean", "user-mean")):
            rs = runs.select("baselines", method)
            lines.append(f"{label} {name} | - | " +
                         " | ".join(_mean(rs, m) for m in RANKING + ("rmse",)) + " |")
            label = "| |"
        for method in ("dp-popularity", "dpmf-rp gaussian"):
            by_eps = [runs.method(method, eps) for eps in (1, 5)]
            cells = [" / ".join(_mean(rs, m) for rs in by_eps) for m in RANKING]
            rmse = [_mean(rs, "rmse") for rs in by_eps]
            cells.append("-" if "-" in rmse else " / ".join(rmse))
            lines.append(f"| | {method} | 1 / 5 | " + " | ".join(cells) + " |")
    return lines


def _cost(rows):
    """The cost experiment: client CPU (user + system) over users x rounds, the coordinator's
    bytes up per user, mean over the rounds (truncated as the figures before it)."""
    lines = ["| algorithm (its defaults) | users | rounds | coordinates x bits "
             "| client CPU s / user / round | bytes up / user / round |", "|---|---|---|---|---|---|"]
    for data in sorted({r["data"] for r in rows if r["group"] == "cost"}):
        users = int(data.split("-")[1])  # first-<users>-users
        for r in Runs(rows, data).select("cost"):
            rounds = int(r["rounds"])
            cpu = (float(r["user_s"]) + float(r["sys_s"])) / (users * rounds)
            lines.append(f"| {r['name']} | {users} | {rounds} | {r['length']} x {r['bits']} "
                         f"| {cpu:.4f} | {int(float(r['up_bytes_per_user'])):,} |")
    return lines


def privacy_utility(rows):
    full = Runs(rows, "ml-100k")
    sub = Runs(rows, "subsample-600")
    methods = ["dp-popularity", "dp-als", "dpmf-rp gaussian", PREFIX_SUM]
    out = [_baselines(full), _frontier(full), _caps(full), _gaussian_routes(full),
           _dpals_seeds(full, True, "item mean (= popularity's RMSE)"),
           _dpals_seeds(sub, False, "item mean"), _cost(rows), _dpals_grid(full),
           _schedule_per_seed(full), _schedule_seeds(full),
           _outlook_frontier(full, (0.5, 1, 2, 5, 10), methods, True, False),
           _outlook_frontier(sub, (1, 5), methods, False, True),
           _outlook_calibration(full), _synthetic(rows)]
    return "\n\n".join("\n".join(lines) for lines in out)


def privacy_utility_plot_data(rows, directory):
    """frontier-<method>.dat (epsilon and the mean of each metric over the frontier's runs) and
    popularity.dat (non-private popularity's F1@10, flat) for each dataset directory of
    privacy-utility.gp: the full data's in DIRECTORY, the others' in DIRECTORY/<data>."""
    files = {}
    for data in sorted({r["data"] for r in rows}):
        runs = Runs(rows, data)
        prefix = "" if data == "ml-100k" else f"{data}/"
        popular = _values(runs.select("baselines", "popularity"), "f1")
        if popular:
            f1 = statistics.mean(popular)
            files[f"{prefix}popularity.dat"] = f"0.5 {f1:.6f}\n20 {f1:.6f}\n"
        for method in ["dpmf-rp pbm", "dpmf-rp gaussian", "dpmf-rp ddg", "dp-popularity",
                       "dp-als"]:
            points = []
            for eps in sorted({float(r["epsilon"]) for r in runs.runs.values()
                               if r["epsilon"] != "inf"}):
                rs = runs.method(method, eps)
                if rs:
                    means = [statistics.mean(_values(rs, k)) if _values(rs, k) else float("nan")
                             for k in ("f1", "recall", "precision", "rmse", "ndcg")]
                    points.append(f"{eps:g} " + " ".join(f"{m:.6f}" for m in means))
            if points:
                files[f"{prefix}frontier-{method.replace(' ', '-')}.dat"] = (
                    "# epsilon f1 recall precision rmse ndcg\n" + "\n".join(points) + "\n")
    return files
