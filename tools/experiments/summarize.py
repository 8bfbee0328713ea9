#!/usr/bin/env python3
"""Turns the runs.csv of tools/experiments/dpmf-rp.sh into the Markdown tables of
docs/results/dpmf-rp.md (mean +/- sample std over seeds) and the .dat files plot.gp draws.

    tools/experiments/summarize.py DIR     # reads DIR/runs.csv (and DIR/communication-*.csv),
                                           # writes DIR/tables.md and DIR/*.dat
"""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

TUNED_GAMMA = "1.25"  # dpmf-rp.sh's --pbm_clip_multiplier: table2's seed 1 is that sweep point
METRICS = ["rmse", "precision", "recall", "f1", "map", "map_at_n"]
LABELS = {"rmse": "RMSE", "precision": "Precision@10", "recall": "Recall@10", "f1": "F1@10",
          "map": "mAP@10 (eq. 56, 1/tp)", "map_at_n": "mAP@10 (1/min(N, relevant))"}
# The paper's Table 2 (ML100K column) and Table 7 (ML100K rows), for comparison.
PAPER_TABLE2 = {
    "centralmf": {"rmse": "0.9968 ± 0.0108", "precision": "0.2776 ± 0.0048",
                  "recall": "0.2418 ± 0.0040", "f1": "0.2451 ± 0.0041", "map": "0.1395 ± 0.0018"},
    "dpmf-rp": {"rmse": "1.0083 ± 0.0024", "precision": "0.1965 ± 0.0103",
                "recall": "0.2472 ± 0.0125", "f1": "0.2189 ± 0.0112", "map": "0.1158 ± 0.0095"},
}
PAPER_TABLE7 = {
    "case1-non-private": {"rmse": "1.00", "precision": "0.27", "recall": "0.23", "f1": "0.24",
                          "map": "0.13"},
    "case2-non-secagg": {"rmse": "1.10", "precision": "0.12", "recall": "0.13", "f1": "0.13",
                         "map": "0.05"},
    "case3-non-projected": {"rmse": "1.01", "precision": "0.23", "recall": "0.26", "f1": "0.24",
                            "map": "0.13"},
    "case4-non-dp": {"rmse": "1.01", "precision": "0.20", "recall": "0.24", "f1": "0.22",
                     "map": "0.11"},
}


def load(path):
    """Rows by (group, name); a rerun of the same seed replaces the earlier row."""
    by_seed = defaultdict(dict)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            by_seed[(row["group"], row["name"])][row["seed"]] = row
    return {key: list(seeds.values()) for key, seeds in by_seed.items()}


def stat(rows, key):
    values = [float(r[key]) for r in rows if r[key] != ""]
    if not values:
        return "n/a"
    if len(values) == 1:
        return f"{values[0]:.4f}"
    return f"{statistics.mean(values):.4f} ± {statistics.stdev(values):.4f}"


def epsilon(rows):
    r = rows[0]
    if float(r["epsilon_rdp2"]) == 0:
        return "none"
    return f"RDP(α=2) {float(r['epsilon_rdp2']):.3g}; ({float(r['epsilon_dp']):.3g}, 1e-5)-DP"


def table(runs, group, names, paper=None):
    present = [n for n in names if (group, n) in runs]
    if not present:
        return ""
    header = "| metric | " + " | ".join(
        f"{n} (n={len(runs[(group, n)])})" + (f" | paper {n}" if paper and n in paper else "")
        for n in present) + " |"
    cols = sum(2 if paper and n in paper else 1 for n in present)
    lines = [header, "|---" * (cols + 1) + "|"]
    for m in METRICS:
        cells = []
        for n in present:
            cells.append(stat(runs[(group, n)], m))
            if paper and n in paper:
                cells.append(paper[n].get(m, "-"))
        lines.append(f"| {LABELS[m]} | " + " | ".join(cells) + " |")
    cells = []
    for n in present:
        cells.append(epsilon(runs[(group, n)]))
        if paper and n in paper:
            private = n not in ("centralmf", "case1-non-private", "case4-non-dp")
            cells.append("paper: ε = 1" if private else "-")
    lines.append("| privacy (whole run) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def sweep(runs, group, names, x_of, out):
    rows = [(x_of(n), runs[(group, n)][0]) for n in names if (group, n) in runs]
    rows.sort()
    with open(out, "w") as f:
        f.write("# x rmse precision recall f1 map_at_n epsilon_dp\n")
        for x, r in rows:
            f.write(f"{x} {r['rmse']} {r['precision']} {r['recall']} {r['f1']} {r['map_at_n']} "
                    f"{r['epsilon_dp']}\n")
    lines = ["| x | RMSE | Precision@10 | Recall@10 | F1@10 | mAP@10 (AP@N) | whole-run ε |",
             "|---|---|---|---|---|---|---|"]
    for x, r in rows:
        lines.append(f"| {x} | {float(r['rmse']):.4f} | {float(r['precision']):.4f} | "
                     f"{float(r['recall']):.4f} | {float(r['f1']):.4f} | "
                     f"{float(r['map_at_n']):.4f} | {epsilon([r])} |")
    return "\n".join(lines) + "\n"


def payload(out):
    """payload.dat for plot.gp from the two tools/measure-communication.sh tables, if present."""
    tables = {}
    for geometry in ["rotated_l2", "column_l1"]:
        path = out / f"communication-{geometry}.csv"
        if not path.exists():
            return
        with open(path, newline="") as f:
            tables[geometry] = {r["compression"]: r for r in csv.DictReader(f)
                                if r["dataset"] == "synthetic"}
    with open(out / "payload.dat", "w") as f:
        f.write("# m/p rotated_l2_masked rotated_l2_total column_l1_masked column_l1_total\n")
        for c in sorted(tables["rotated_l2"], key=float):
            a, b = tables["rotated_l2"][c], tables["column_l1"][c]
            f.write(f"{c} {a['up_masked_input_per_user']} {a['up_total_per_user']} "
                    f"{b['up_masked_input_per_user']} {b['up_total_per_user']}\n")


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/results/dpmf-rp")
    runs = load(out / "runs.csv")
    parts = ["## Table 2\n", table(runs, "table2", ["centralmf", "dpmf-rp"], PAPER_TABLE2),
             "## Table 7 (ablation)\n",
             table(runs, "ablation", list(PAPER_TABLE7), PAPER_TABLE7),
             "## Paper settings\n", table(runs, "paper", ["paper-settings"]),
             "## Epsilon sweep\n"]
    eps = {f"eps{e}": e for e in ["0.1", "1", "10"]}
    runs_eps = dict(runs)
    for r in runs.get(("table2", "dpmf-rp"), [])[:1]:
        runs_eps[("epsilon", "eps100")] = [r]
    eps["eps100"] = "100"
    parts.append(sweep(runs_eps, "epsilon", list(eps), lambda n: float(eps[n]), out / "epsilon.dat"))
    parts.append("## Compression sweep\n")
    mp = {"mp2": 2, "mp3": 3, "mp5": 5, "mp10": 10, "mp1": 1}
    runs_mp = dict(runs)
    for r in runs.get(("table2", "dpmf-rp"), [])[:1]:
        runs_mp[("compression", "mp3")] = [r]
    parts.append(sweep(runs_mp, "compression", list(mp), lambda n: mp[n], out / "compression.dat"))
    parts.append("## Clip sweep (gamma of rotated_l2)\n")
    clips = sorted({n for g, n in runs if g == "clip"} | {f"gamma{TUNED_GAMMA}"},
                   key=lambda n: float(n[len("gamma"):]))
    runs_clip = dict(runs)
    for r in runs.get(("table2", "dpmf-rp"), [])[:1]:
        runs_clip[("clip", f"gamma{TUNED_GAMMA}")] = [r]
    parts.append(sweep(runs_clip, "clip", clips, lambda n: float(n[len("gamma"):]),
                       out / "clip.dat"))
    parts.append("## PBM charged by the L2 shift, whole-run (5, 1e-5)-DP\n")
    l2 = sorted({n for g, n in runs if g == "l2"}, key=lambda n: (n.startswith("l2"), n))
    parts.append(table(runs, "l2", l2))
    parts.append("## The same, charged by the L2 shift, at larger epsilons (seed 1)\n")
    parts.append(table(runs, "l2eps", sorted({n for g, n in runs if g == "l2eps"},
                                             key=lambda n: float(n.rsplit("eps", 1)[1]))))
    payload(out)
    (out / "tables.md").write_text("\n".join(parts))
    print((out / "tables.md").read_text())


if __name__ == "__main__":
    main()
