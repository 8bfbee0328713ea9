"""docs/results/scale.md's table: the cost of a round at scale."""
from .formatting import cell


SCALE_RUNS = [("per-user", "DPMF-RP per-user noise"), ("summed", "DPMF-RP summed noise"),
              ("lfl", "LFL-SGDMF (two phases a round)"), ("ldp", "GD-DR (ldp-gd-dr, paper mode)")]
SCALE_SUMMED = {"dpmf", "curve", "curve100"}
ML20M_USERS = 138493  # synthetic:ml-20m's users, the dataset "full"


def scale(rows):
    """docs/results/scale.md: one row per measured run (group, users, epsilon), the last of a
    repeated measurement winning, with wall seconds a round, peak RSS, F1@10 and RMSE, and
    popularity's F1@10 on the same users."""
    runs = {}
    popularity = {}
    for r in rows:
        if r["group"] == "popularity":
            popularity[r["dataset"]] = float(r["value"])
        else:
            runs.setdefault((r["group"], r["dataset"], r["epsilon"]), {})[r["metric"]] = r["value"]

    def users(dataset):
        return ML20M_USERS if dataset == "full" else int(dataset)

    def kind(group):
        return "summed" if group in SCALE_SUMMED else group

    def cell(m, key, spec, suffix=""):
        return f"{float(m[key]):{spec}}{suffix}" if key in m else "-"

    lines = ["| run | users | epsilon | rounds | s/round (wall, loaded) | peak RSS | F1@10 | RMSE "
             "| popularity F1@10 |", "|---|---|---|---|---|---|---|---|---|"]
    for run_kind, label in SCALE_RUNS:
        keys = sorted((k for k in runs if kind(k[0]) == run_kind),
                      key=lambda k: (users(k[1]), int(runs[k]["rounds"]), float(k[2])))
        for group, dataset, epsilon in keys:
            m = runs[(group, dataset, epsilon)]
            seconds = float(m["s_per_round"])
            pop = popularity.get(dataset) if label.startswith("DPMF-RP") else None
            lines.append(f"| {label} | {users(dataset):,} | {epsilon} | {m['rounds']} "
                         f"| {seconds:{',.0f' if seconds >= 1000 else '.1f'}} "
                         f"| {cell(m, 'peak_rss_mib', ',.0f', ' MiB')} | {cell(m, 'f1_10', '.4f')} "
                         f"| {cell(m, 'rmse', '.3f')} | "
                         + (f"{pop:.4f}" if pop is not None else "-") + " |")
    return "\n".join(lines)
