#!/usr/bin/env python3
"""Turns the runs.csv of tools/experiments/privacy-utility.sh into the Markdown tables of
docs/results/privacy-utility.md and the frontier.dat that privacy-utility.gp draws.

    tools/experiments/privacy-utility.py DIR    # reads DIR/runs.csv, writes DIR/tables.md and
                                                # DIR/frontier-<method>.dat
With DIR/outlook.csv (privacy-utility.sh outlook), also the noise outlook's table: each private
model's first-release noise_to_signal against its F1@10 over DP popularity's on the same seeds
(the points a new-run factory registers, common/algorithms/noise_outlook.h).
"""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

METRICS = [("f1", "F1@10"), ("recall", "Recall@10"), ("precision", "Precision@10"),
           ("rmse", "RMSE"), ("ndcg", "NDCG@10")]


def present(value):
    """False for a metric a run did not report (rows from before the column existed: None)."""
    return value not in (None, "", "nan")


def fmt(values):
    values = [float(v) for v in values if present(v)]
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.4f}"
    return f"{statistics.mean(values):.4f} ± {statistics.stdev(values):.4f} (n={len(values)})"


def main(directory):
    rows = list(csv.DictReader(open(Path(directory) / "runs.csv", newline="")))
    # A rerun of the same (group, name, seed) replaces the earlier line.
    latest = {(r["group"], r["name"], r["seed"]): r for r in rows}.values()
    out = []
    out.append("| baseline | seeds | " + " | ".join(label for _, label in METRICS) + " |")
    out.append("|---|---|" + "---|" * len(METRICS))
    by_name = defaultdict(list)
    for r in latest:
        if r["group"] == "baselines":
            by_name[r["name"]].append(r)
    for name, rs in sorted(by_name.items()):
        out.append(f"| {name} | {len(rs)} | " +
                   " | ".join(fmt([r[k] for r in rs]) for k, _ in METRICS) + " |")
        if name == "popularity":  # the plot's non-private yardstick, flat across epsilon
            f1 = statistics.mean(float(r["f1"]) for r in rs)
            (Path(directory) / "popularity.dat").write_text(f"0.5 {f1:.6f}\n20 {f1:.6f}\n")
    out.append("")
    # The frontier: one row per (method, epsilon), methods dpmf-rp mechanisms and dp-popularity.
    frontier = defaultdict(list)
    for r in latest:
        if r["group"] == "dpmf":
            frontier[(f"dpmf-rp {r['mechanism']}", float(r["epsilon"]))].append(r)
        elif r["group"] == "popularity":
            frontier[("dp-popularity", float(r["epsilon"]))].append(r)
        elif r["group"] == "dpals":
            frontier[("dp-als", float(r["epsilon"]))].append(r)
    out.append("| method | ε (whole run, δ = 1e-5) | " +
               " | ".join(label for _, label in METRICS) +
               " | seeds | bits / coordinate (client, sum) | values up | SecAgg masked input bytes / user / round |"
               " fedmf-sim upload bytes / user / round |")
    out.append("|---|---|" + "---|" * (len(METRICS) + 5))
    dat = defaultdict(list)
    for (method, eps), rs in sorted(frontier.items()):
        r0 = rs[0]
        length, bits = int(r0["upload_length"]), int(r0["client_bits"])
        measured = r0.get("up_bytes_per_user") or "-"
        out.append(f"| {method} | {eps:g} | " +
                   " | ".join(fmt([r[k] for r in rs]) for k, _ in METRICS) +
                   f" | {len(rs)} | {bits}, {r0['sum_bits']} | {length} |"
                   f" {(length * int(r0['sum_bits']) + 7) // 8} | {measured} |")
        means = [statistics.mean(float(r[k]) for r in rs if present(r[k]))
                 if any(present(r[k]) for r in rs) else float("nan") for k, _ in METRICS]
        dat[method].append((eps, means))
    # The cap c of dp-popularity chosen on seed 1: F1@10 per (epsilon, c).
    tune = {}
    for r in latest:
        if r["group"] == "popularity-tune":
            tune[(float(r["epsilon"]), int(r["name"].split("-c")[-1]))] = float(r["f1"])
    if tune:
        caps = sorted({c for _, c in tune})
        out.append("")
        out.append("| ε \\ c (F1@10, seed 1) | " + " | ".join(str(c) for c in caps) + " |")
        out.append("|---|" + "---|" * len(caps))
        for eps in sorted({e for e, _ in tune}):
            out.append(f"| {eps:g} | " + " | ".join(
                f"{tune[(eps, c)]:.4f}" if (eps, c) in tune else "-" for c in caps) + " |")
    # The Gaussian's routes (fewer, larger rounds; a smaller clip; a larger step), seed 1.
    routes = [r for r in latest if r["group"] == "gaussian-tune"]
    if routes:
        out.append("")
        out.append("| ε | rounds T | clip C | step | F1@10 | Recall@10 | RMSE (seed 1) |")
        out.append("|---|---|---|---|---|---|---|")
        def settings(r):  # eps<E>-T<rounds>-C<clip>-s<step>
            _, rounds, clip, step = r["name"].split("-")
            return int(rounds[1:]), float(clip[1:]), float(step[1:])
        for r in sorted(routes, key=lambda r: (float(r["epsilon"]), settings(r))):
            rounds, clip, step = (f"{v:g}" for v in settings(r))
            out.append(f"| {float(r['epsilon']):g} | {rounds} | {clip} | {step} |"
                       f" {float(r['f1']):.4f} | {float(r['recall']):.4f} | {float(r['rmse']):.4f} |")
    # DP-ALS's settings tried on seed 1 (dpals-tune names: privacy-utility.sh's header).
    tried = [r for r in latest if r["group"] == "dpals-tune"]
    if tried:
        out.append("")
        out.append("| DP-ALS settings (seed 1) | F1@10 | Recall@10 | NDCG@10 | RMSE |")
        out.append("|---|---|---|---|---|")
        for r in sorted(tried, key=lambda r: (float(r["epsilon"]), -float(r["f1"] or 0))):
            out.append(f"| {r['name']} | " +
                       " | ".join(fmt([r[k]]) for k in ("f1", "recall", "ndcg", "rmse")) + " |")
    out.extend(outlook_table(directory, frontier))
    (Path(directory) / "tables.md").write_text("\n".join(out) + "\n")
    for method, points in dat.items():
        name = method.replace(" ", "-")
        with open(Path(directory) / f"frontier-{name}.dat", "w") as f:
            f.write("# epsilon " + " ".join(k for k, _ in METRICS) + "\n")
            for eps, means in points:
                f.write(f"{eps:g} " + " ".join(f"{m:.6f}" for m in means) + "\n")
    print("\n".join(out))


def outlook_table(directory, frontier):
    """Rows of DIR/outlook.csv joined with the frontier's F1@10: the private model's mean over
    its seeds against DP popularity's mean over the same seeds."""
    path = Path(directory) / "outlook.csv"
    if not path.exists():
        return []
    method_of = {"dpmf-rp": "dpmf-rp gaussian", "dp-als": "dp-als"}
    latest = {(r["algorithm"], float(r["epsilon"])): r
              for r in csv.DictReader(open(path, newline=""))}
    out = ["", "| algorithm | ε | noise_to_signal | seeds | F1@10 | DP popularity F1@10 (same seeds)"
           " | F1 / DP popularity |", "|---|---|---|---|---|---|---|"]
    for (algorithm, eps), r in sorted(latest.items(), key=lambda kv: float(kv[1]["noise_to_signal"])):
        private = {x["seed"]: float(x["f1"]) for x in frontier.get((method_of[algorithm], eps), [])}
        popular = {x["seed"]: float(x["f1"]) for x in frontier.get(("dp-popularity", eps), [])}
        seeds = sorted(set(private) & set(popular))
        if not seeds:
            continue
        f1 = statistics.mean(private[s] for s in seeds)
        pop = statistics.mean(popular[s] for s in seeds)
        out.append(f"| {algorithm} | {eps:g} | {float(r['noise_to_signal']):.4g} | {len(seeds)} |"
                   f" {f1:.4f} | {pop:.4f} | {f1 / pop:.3f} |")
    return out


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/results/privacy-utility")
