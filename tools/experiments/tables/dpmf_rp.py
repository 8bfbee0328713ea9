"""docs/results/dpmf-rp.md's tables and the data files of its plots."""
import csv
import os
from collections import defaultdict

from .formatting import mean_std4


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
    return mean_std4([float(r[key]) for r in runs if r.get(key, "") != ""], "n/a")


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


_WALL_STAGES = [("advertise_s", "AdvertiseKeys"), ("share_keys_s", "ShareKeys"),
                ("masked_input_s", "MaskedInput"), ("consistency_s", "ConsistencyCheck"),
                ("unmasking_s", "Unmasking")]


def dpmf_rp_wall_time(rows):
    """docs/results/dpmf-rp.md, wall time: the networked run's wall time and each SecAgg stage's
    seconds over the rounds, then the fedmf-sim run's wall time (its in-process clients answer a
    stage as it opens, so its stage times say nothing); the last measurement of each."""
    runs = _dpmf_runs([r for r in rows if r["group"] == "wall-time"])
    out = []
    for name, label in (("processes", "1 coordinator + 8 client processes"),
                        ("sim", "fedmf-sim, 2 client processes")):
        if ("wall-time", name) not in runs:
            continue
        run = runs[("wall-time", name)][-1]
        rounds, wall = int(run["rounds"]), float(run["wall_s"])
        out.append(f"{label}: **{wall:.0f} s, {wall / rounds:.2f} s per round** over {rounds} "
                   f"rounds; final model F1@10 {float(run['f1']):.3f}, RMSE "
                   f"{float(run['rmse']):.3f}")
        if name == "processes":
            out.append("\n".join(
                [f"| stage | total over {rounds} rounds | per round |", "|---|---|---|"] +
                [f"| {stage} | {float(run[key]) * rounds:.1f} s | {float(run[key]):.2f} s |"
                 for key, stage in _WALL_STAGES if key in run]))
    return "\n\n".join(out)
