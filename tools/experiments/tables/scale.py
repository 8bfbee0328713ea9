"""docs/results/scale.md's table: the cost of a round at scale, and the utility it buys."""

SCALE_RUNS = [("per-user", "DPMF-RP, per-user noise"),
              ("dpmf", "DPMF-RP, summed noise"),
              ("summed", "DPMF-RP, summed noise and uploads"),
              ("lfl", "LFL-SGDMF (two phases a round), per-user noise"),
              ("lfl-summed", "LFL-SGDMF (two phases a round), summed noise"),
              ("ldp", "GD-DR (ldp-gd-dr, paper mode)")]
# The users curve's groups run with summed noise and uploads.
SCALE_CURVES = {"curve", "curve100"}
BASELINES = ("popularity", "user-mean", "global-mean")
ML20M_USERS = 138493  # synthetic:ml-20m's users, the dataset "full"


def scale(rows):
    """docs/results/scale.md: one row per measured run (group, users, epsilon), the last of a
    repeated measurement winning, with wall seconds a round, CPU milliseconds a user and round
    (setup included), peak RSS, F1@10 and RMSE, and on the same users popularity's F1@10 and the
    RMSE of the item mean (popularity's prediction), the user mean and the global mean."""
    runs = {}
    baselines = {}
    for r in rows:
        if r["group"] in BASELINES:
            baselines.setdefault(r["dataset"], {})[(r["group"], r["metric"])] = float(r["value"])
        else:
            runs.setdefault((r["group"], r["dataset"], r["epsilon"]), {})[r["metric"]] = r["value"]

    def users(dataset):
        return ML20M_USERS if dataset == "full" else int(dataset)

    def kind(group):
        return "summed" if group in SCALE_CURVES else group

    def cell(m, key, spec, suffix=""):
        return f"{float(m[key]):{spec}}{suffix}" if key in m else "-"

    def baseline(dataset, group, metric, spec):
        value = baselines.get(dataset, {}).get((group, metric))
        return "-" if value is None else f"{value:{spec}}"

    lines = ["| run | users | epsilon | rounds | s/round (wall) | CPU ms a user-round | peak RSS "
             "| F1@10 | RMSE | popularity F1@10 | item / user / global mean RMSE |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for run_kind, label in SCALE_RUNS:
        keys = sorted((k for k in runs if kind(k[0]) == run_kind),
                      key=lambda k: (users(k[1]), int(runs[k]["rounds"]), float(k[2])))
        for group, dataset, epsilon in keys:
            m = runs[(group, dataset, epsilon)]
            seconds = float(m["s_per_round"])
            n = users(dataset)
            cpu = "-"
            if "cpu_s" in m:
                cpu = f"{1000 * float(m['cpu_s']) / (n * int(m['rounds'])):.3f}"
            means = " / ".join(baseline(dataset, g, "rmse", ".3f") for g in BASELINES)
            lines.append(f"| {label} | {n:,} | {epsilon} | {m['rounds']} "
                         f"| {seconds:{',.0f' if seconds >= 1000 else '.1f'}} | {cpu} "
                         f"| {cell(m, 'peak_rss_mib', ',.0f', ' MiB')} | {cell(m, 'f1_10', '.4f')} "
                         f"| {cell(m, 'rmse', '.3f')} "
                         f"| {baseline(dataset, 'popularity', 'f1_10', '.4f')} | {means} |")
    return "\n".join(lines)
