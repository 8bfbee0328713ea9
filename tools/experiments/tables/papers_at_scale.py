"""docs/results/papers-at-scale.md's tables: each paper's private method against the baselines
without personal data as the population grows, and the tuning that chose its open setting."""
from .formatting import markdown_table
from .ldp_mf import LDP_PAPER_FIG9

# (method column, label) of the curve's private methods, in the page's order.
CURVE_METHODS = [("dpmf-rp", "DPMF-RP (Gaussian)"),
                 ("lfl", "LFL-SGDMF (two-phase noise)"),
                 ("gd-dr", "GD-DR (local DP)"),
                 ("hdpmf", "HDPMF (sound mode)"),
                 ("privirec-k", "PriviRec-k (DP option, committee of 16)"),
                 ("vfl", "VFL-SGDMF (5 item parties; per-rating DP)"),
                 ("hfl", "HFL-SGDMF (10 user parties, pre-train U)")]
# The non-private references' method column and label.
# (method, setting, label); their epsilon column is "inf".
NONPRIVATE = [("central-mf", "", "DPMF-RP's objective, central ALS (fedmf-central central-mf)"),
              ("gd-k1", "", "GD-DR's objective, non-private GD, k = 1 (fedmf-central ldp-gd)"),
              ("gd-k10", "", "the same, k = 10"),
              ("privirec-k", "k=256", "PriviRec-k, the paper's noiseless protocol, k = 256"),
              ("hfl-local-only", "s=10 lr=0.1",
               "HFL-SGDMF's baseline: each of 10 parties alone, no noise (fedmf-central)")]
BASELINES = [("popularity", "*item popularity (item mean)*"), ("user-mean", "*user mean*"),
             ("global-mean", "*global mean*")]
# The tuning experiments' method column, by the curve method they choose for.
TUNING = {"gd-dr": "gd-dr-tune", "lfl": "lfl-tune", "hdpmf": "hdpmf-tune"}
ML20M_USERS = 138493  # synthetic:ml-20m's users, the population "full"
# The deployer's bar: F1@10 at least 10% above popularity's, or RMSE at least 10% below the user
# mean's, on the same population.
MARGIN = 0.10


def _users(name):
    return ML20M_USERS if name == "full" else int(name)


def _collect(rows):
    """{(method, users, epsilon, seed, setting): {metric: float}}; the last repeat wins."""
    runs = {}
    for r in rows:
        key = (r["method"], r["users"], r["epsilon"], r["seed"], r["setting"])
        try:
            runs.setdefault(key, {})[r["metric"]] = float(r["value"])
        except ValueError:
            pass
    return runs


def _baseline(runs, model, users, seed, metric):
    return runs.get((model, users, "0", seed, ""), {}).get(metric)


# The curve's metrics: (metric, label, the baseline it is measured against).
CURVE_METRICS = [("f1_10", "F1@10 (popularity + 10%)", "popularity"),
                 ("ndcg20", "NDCG@20 (popularity + 10%)", "popularity"),
                 ("rmse", "RMSE (user mean - 10%)", "user-mean")]


def papers_at_scale_curve(rows):
    """The population curve: per method, epsilon and metric, the private model's figure at each
    population, averaged over the seeds measured there, with its change against popularity's
    (ranking) or the user mean's (rating) on the same seeds, and the smallest measured population
    at which the mean change clears the 10% bar. A metric's rows list the methods that report it
    (PriviRec-k ranks on lists of 20 only)."""
    runs = _collect(rows)
    curve = dict(CURVE_METHODS)
    populations = sorted({k[1] for k in runs if k[0] in curve}, key=_users)
    seeds = sorted({k[3] for k in runs if k[0] in curve})
    header = ["method", "metric (bar)", "epsilon"] + [f"{_users(n):,} users" for n in populations] \
        + ["smallest n clearing the bar"]
    body = []
    for metric, label, reference in CURVE_METRICS:
        method_rows = []
        for method, name in CURVE_METHODS:
            epsilons = sorted({k[2] for k, v in runs.items() if k[0] == method and
                               k[2] != "inf" and metric in v}, key=float)
            for eps in epsilons:
                cells, cleared, measured = [], None, None
                for n in populations:
                    paired = _paired(runs, (method, n, eps), (reference, n, "0"), metric, seeds)
                    if paired:
                        measured = n
                        if cleared is None and _clears(paired, metric):
                            cleared = n
                    cells.append(_fmt_paired(paired, metric))
                if measured is None:
                    continue
                if cleared is not None:
                    verdict = f"{_users(cleared):,}"
                else:
                    verdict = f"no (measured to {_users(measured):,})"
                method_rows.append([name, label, eps] + cells + [verdict])
        if method_rows:
            body.append([f"*{reference}*", label, "-"] + [
                _fmt_mean([v for v in (_baseline(runs, reference, n, s, metric) for s in seeds)
                           if v is not None], metric) for n in populations] + [""])
            body.extend(method_rows)
    return markdown_table(header, body)


def _paired(runs, first, second, metric, seeds):
    """[(first's value, second's value)] on each seed where both report the metric; a point is
    (method, users, epsilon), setting-agnostic (the last run of it wins)."""
    pairs = []
    for seed in seeds:
        a = _last(runs, *first, seed).get(metric)
        b = _last(runs, *second, seed).get(metric)
        if a is not None and b is not None:
            pairs.append((a, b))
    return pairs


def _change(pair):
    return pair[0] / pair[1] - 1


def _clears(pairs, metric):
    """The mean per-seed change clears the bar (MARGIN in the metric's good direction)."""
    mean = sum(_change(p) for p in pairs) / len(pairs)
    return mean <= -MARGIN if metric == "rmse" else mean >= MARGIN


def _fmt_mean(values, metric):
    return _fmt(sum(values) / len(values), metric) if values else "-"


def _fmt_paired(pairs, metric):
    """The first's mean over the seeds, its mean per-seed change against the second, and with
    several seeds the range of the changes and the number of seeds: "0.1300 (+27%; +22..+32, 3)"."""
    if not pairs:
        return "-"
    changes = [100 * _change(p) for p in pairs]
    text = f"{_fmt_mean([a for a, _ in pairs], metric)} ({sum(changes) / len(changes):+.0f}%"
    if len(pairs) > 1:
        text += f"; {min(changes):+.0f}..{max(changes):+.0f}, {len(pairs)}"
    return text + ")"


def _fmt(value, metric):
    """RMSE to 3 decimals, F1@10 and NDCG@20 to 4."""
    if value is None:
        return "-"
    return f"{value:.3f}" if metric == "rmse" else f"{value:.4f}"


def papers_at_scale_tuning(rows):
    """The tuning grids: each setting's test RMSE and F1@10 on the tuning population, the
    chosen one (lowest RMSE) in bold, with the baselines on that population."""
    runs = _collect(rows)
    header = ["method", "users", "seed", "epsilon", "setting", "RMSE", "F1@10",
              "user mean RMSE", "item mean RMSE", "popularity F1@10"]
    body = []
    for method, name in CURVE_METHODS:
        tuned = sorted((k for k in runs if k[0] == TUNING.get(method)),
                       key=lambda k: (k[1], k[3], k[2], k[4]))
        best = {}
        for k in tuned:
            rmse = runs[k].get("rmse")
            if rmse is not None and (k[:4] not in best or rmse < runs[best[k[:4]]]["rmse"]):
                best[k[:4]] = k
        for k in sorted(tuned, key=lambda k: (k[1], k[3], k[2], _setting_order(k[4]))):
            m = runs[k]
            mark = "**" if best.get(k[:4]) == k else ""
            users, seed = k[1], k[3]
            body.append([name, f"{_users(users):,}", seed, k[2], f"{mark}{k[4]}{mark}",
                         _fmt(m.get("rmse"), "rmse"), _fmt(m.get("f1_10"), "f1_10"),
                         _fmt(_baseline(runs, "user-mean", users, seed, "rmse"), "rmse"),
                         _fmt(_baseline(runs, "popularity", users, seed, "rmse"), "rmse"),
                         _fmt(_baseline(runs, "popularity", users, seed, "f1_10"), "f1_10")])
    return markdown_table(header, body)


def _setting_order(setting):
    """Grid order: by the number after '=' ("k=10" after "k=3")."""
    try:
        return float(setting.split("=", 1)[1])
    except (IndexError, ValueError):
        return float("inf")


def papers_at_scale_nonprivate(rows):
    """The non-private references: each population's F1@10 and RMSE, with the baselines'."""
    runs = _collect(rows)
    populations = sorted({k[1] for k in runs}, key=_users)
    seeds = sorted({k[3] for k in runs if k[2] == "inf"})
    header = ["model", "seed"] + [f"{_users(n):,} users: F1@10 / NDCG@20 / RMSE"
                                  for n in populations]
    body = []
    for seed in seeds:
        for method, eps, setting, label in [(m, "0", "", label) for m, label in BASELINES] + [
                (m, "inf", setting, label) for m, setting, label in NONPRIVATE]:
            cells = []
            for n in populations:
                m = runs.get((method, n, eps, seed, setting))
                cells.append("-" if m is None else " / ".join(
                    _fmt(m.get(metric), metric) for metric in ("f1_10", "ndcg20", "rmse")))
            body.append([label, seed] + cells)
    return markdown_table(header, body)


def papers_at_scale_fig9(rows):
    """The local-DP MF paper's Fig. 9 at its scale: GD-DR's RMSE and the non-private GD's against
    k, ours on ML-20M's shape next to the paper's on ML-20M."""
    runs = _collect(rows)
    keys = sorted({(k[1], k[2], k[3], k[4]) for k in runs if k[0] == "gd-dr-fig9"},
                  key=lambda k: (k[2], _setting_order(k[3])))
    header = ["users", "seed", "epsilon", "k", "GD-DR RMSE", "non-private GD RMSE",
              "paper GD-DR (ML-20M)", "paper non-private (ML-20M)", "user / item mean RMSE"]
    body = []
    for users, eps, seed, setting in keys:
        k = int(_setting_order(setting))
        private = runs[("gd-dr-fig9", users, eps, seed, setting)].get("rmse")
        exact = runs.get(("gd-fig9", users, "inf", seed, setting), {}).get("rmse")
        paper = {name: LDP_PAPER_FIG9[name].get(k) for name in ("gd-dr", "non-private")}
        body.append([f"{_users(users):,}", seed, eps, k, _fmt(private, "rmse"),
                     _fmt(exact, "rmse"),
                     "-" if paper["gd-dr"] is None else f"{paper['gd-dr']:.3f}",
                     "-" if paper["non-private"] is None else f"{paper['non-private']:.3f}",
                     f"{_fmt(_baseline(runs, 'user-mean', users, seed, 'rmse'), 'rmse')} / "
                     f"{_fmt(_baseline(runs, 'popularity', users, seed, 'rmse'), 'rmse')}"])
    return markdown_table(header, body)


def papers_at_scale_gd_step(rows):
    """The non-private GD and GD-DR at k = 10 against gamma_0 (claim 2's explanation): test RMSE
    and F1@10 per step, with the baselines on the same population and seed."""
    runs = _collect(rows)
    keys = sorted({(k[1], k[3], k[4]) for k in runs if k[0] in ("gd-k10-step", "gd-dr-step")},
                  key=lambda k: (_users(k[0]), k[1], _setting_order(k[2])))
    header = ["users", "seed", "gamma_0", "non-private GD RMSE / F1@10",
              "GD-DR (epsilon 5) RMSE / F1@10", "user mean RMSE", "popularity RMSE / F1@10"]
    body = []
    for users, seed, setting in keys:
        cells = []
        for method in ("gd-k10-step", "gd-dr-step"):
            m = next((v for k, v in runs.items()
                      if k[0] == method and (k[1], k[3], k[4]) == (users, seed, setting)), {})
            cells.append(f"{_fmt(m.get('rmse'), 'rmse')} / {_fmt(m.get('f1_10'), 'f1_10')}")
        body.append([f"{_users(users):,}", seed, setting.split("=", 1)[1]] + cells + [
            _fmt(_baseline(runs, "user-mean", users, seed, "rmse"), "rmse"),
            f"{_fmt(_baseline(runs, 'popularity', users, seed, 'rmse'), 'rmse')} / "
            f"{_fmt(_baseline(runs, 'popularity', users, seed, 'f1_10'), 'f1_10')}"])
    return markdown_table(header, body)


# The pairs each claim compares: (claim, first method, second, metric), the first expected lower
# for RMSE (higher for F1@10) by its paper.
# (claim, first method, second method, metric, the second's epsilon: None for the first's, "inf"
# for a non-private reference that every epsilon of the first is compared with).
CLAIM_PAIRS = [("LFL-SGDMF beats GD-DR", "lfl", "gd-dr", "rmse", None),
               ("HDPMF beats PDPMF (paper mode, its budget)", "hdpmf-paper", "pdpmf-paper", "rmse",
                None),
               ("DPMF-RP's projection keeps accuracy (F1@10)", "dpmf-rp", "dpmf-rp-no-projection",
                "f1_10", None),
               ("DPMF-RP's projection keeps accuracy (RMSE)", "dpmf-rp", "dpmf-rp-no-projection",
                "rmse", None),
               ("HFL-SGDMF beats each party alone (local-only, no noise)", "hfl",
                "hfl-local-only", "rmse", "inf")]


def papers_at_scale_claims(rows):
    """The papers' comparisons at each population and epsilon measured for both sides, over the
    seeds measured for both: the two means, the mean per-seed change of the first against the
    second (with its range and the number of seeds), and the upload lengths where logged."""
    runs = _collect(rows)
    seeds = sorted({k[3] for k in runs})
    header = ["claim", "users", "epsilon", "metric", "first", "second",
              "first vs second (range, seeds)", "upload values a user (first / second)"]
    body = []
    measured = {k[:3] for k in runs}  # (method, users, epsilon)
    for claim, first, second, metric, second_eps in CLAIM_PAIRS:
        points = sorted({(k[1], k[2]) for k in runs if k[0] == first
                         and (second, k[1], second_eps or k[2]) in measured},
                        key=lambda p: (_users(p[0]), float(p[1])))
        for users, eps in points:
            pairs = _paired(runs, (first, users, eps), (second, users, second_eps or eps), metric,
                            seeds)
            if not pairs:
                continue
            # A run's upload length is its configuration's: any run of the method logs it.
            lengths = [next((v["upload_length"] for k, v in runs.items()
                             if k[0] == method and "upload_length" in v), None)
                       for method in (first, second)]
            changes = [100 * _change(p) for p in pairs]
            spread = (f" ({min(changes):+.1f}..{max(changes):+.1f}, {len(pairs)})"
                      if len(pairs) > 1 else "")
            body.append([claim, f"{_users(users):,}", eps, "F1@10" if metric == "f1_10" else "RMSE",
                         _fmt_mean([a for a, _ in pairs], metric),
                         _fmt_mean([b for _, b in pairs], metric),
                         f"{sum(changes) / len(changes):+.1f}%{spread}",
                         " / ".join("-" if n is None else f"{n:,.0f}" for n in lengths)])
    return markdown_table(header, body)


def _last(runs, method, users, eps, seed):
    found = [v for k, v in runs.items() if k[:4] == (method, users, eps, seed)]
    return found[-1] if found else {}
