"""docs/results/privirec.md's tables: graph filters, PriviRec and PriviRec-k on Gowalla and
ML-100K, with and without the DP option."""
import math
import statistics
from collections import defaultdict

from .formatting import markdown_table

# The filters' published Gowalla figures: Recall@20 from each filter's own paper, NDCG@20 from
# PriviRec's Table 3 (centralized column); the settings as fedmf-central runs them.
GRAPH_FILTERS = {
    "popularity": ("item popularity", "train interaction count "
                   "(`common/algorithms/popularity_scorer.h`)", "", ""),
    "gf-cf": ("GF-CF", "alpha 1/2, k 256, gamma 0.3", "0.1849", "0.1518"),
    "turbo-cf": ("Turbo-CF", "alpha 0.6, s 0.7, polynomial 1 (P-bar)", "0.1835", "0.1531"),
    "bspm-lm": ("BSPM-LM", "as BSPM-EM with late merge (see below)", "0.1901", "0.1570"),
    "bspm-em": ("BSPM-EM", "alpha 1/2, k 448, beta 0.2, ideal and blurring Euler (T = 1, K = 1), "
                "sharpening rk4 T_s = 2.5, K_s = 1, early merge", "0.1920", "0.1597"),
}
# The builds the committed Gowalla PriviRec-k runs used, by (k, L).
GOWALLA_BUILDS = {(1024, 3): "hosts sending in batches", (2048, 2): "hosts sending in batches",
                  (2048, 3): "hosts sending in batches",
                  (3584, 2): "batches, `-march=native` build",
                  (3584, 3): "batches, `-march=native` build"}
ML100K_USERS = 943


def _runs(rows):
    """(labels without metric and value) -> metric -> the first value the CSV holds (a rerun
    of the same setting and seed, for timing or for the noise stds, does not change it)."""
    runs = defaultdict(dict)
    for row in rows:
        key = tuple((c, v) for c, v in row.items() if c not in ("metric", "value"))
        runs[key].setdefault(row["metric"], float(row["value"]))
    return [dict(key, **metrics) for key, metrics in runs.items()]


def _select(runs, group, **labels):
    return [r for r in runs if r["group"] == group and
            all(r[c] == str(v) for c, v in labels.items())]


def _four(x):
    """Four significant digits, never in exponent form: 140.1, 0.8620, 0.00007937."""
    return f"{x:.{max(0, 3 - math.floor(math.log10(abs(x))))}f}"


def _epsilon(text):
    e = float(text)
    if e >= 1e6 and math.log10(e).is_integer():
        return f"10^{int(math.log10(e))}"
    return f"{e:,.0f}" if e == int(e) else text


def _dp_kind(text):
    """Budgets above 20 locate where the release leaves the noise floor; from 10^7 on the run
    should equal the noiseless one."""
    e = float(text)
    return "" if e <= 20 else " (sanity)" if e >= 1e7 else " (check)"


def _std(run, metric):
    if not run.get("epsilon"):
        return "0"
    return _four(run[metric]) if metric in run else ""


def _mean_std(runs, metric, bold=False):
    values = [r[metric] for r in runs]
    text = f"{statistics.mean(values):.4f}"
    if len(values) > 1:
        text += f" ± {statistics.stdev(values):.4f}"
    return f"**{text}**" if bold else text


def _grouped(runs, key):
    """Runs grouped by setting (key(run)), in the order of their first run."""
    groups = defaultdict(list)
    for r in runs:
        groups[key(r)].append(r)
    return groups


def graph_filters(runs):
    """Centralized graph filters on Gowalla, in GRAPH_FILTERS order: ours in bold next to the
    published figures (popularity has none)."""
    body = []
    for model, (label, settings, recall, ndcg) in GRAPH_FILTERS.items():
        for r in _select(runs, "graph-filters", model=model)[:1]:
            ours = [f"{r['recall20']:.4f}", f"{r['ndcg20']:.4f}"]
            if recall:
                ours = [f"**{x}**" for x in ours]
            body.append([label, settings, ours[0], recall, ours[1], ndcg,
                         f"{r['wall_s']:,.0f}", f"{r['peak_rss_mib']:,.0f}"])
    return markdown_table(["model", "settings", "Recall@20", "published", "NDCG@20",
                   "published (PriviRec Table 3)", "wall s", "peak RSS MiB"], body)


def _popularity_gowalla(runs, label, columns):
    """The popularity row of a Gowalla table, from graph-filters: columns names its cells."""
    cells = {"blank": "", "dash": "-", "recall": "{recall20:.4f}", "ndcg": "{ndcg20:.4f}",
             "wall": "{wall_s:,.0f}", "rss": "{peak_rss_mib:,.0f}"}
    return [[label] + [cells[c].format(**r) for c in columns]
            for r in _select(runs, "graph-filters", model="popularity")[:1]]


def privirec_k_gowalla(runs):
    """PriviRec-k on Gowalla, a row per k, L and eigenvalue estimate (Rayleigh-Ritz first)."""
    body = _popularity_gowalla(runs, "item popularity (centralized, table above)",
                               ["blank"] * 3 + ["recall", "ndcg", "wall", "rss"])
    grid = sorted(_select(runs, "privirec-k-gowalla", seed=1, oversample=0, filter="gf-cf"),
                  key=lambda r: (
        int(r["rank"]), int(r["power_sums"]), r["eigenvalues"] != "rr"))
    for r in grid:
        k, power_sums = int(r["rank"]), int(r["power_sums"])
        build = GOWALLA_BUILDS.get((k, power_sums))
        body.append([
            "PriviRec-k GF-CF federated" + (f", {build}" if build else ""), str(k),
            str(power_sums), "Rayleigh-Ritz" if r["eigenvalues"] == "rr" else "paper's diag(T_L)",
            f"{r['recall20']:.6f}", f"{r['ndcg20']:.6f}", f"{r['wall_s']:,.0f}",
            f"{r['peak_rss_mib']:,.0f}"])
    return markdown_table(["model", "k", "L", "eigenvalues", "Recall@20", "NDCG@20", "wall s",
                   "peak RSS MiB"], body)


def privirec_k_high_rank(runs):
    """PriviRec-k GF-CF on Gowalla with Rayleigh-Ritz over X_0's seeds, by k, L and oversampling p
    (mean ± std over the seeds run), each k followed by the exact rank-k GF-CF
    (exact-rank-k-gowalla: P~ and the low-pass from Lanczos's k vectors, the power method's
    limit)."""
    body = _popularity_gowalla(runs, "item popularity", ["blank"] * 5 + ["recall", "ndcg"])
    grid = _select(runs, "privirec-k-gowalla", filter="gf-cf", eigenvalues="rr")
    settings = _grouped(sorted(grid, key=lambda r: (
        int(r["rank"]), int(r["oversample"]), int(r["power_sums"]), r["eigenvalues"] != "rr",
        int(r["seed"]))), lambda r: (r["rank"], r["oversample"], r["power_sums"],
                                     r["eigenvalues"]))
    exact = {r["rank"]: r for r in _select(runs, "exact-rank-k-gowalla")}
    for k in sorted({key[0] for key in settings} | set(exact), key=int):
        for (rank, oversample, power_sums, eigenvalues), v in settings.items():
            if rank != k:
                continue
            body.append(["PriviRec-k GF-CF federated", k, oversample, power_sums,
                         "Rayleigh-Ritz" if eigenvalues == "rr" else "paper's diag(T_L)",
                         ", ".join(r["seed"] for r in v), _mean_std(v, "recall20"),
                         _mean_std(v, "ndcg20")])
        if k in exact:
            body.append(["GF-CF with exact rank-k P~ and low-pass (fedmf-central, Lanczos)", k,
                         "", "", "exact", "", f"{exact[k]['recall20']:.4f}",
                         f"{exact[k]['ndcg20']:.4f}"])
    return markdown_table(["model", "k", "p", "L", "eigenvalues", "seeds", "Recall@20",
                           "NDCG@20"], body)


def privirec_k_filters(runs):
    """The filters PriviRec-k's clients build from the basis on Gowalla (no client holds P~):
    each run with its peak RSS (the whole simulation) and the GF-CF run of the same k, L, p and
    seed."""
    body = []
    runs_k = _select(runs, "privirec-k-gowalla")
    for r in sorted((r for r in runs_k if r["filter"] != "gf-cf"),
                    key=lambda r: (int(r["rank"]), r["filter"], int(r["seed"]))):
        same = [g for g in runs_k if g["filter"] == "gf-cf" and all(
            g[c] == r[c] for c in ("rank", "power_sums", "eigenvalues", "oversample", "seed"))]
        for x in same[:1] + [r]:
            body.append([x["filter"], x["rank"], x["power_sums"], x["oversample"], x["seed"],
                         f"{x['recall20']:.4f}", f"{x['ndcg20']:.4f}", f"{x['wall_s']:,.0f}",
                         f"{x['peak_rss_mib']:,.0f}"])
    return markdown_table(["filter from the basis", "k", "L", "p", "seed", "Recall@20", "NDCG@20",
                           "wall s", "peak RSS MiB"], body)


def privirec_dp(runs):
    """PriviRec's DP option on ML-100K's movies 1-400: seed 1's runs (noise stds from their
    event=new_run lines; in bold the DP runs that beat item popularity on both metrics and
    their threshold, which was picked from these runs), then mean ± sample std over the seeds
    of the settings run on several."""
    dp = [r for r in _select(runs, "privirec-dp") if r["noise_parties"] in ("", "0")]
    seed1 = [r for r in dp if r["seed"] == "1"]
    popularity = next((r for r in seed1 if r["model"] == "popularity"), None)
    bold = [r for r in seed1 if _above_popularity(r, popularity)]

    def label(r, bold_threshold):
        if r["model"] == "popularity":
            return "item popularity (fedmf-central)"
        if r["model"] == "gf-cf":
            return "GF-CF centralized (fedmf-central)"
        if not r["epsilon"]:
            return "PriviRec GF-CF, no noise"
        t = f"t {r['gram_threshold']}"
        if bold_threshold and any(r["gram_threshold"] == b["gram_threshold"] for b in bold):
            t = f"**{t}**"
        return f"PriviRec GF-CF, DP, clip {r['degree_clip']}, {t}"

    order = lambda r: (r["model"] != "popularity", r["model"] != "gf-cf", r["epsilon"] != "",
                       -float(r["degree_clip"] or 0), float(r["gram_threshold"] or 0),
                       float(r["epsilon"] or 0))
    body = []
    for r in sorted(seed1, key=order):
        cells = [f"{r['recall20']:.4f}", f"{r['ndcg20']:.4f}"]
        if r in bold:
            cells = [f"**{c}**" for c in cells]
        stds = ["", ""] if r["model"] != "privirec" else [
            _std(r, "degree_noise_std"), _std(r, "gram_noise_std")]
        body.append([label(r, True), _epsilon(r["epsilon"]) if r["epsilon"] else "-"] + stds
                    + cells)
    out = [markdown_table(["model", "epsilon", "degree noise std", "Gram noise std", "Recall@20",
                   "NDCG@20"], body)]
    out.append(_over_seeds(dp, lambda r: label(r, False), order))
    return out


def _above_popularity(run, popularity):
    """Whether a DP run (or a setting's means) beats item popularity on both metrics: bold."""
    return bool(run["epsilon"]) and popularity is not None and all(
        run[m] > popularity[m] for m in ("recall20", "ndcg20"))


def _over_seeds(runs, label, order):
    """Mean ± sample std over seeds of each setting run on more than one seed; in bold the DP
    settings whose means beat item popularity's on both metrics."""
    settings = _grouped(sorted(runs, key=order), lambda r: (label(r), r["epsilon"]))
    means = {k: {"epsilon": k[1], **{m: statistics.mean(r[m] for r in v)
                                     for m in ("recall20", "ndcg20")}}
             for k, v in settings.items()}
    popularity = next((means[k] for k, v in settings.items() if v[0]["model"] == "popularity"),
                      None)
    body = [[name, _epsilon(epsilon) if epsilon else "-",
             _mean_std(v, "recall20", _above_popularity(means[name, epsilon], popularity)),
             _mean_std(v, "ndcg20", _above_popularity(means[name, epsilon], popularity))]
            for (name, epsilon), v in settings.items() if len(v) > 1]
    return markdown_table(["model", "epsilon", "Recall@20", "NDCG@20"], body)


def privirec_k_dp(runs):
    """PriviRec-k's DP option on ML-100K: seed 1's runs (noise stds from their event=new_run
    lines), then mean ± sample std over the seeds of the settings run on several."""
    dp = [r for r in _select(runs, "privirec-k-dp") if r["noise_parties"] in ("", "0")]

    def label(r, central_note=""):
        if r["model"] == "popularity":
            return "item popularity (fedmf-central)"
        if r["model"] == "gf-cf":
            return f"GF-CF centralized (fedmf-central{central_note})"
        if not r["epsilon"]:
            return f"PriviRec-k, k {r['rank']}, L {r['power_sums']}, no noise"
        return "PriviRec-k, DP" + _dp_kind(r["epsilon"])

    order = lambda r: (r["model"] != "popularity", r["model"] != "gf-cf", r["epsilon"] != "",
                       float(r["epsilon"] or 0))
    body = []
    for r in sorted((r for r in dp if r["seed"] == "1"), key=order):
        stds = ["", ""] if r["model"] != "privirec-k" else [
            _std(r, "degree_noise_std"), _std(r, "power_noise_std")]
        body.append([label(r, ", its default k"), _epsilon(r["epsilon"]) if r["epsilon"] else "-"]
                    + stds + [f"{r['recall20']:.4f}", f"{r['ndcg20']:.4f}"])
    return [markdown_table(["model", "epsilon", "degree noise std", "power noise std", "Recall@20",
                    "NDCG@20"], body), _over_seeds(dp, label, order)]


def privirec_k_dp_gowalla(runs):
    """PriviRec-k's DP option on Gowalla with a noise committee, next to the noiseless run of
    the same k and L (privirec-k-gowalla) and popularity (graph-filters)."""
    dp = sorted(_select(runs, "privirec-k-dp-gowalla"), key=lambda r: float(r["epsilon"]))
    body = _popularity_gowalla(
        runs, 'item popularity (fedmf-central, "Centralized graph filters" above)',
        ["dash", "blank", "blank", "recall", "ndcg", "wall", "blank", "rss"])
    for r in dp[:1]:
        for n in _select(runs, "privirec-k-gowalla", rank=r["rank"], power_sums=r["power_sums"],
                         eigenvalues=r["eigenvalues"])[:1]:
            body.append([f"PriviRec-k, k {n['rank']}, L {n['power_sums']}, Rayleigh-Ritz, no noise "
                         "(the table above)", "-", "0", "0", f"{n['recall20']:.4f}",
                         f"{n['ndcg20']:.4f}", f"{n['wall_s']:,.0f}", "",
                         f"{n['peak_rss_mib']:,.0f}"])
    for r in dp:
        body.append([f"PriviRec-k, DP, committee of {r['noise_parties']}" + _dp_kind(r["epsilon"]),
                     _epsilon(r["epsilon"]), _std(r, "degree_noise_std"),
                     _std(r, "power_noise_std"), f"{r['recall20']:.4f}", f"{r['ndcg20']:.4f}",
                     f"{r['wall_s']:,.0f}", f"{r['user_s']:,.0f}",
                     f"{r['max_rss_kb'] / 1024:,.0f}"])
    return markdown_table(["model", "epsilon", "degree noise std", "power noise std", "Recall@20",
                   "NDCG@20", "wall s", "user CPU s", "peak RSS MiB"], body)


def _parties(r):
    n = int(r["noise_parties"])
    return f"every user ({ML100K_USERS})" if n == 0 else f"committee of {n}"


def privirec_k_committee(runs):
    """Every user adding noise against a committee, PriviRec-k on ML-100K at one budget, seed
    1, next to that seed's popularity and noiseless runs."""
    seed1 = _select(runs, "privirec-k-dp", seed=1)
    body = [["item popularity (fedmf-central, the table above)", "-", f"{r['recall20']:.4f}",
             f"{r['ndcg20']:.4f}", "", "", ""] for r in seed1 if r["model"] == "popularity"][:1]
    body += [["PriviRec-k, no noise (the table above)", "0", f"{r['recall20']:.4f}",
              f"{r['ndcg20']:.4f}", "", "", ""]
             for r in seed1 if r["model"] == "privirec-k" and not r["epsilon"]][:1]
    for r in sorted(_select(runs, "privirec-k-dp-committee", seed=1),
                    key=lambda r: int(r["noise_parties"])):
        body.append([_parties(r), _four(r["power_noise_std"]), f"{r['recall20']:.4f}",
                     f"{r['ndcg20']:.4f}", f"{r['wall_s']:.1f}", f"{r['user_s']:.1f}",
                     f"{r['max_rss_kb'] / 1024:,.0f}"])
    return markdown_table(["noise parties", "power noise std", "Recall@20", "NDCG@20", "wall s",
                   "user CPU s", "peak RSS MiB"], body)


def privirec_committee(runs):
    """The same for PriviRec on ML-100K's movies 1-400 (seed 1)."""
    body = [["item popularity (fedmf-central, that table)", f"{r['recall20']:.4f}",
             f"{r['ndcg20']:.4f}", ""]
            for r in _select(runs, "privirec-dp", seed=1, model="popularity")][:1]
    for r in sorted(_select(runs, "privirec-dp-committee", seed=1),
                    key=lambda r: int(r["noise_parties"])):
        body.append([_parties(r), f"{r['recall20']:.4f}", f"{r['ndcg20']:.4f}",
                     f"{r['wall_s']:.1f}"])
    return markdown_table(["noise parties", "Recall@20", "NDCG@20", "wall s"], body)


def privirec(rows):
    """docs/results/privirec.md: a run's figures are its first in the CSV (_runs)."""
    runs = _runs(rows)
    tables = [graph_filters(runs), privirec_k_gowalla(runs), privirec_k_high_rank(runs)]
    if any(r["group"] == "privirec-k-gowalla" and r["filter"] != "gf-cf" for r in runs):
        tables.append(privirec_k_filters(runs))
    tables += privirec_dp(runs) + privirec_k_dp(runs)
    tables += [privirec_k_dp_gowalla(runs), privirec_k_committee(runs), privirec_committee(runs)]
    return "\n\n".join(tables)
