"""docs/results/fmf.md's tables: central DP-SGD, VFL-SGDMF, HFL-SGDMF and LFL-SGDMF."""
from collections import defaultdict

import results
from .formatting import markdown_table, mean_std3


_FMF_METHODS = {"embedding": "embedding clipping (Pi)", "gradient-1": "gradient clipping C = 1",
                "gradient-10": "gradient clipping C = 10",
                "gradient-50": "gradient clipping C = 50"}
_FMF_BASELINES = ["global-mean", "user-mean", "popularity"]


def fmf_runs(rows):
    """The runs of specs/fmf.toml's CSV, one dict a run: its label columns and its metrics, as
    the CSV has them (text), and for a central run test_mse, the square of test_rmse (the
    paper's metric) to 6 decimals, as the page's figures were computed."""
    by_run = {}
    for row in rows:
        labels = {c: v for c, v in row.items() if c not in ("metric", "value")}
        run = by_run.setdefault(tuple(labels.values()), labels)
        run[row["metric"]] = row["value"]
    for run in by_run.values():
        if "test_rmse" in run and "test_mse" not in run:
            run["test_mse"] = f"{float(run['test_rmse']) ** 2:.6f}"
    return list(by_run.values())


def fmf(rows):
    """docs/results/fmf.md, central part: test MSE and RMSE as mean ± sample std over seeds of
    the baselines, the non-private reference, Fig. 4 per unit (rows: clipping methods, columns:
    epsilon, 0 = no noise; the baselines the same in every column), the rates chosen, and the
    privacy figures of the seed-1 embedding-clipping runs."""
    runs = fmf_runs(rows)
    fig4 = defaultdict(list)  # (unit, method, epsilon) -> runs
    for run in runs:
        if run["group"] == "fig4":
            fig4[(run["unit"], run["method"], float(run["epsilon"]))].append(run)
    lr = {key: selected[-1]["lr"] for key, selected in fig4.items()}
    epsilons = sorted({key[2] for key in fig4})
    baselines = {m: [r for r in runs if r["group"] == "baselines" and r["method"] == m]
                 for m in _FMF_BASELINES}
    head = " | ".join("no noise" if e == 0 else f"eps = {e:g}" for e in epsilons)
    rule = "|---|" + "---|" * len(epsilons)

    lines = ["### Baselines and the non-private reference (test MSE, RMSE; mean ± std over "
             "seeds)", "", "| model | seeds | test MSE | test RMSE |", "|---|---|---|---|"]
    lines += [f"| {model} | {len(sel)} | {mean_std3([float(r['test_mse']) for r in sel])} | "
              f"{mean_std3([float(r['test_rmse']) for r in sel])} |"
              for model, sel in baselines.items()]
    references = [("non-private SGD, embedding clipping, 10000 steps (lr {lr})",
                   [r for r in runs if r["group"] == "reference"])]
    for unit, label in (("rating", "all ratings"), ("user", "trimmed to theta = 10 per user")):
        references.append((f"non-private SGD, embedding clipping ({label}; lr {{lr}})",
                           fig4.get((unit, "embedding", 0.0), [])))
    lines += [f"| {label.format(lr=sel[0]['lr'])} | {len(sel)} | "
              f"{mean_std3([float(r['test_mse']) for r in sel])} | "
              f"{mean_std3([float(r['test_rmse']) for r in sel])} |"
              for label, sel in references if sel]
    out = ["\n".join(lines)]

    def metric_table(unit, metric):
        lines = [f"| method | {head} |", rule]
        for method, label in _FMF_METHODS.items():
            lines.append(f"| {label} | " + " | ".join(
                mean_std3([float(r[metric]) for r in fig4.get((unit, method, e), [])])
                for e in epsilons) + " |")
        for model, sel in baselines.items():
            cell = mean_std3([float(r[metric]) for r in sel])
            lines.append(f"| baseline: {model} | " + " | ".join([cell] * len(epsilons)) + " |")
        return "\n".join(lines)

    for unit, title in (("rating", "per rating"), ("user", "per user (theta = 10)")):
        out.append(f"### Fig. 4, {title}: test MSE (mean ± std over seeds), (epsilon, 1e-5)-DP")
        out.append(metric_table(unit, "test_mse"))
        out.append(f"Test RMSE, {title}:")
        out.append(metric_table(unit, "test_rmse"))
        out.append(f"Learning rate chosen by the lowest training MSE on seed 1, {title}:")
        out.append("\n".join([f"| method | {head} |", rule] + [
            f"| {label} | " + " | ".join(lr.get((unit, method, e), "-") for e in epsilons) + " |"
            for method, label in _FMF_METHODS.items()]))

    lines = ["### Privacy of the embedding-clipping runs (seed 1; every run: 1000 noisy steps, "
             "eta = 0.01, delta = 1e-5)", "",
             "| unit | epsilon budget | z | epsilon spent (ours, all steps) | Delta ours | "
             "Delta paper | c1 of Prop. 2 for our z |", "|---|---|---|---|---|---|---|"]
    for unit in ("rating", "user"):
        for e in epsilons:
            sel = [r for r in fig4.get((unit, "embedding", e), []) if r["seed"] == "1"]
            if e and sel:
                r = sel[0]
                lines.append(f"| {unit} | {e:g} | {float(r['z']):.4f} | "
                             f"{float(r['epsilon_spent']):.4f} | {float(r['sensitivity']):.2f} | "
                             f"{float(r['paper_sensitivity']):.2f} | {float(r['paper_c1']):.3f} |")
    out.append("\n".join(lines))
    return "\n\n".join(out)


def _vfl_label(partition, s, t, tp, group, lrs=None):
    split = "genres" if partition == "vfl-genre" else "random"
    rate = f", lr {lrs} tuned at s = {s}" if group.endswith("-tuned") else ""
    if group.startswith("vfl-local-only"):
        return f"local-only (each party alone, T T' = {t * tp} steps), {split}, s = {s}{rate}"
    return f"VFL-SGDMF, {split}, s = {s}, (T, T') = ({t}, {tp}){rate}"


def _rate_table(tune, head, key_of, keys, label_of, chosen, test_metric):
    """A tuning table of fmf.md: a row per key (its label_of cells, head their header), a column
    per rate, "train MSE / test MSE" of the key's first run at that rate, bold at chosen[key]."""
    lrs = sorted({r["lr"] for r in tune}, key=float)
    first = {}
    for r in tune:
        first.setdefault((key_of(r), r["lr"]), r)
    lines = [f"| {head} | " + " | ".join(f"lr {lr}" for lr in lrs) + " |",
             "|---|---|" + "---|" * len(lrs)]
    for key in keys:
        cells = []
        for lr in lrs:
            r = first.get((key, lr))
            cell = f"{float(r['train_mse']):.3f} / {float(r[test_metric]):.3f}" if r else ""
            cells.append(f"**{cell}**" if r and lr == chosen[key] else cell)
        lines.append(f"| {label_of(key)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def fmf_vfl(rows):
    """docs/results/fmf.md, VFL-SGDMF (Figs. 6-7): test MSE and RMSE as mean ± sample std over
    seeds, a row per setting (partition, s, T x T'; the runs at a tuned rate only at the rate
    their tuning chose at their budget, results.best as run.py chose it), a column per
    epsilon, next to the central Fig. 4 runs and the baselines; each setting's privacy figures
    (seed 1); the tuning (train / test MSE, the chosen rate bold); the per-user accounting
    (vfl-privacy): z and the paper's Theorem 4."""
    runs = fmf_runs(rows)
    setting_of = lambda r: (r["partition"], r["parties"], r["T"], r["Tp"], r["epsilon"])
    tune = [r for r in runs if r["group"] in ("vfl-tune", "vfl-local-only-tune")]
    rates = {}  # (tune group, partition, s, T, T', epsilon) -> the rate with the lowest train MSE
    for r in tune:
        key = (r["group"],) + setting_of(r)
        if key not in rates:
            where = dict(zip(("group", "partition", "parties", "T", "Tp", "epsilon"), key))
            rates[key] = results.best(rows, where, "train_mse", "lr")
    vfl = [r for r in runs if r["group"] in ("vfl", "vfl-local-only") or (
        r["group"].endswith("-tuned") and r["partition"] and
        r["lr"] == rates.get((r["group"][:-1],) + setting_of(r)))]
    by_setting = defaultdict(list)
    for r in vfl:
        by_setting[(r["partition"], int(r["parties"]), int(r["T"]), int(r["Tp"]), r["unit"],
                    r["group"])].append(r)
    epsilons = sorted({float(r["epsilon"]) for r in vfl})
    head = " | ".join("no noise" if e == 0 else f"eps = {e:g}" for e in epsilons)

    def rates_by_budget(selected):  # "0.003 / 0.01 / ...": a tuned row's rate at each budget
        return " / ".join(next((r["lr"] for r in selected if float(r["epsilon"]) == e), "-")
                          for e in epsilons)

    def row(label, selected, metric):
        return f"| {label} | " + " | ".join(
            mean_std3([float(r[metric]) for r in selected if float(r["epsilon"]) == e])
            for e in epsilons) + " |"

    out = []
    for metric, name in (("test_mse", "test MSE"), ("test_rmse", "test RMSE")):
        out.append(f"### VFL-SGDMF per rating: {name} (mean ± std over seeds), "
                   "(epsilon, 1e-5)-DP")
        lines = [f"| setting | {head} |", "|---|" + "---|" * len(epsilons)]
        for (partition, s, t, tp, _, group), selected in sorted(by_setting.items()):
            lines.append(row(_vfl_label(partition, s, t, tp, group, rates_by_budget(selected)),
                             selected, metric))
        lines.append(row("central DP-SGD, s = 1 (Fig. 4 runs)", [
            r for r in runs if r["group"] == "fig4" and r["method"] == "embedding"
            and r["unit"] == "rating"], metric))
        for model in _FMF_BASELINES:
            cell = mean_std3([float(r[metric]) for r in runs
                              if r["group"] == "baselines" and r["method"] == model])
            lines.append(f"| baseline: {model} | " + " | ".join([cell] * len(epsilons)) + " |")
        out.append("\n".join(lines))

    out.append("### Privacy of the VFL runs (seed 1): ours (every step composed) and the "
               "paper's")
    out.append("The runs at a rate tuned per setting and budget have the same z and epsilon as "
               "these.")
    lines = ["| setting | epsilon budget | lr | z | epsilon ours | epsilon paper (Thm. 3) | "
             "seconds per run |", "|---|---|---|---|---|---|---|"]
    for (partition, s, t, tp, _, group), selected in sorted(by_setting.items()):
        if group.endswith("-tuned"):  # the same z and epsilon: only the rate differs
            continue
        kind = "local-only " if group.startswith("vfl-local-only") else ""
        lines += [f"| {kind}{partition} s = {s} ({t}, {tp}) | {r['epsilon']} | {r['lr']} | "
                  f"{r['z']} | {r.get('epsilon_ours') or '-'} | "
                  f"{r.get('epsilon_paper') or '-'} | {float(r['run_s']):.0f} |"
                  for r in selected if r["seed"] == "1"]
    out.append("\n".join(lines))

    if tune:
        out.append("### Rate tuning (run.py fmf --only vfl-tune): train MSE / test MSE, seed 1")
        out.append("The rate with the lowest train MSE (bold) at a budget is the one vfl-tuned "
                   "runs with at that budget.")
        key_of = lambda r: (r["group"],) + setting_of(r)
        label_of = lambda k: (f"{_vfl_label(k[1], int(k[2]), int(k[3]), int(k[4]), k[0])} | "
                              f"{k[5]}")
        out.append(_rate_table(tune, "setting | epsilon", key_of, sorted(
            {key_of(r) for r in tune}, key=lambda k: (int(k[2]), k[1], k[0], float(k[5]),
                                                      int(k[3]))), label_of, rates, "test_mse"))

    privacy = [r for r in runs if r["group"] == "vfl-privacy"]
    budgets = sorted({float(r["epsilon"]) for r in privacy})
    out.append("### Per-user privacy of VFL-SGDMF: the paper's Theorem 4 at our calibrated z")
    out.append("z is calibrated so that our composition of all s (T T' + kappa) = s 1000 steps "
               "spends exactly the budget; the paper's column is sqrt(s) times one party's "
               "epsilon at that z.")
    lines = ["| s | " + " | ".join(f"eps = {e:g}: z, paper" for e in budgets) + " |",
             "|---|" + "---|" * len(budgets)]
    for s in sorted({int(r["parties"]) for r in privacy}):
        cells = []
        for e in budgets:
            sel = [r for r in privacy if int(r["parties"]) == s and float(r["epsilon"]) == e]
            cells.append(f"{float(sel[0]['z']):.3f}, {float(sel[0]['epsilon_paper']):.3f}"
                         if sel else "-")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    out.append("\n".join(lines))
    return "\n\n".join(out)


_HFL_METHODS = {"pretrain-u": "HFL-SGDMF (pre-train U)", "train-both": "train-both (vanilla FMF)",
                "syn-sgd": "HFL-synSGD", "local-only": "local-only, non-private"}
_HFL_NETWORKED = {
    ("hfl-networked-in-process", "pretrain-u"): "in process (fedmf-central)",
    ("hfl-networked", "pretrain-u"):
        "real processes (fedmf-coordinator + s fedmf-client --party=hfl)",
    ("hfl-networked-in-process", "syn-sgd"):
        "HFL-synSGD in process (fedmf-central --hfl_mode=syn-sgd)",
    ("hfl-networked", "syn-sgd"): "HFL-synSGD, real processes (1001 SecAgg rounds)"}


def fmf_hfl(rows):
    """docs/results/fmf.md, HFL-SGDMF (Figs. 8-9): test MSE after and before fine-tuning as mean
    ± sample std over seeds, a row per s and method (a run counts only at the rate hfl-tune
    chose for its method and s, when s was tuned: a wider grid may have moved the rate after it
    ran), a column per epsilon (local-only's one figure in every column), next to the central
    non-private reference and the baselines; the rates and privacy of the seed-1 runs; the
    tuning (train / test MSE after fine-tuning, the chosen rate bold); the networked runs next
    to their in-process twins and the seed-1 baselines."""
    runs = fmf_runs(rows)
    tune = [r for r in runs if r["group"] == "hfl-tune"]
    tuned = {}  # (method, s) -> the rate with the lowest train MSE
    for r in tune:
        key = (r["method"], r["parties"])
        if key not in tuned:
            tuned[key] = results.best(rows, {"group": "hfl-tune", "method": key[0],
                                               "parties": key[1]}, "train_mse", "lr")
    hfl = [r for r in runs if r["group"] == "hfl-runs" and
           tuned.get((r["method"], r["parties"]), r["lr"]) == r["lr"]]
    groups = defaultdict(list)
    for r in hfl:
        groups[(int(r["parties"]), r["method"])].append(r)
    epsilons = sorted({float(r["epsilon"]) for r in hfl if float(r["epsilon"]) > 0})
    head = " | ".join(f"eps = {e:g}" for e in epsilons)
    order = lambda kv: (kv[0][0], list(_HFL_METHODS).index(kv[0][1]))

    def cells(selected, metric):
        return [mean_std3([float(r[metric]) for r in selected
                           if r["method"] == "local-only" or float(r["epsilon"]) == e])
                for e in epsilons]

    out = []
    for metric, name in (("test_mse_after", "after fine-tuning (Fig. 9; Fig. 8 right)"),
                         ("test_mse_before", "before fine-tuning (Fig. 8 left)")):
        out.append(f"### HFL per user: test MSE {name}, mean ± std over seeds, "
                   "(epsilon, 1e-5)-DP")
        lines = [f"| s | method | seeds | {head} |", "|---|---|---|" + "---|" * len(epsilons)]
        for (s, method), selected in sorted(groups.items(), key=order):
            lines.append(f"| {s} | {_HFL_METHODS[method]} | {len({r['seed'] for r in selected})}"
                         " | " + " | ".join(cells(selected, metric)) + " |")
        references = [("central non-private SGD, embedding clipping (run.py fmf fig4, eps 0)",
                       [r for r in runs if r["group"] == "fig4" and r["method"] == "embedding"
                        and r["unit"] == "rating" and float(r["epsilon"]) == 0])]
        references += [(f"baseline: {model}", [r for r in runs if r["group"] == "baselines"
                                               and r["method"] == model])
                       for model in _FMF_BASELINES]
        for label, sel in references:
            cell = mean_std3([float(r["test_mse"]) for r in sel])
            lines.append(f"| - | {label} | {len(sel)} | " + " | ".join([cell] * len(epsilons))
                         + " |")
        out.append("\n".join(lines))

    out.append("### Rates and privacy (seed 1): ours composes all T T' = 1000 noisy steps of a "
               "user's party; Proposition 3 counts T' = 10")
    lines = ["| s | method | epsilon budget | lr | z | epsilon ours | epsilon paper (Prop. 3) | "
             "sensitivity ours / paper | seconds |", "|---|---|---|---|---|---|---|---|---|"]
    for (s, method), selected in sorted(groups.items()):
        lines += [f"| {s} | {_HFL_METHODS[method]} | "
                  f"{r['epsilon'] if method != 'local-only' else '-'} | {r['lr']} | "
                  f"{r.get('z') or '-'} | {r.get('epsilon_ours') or '-'} | "
                  f"{r.get('epsilon_paper') or '-'} | {r['sensitivity']} / "
                  f"{r['paper_sensitivity']} | {float(r['train_s']):.0f} |"
                  for r in selected if r["seed"] == "1"]
    out.append("\n".join(lines))

    if tune:
        out.append("### Rate tuning (run.py fmf --only hfl-tune): train MSE / test MSE after "
                   "fine-tuning, epsilon = 1, seed 1")
        out.append("The rate with the lowest train MSE (bold, the paper's rule) is the one the "
                   "runs use.")
        key_of = lambda r: (r["method"], r["parties"])
        out.append(_rate_table(tune, "s | method", key_of, sorted(
            {key_of(r) for r in tune}, key=lambda k: (int(k[1]), list(_HFL_METHODS).index(k[0]))),
            lambda k: f"{k[1]} | {_HFL_METHODS[k[0]]}", tuned, "test_mse_after"))

    networked = [r for r in runs if (r["group"], r["method"]) in _HFL_NETWORKED]
    if networked:
        lines = ["| run | s | epsilon | lr | z | test MSE before fine-tuning | test MSE after | "
                 "train MSE after | seconds |", "|---|---|---|---|---|---|---|---|---|"]
        lines += [f"| {_HFL_NETWORKED[(r['group'], r['method'])]} | {r['parties']} | "
                  f"{r['epsilon']} | {r['lr']} | {r['z']} | {r['test_mse_before']} | "
                  f"{r['test_mse_after']} | {r.get('train_mse') or '-'} | "
                  f"{float(r['train_s']):.0f} |" for r in networked]
        lines += [f"| baseline: {r['method']} | - | - | - | - | - | {r['test_mse']} | - | - |"
                  for r in runs if r["group"] == "baselines" and r["seed"] == "1"]
        out.append("\n".join(lines))
    return "\n\n".join(out)


_LFL_EPSILONS = ["0.5", "1", "2", "5"]


def fmf_lfl(rows):
    """docs/results/fmf.md, LFL-SGDMF (Fig. 10): test MSE as mean ± sample std over the seeds
    with every lfl-fig10 run (a run stopped midway leaves a seed incomplete), a row per method
    (stage 1 only, the non-private run and the baselines the same in every column), a column
    per epsilon; the rates chosen on seed 1 (lowest test MSE) and seed 1's test MSE at each; the
    privacy of the seed-2 LFL-SGDMF runs."""
    runs = [r for r in fmf_runs(rows) if r["group"].startswith("lfl-")]
    wanted = {("stage1-only", "0"), ("lfl-none", "0")} | {
        (m, e) for m in ("lfl-sgdmf", "gd-dr") for e in _LFL_EPSILONS}
    have = defaultdict(set)
    for r in runs:
        if r["group"] == "lfl-fig10":
            have[r["seed"]].add((r["method"], r["epsilon"]))
    seeds = sorted(seed for seed, done in have.items() if wanted <= done)
    runs = [r for r in runs if r["group"] != "lfl-fig10" or r["seed"] in seeds]

    def mses(group, method, eps=None, in_seeds=None):
        return [float(r["test_mse"]) for r in runs if r["group"] == group and
                r["method"] == method and (eps is None or r["epsilon"] == eps) and
                (in_seeds is None or r["seed"] in in_seeds)]

    def tune(method, eps):
        return [r for r in runs if r["group"] == "lfl-tune" and r["method"] == method and
                (eps is None or r["epsilon"] == eps)]

    def chosen(method, eps):
        return results.best(rows, {"group": "lfl-tune", "method": method, "epsilon": eps},
                              "test_rmse", "lr") or "-"

    body = []
    for method, label in [("stage1-only", "LFL stage 1 only (V_0, no federated phase)"),
                          ("lfl-sgdmf", "LFL-SGDMF, two-phase, omega 0.3, T = 10"),
                          ("gd-dr", "GD-DR (eps-LDP, k = 10)")]:
        if method == "stage1-only":
            body.append([label] + [mean_std3(mses("lfl-fig10", method))] * len(_LFL_EPSILONS))
        else:
            body.append([label] + [mean_std3(mses("lfl-fig10", method, e))
                                   for e in _LFL_EPSILONS])
    body.append([f"LFL-SGDMF non-private (lr {chosen('lfl-none', '0')}), T = 10"] +
                [mean_std3(mses("lfl-fig10", "lfl-none"))] * len(_LFL_EPSILONS))
    for model, label in [("global-mean", "global-mean"), ("user-mean", "user-mean"),
                         ("popularity", "popularity (item mean)")]:
        body.append([f"baseline: {label}"] + [mean_std3(mses(
            "lfl-baselines", model, in_seeds=seeds))] * len(_LFL_EPSILONS))
    out = [f"### Fig. 10 on ML-100K: test MSE (mean ± std over seeds {', '.join(seeds)}), "
           "(epsilon, 1e-5)-DP per user",
           markdown_table(["method"] + [f"eps = {e}" for e in _LFL_EPSILONS], body),
           "Learning rate of LFL-SGDMF chosen on seed 1 (lowest test MSE; seed 1 is not in the "
           "table above), and seed 1's test MSE at each rate:"]
    lrs = sorted({r["lr"] for r in tune("lfl-sgdmf", None)}, key=float)
    body = []
    for e in _LFL_EPSILONS:
        cells = []
        for lr in lrs:
            v = [float(r["test_mse"]) for r in tune("lfl-sgdmf", e) if r["lr"] == lr]
            cells.append(f"{v[0]:.4f}" if v else "-")
        body.append([e, chosen("lfl-sgdmf", e)] + cells)
    out.append(markdown_table(["epsilon", "chosen"] + [f"lr {lr}" for lr in lrs], body))
    none = sorted(tune("lfl-none", None), key=lambda r: float(r["lr"]))
    out.append("Non-private LFL on seed 1: " + ", ".join(
        f"lr {r['lr']}: {float(r['test_mse']):.4f}" for r in none) + ".")
    out.append("Privacy of the LFL-SGDMF runs (seed 2): sigma of the sum and the ledger's "
               "epsilon")
    body = []
    for e in _LFL_EPSILONS:
        sel = [r for r in runs if r["group"] == "lfl-fig10" and r["method"] == "lfl-sgdmf" and
               r["epsilon"] == e]
        if sel:
            body.append([e, f"{float(sel[0]['noise_std']):.1f}", sel[0]["epsilon_spent"]])
    out.append(markdown_table(
        ["budget", "sigma (per coordinate of the sum)", "epsilon spent (ledger)"], body))
    return "\n\n".join(out)


def _runs_by_phase(rows, group):
    """The runs of a group, one dict a run (labels but phase and length) in first-seen order:
    its metrics, and under "phases" {(phase, length): metrics} for its per-phase rows. A
    measurement is a stretch of consecutive rows of one run (runs.py appends a command's rows at
    once); the last measurement of a run replaces the earlier ones whole, so a vector length that
    a newer build no longer sends does not linger."""
    by_run = {}
    previous = None
    for row in rows:
        if row["group"] != group:
            previous = None
            continue
        labels = {c: v for c, v in row.items()
                  if c not in ("metric", "value", "phase", "length")}
        key = tuple(labels.values())
        if key != previous:  # a new measurement
            by_run.setdefault(key, {}).clear()
            by_run[key].update(labels, phases={})
            previous = key
        run = by_run[key]
        target = (run["phases"].setdefault((row["phase"], row["length"]), {}) if row["phase"]
                  else run)
        target[row["metric"]] = row["value"]
    return list(by_run.values())


_LFL_USERS = 943  # ML-100K's users, all of them in the load generator


def fmf_lfl_dropout(rows):
    """docs/results/fmf.md, LFL-SGDMF with dropouts in real processes: one row per cell (the
    last measurement of a cell wins), in the order first measured; the rounds applied are the
    last phase's (phase 1 in the two-phase modes: a failed phase 1 abandons its round), test MSE
    the square of the test RMSE."""
    runs = _runs_by_phase(rows, "lfl-dropout")
    if not runs:
        return ""
    first = runs[0]
    out = [f"### Dropouts in real processes: LFL-SGDMF at ({first['epsilon']}, 1e-5), cohort "
           f"{first['cohort']} of {_LFL_USERS}, {first['T']} rounds, seed {first['seed']}"]
    body = []
    for run in runs:
        phase = {p: m for (p, length), m in run["phases"].items() if not length}
        last = phase.get("0" if run["method"] == "single" else "1", {})
        n_2 = phase.get("1", {}).get("mean_contributors")
        # The square to 6 decimals, then 4, as the CSV of the page's figures had it.
        mse = (f"{round(float(run['test_rmse']) ** 2, 6):.4f}" if "test_rmse" in run else "-")
        body.append([run["method"], run["omega"], run["dropout"],
                     "1" if run["drop_phase"] == "1" else "0",
                     "completed" if run["exit_status"] == "0" else "aborted", run["n_min"],
                     f"{last.get('rounds', '0')} / {run['attempts_failed']}",
                     f"{float(phase.get('0', {}).get('mean_contributors', 0)):.1f}",
                     f"{float(n_2):.1f}" if n_2 else "-", mse, run.get("epsilon_spent", "-")])
    out.append(markdown_table(["noise", "omega", "dropout D", "phase losing users", "run",
                               "n_min", "rounds applied / failed attempts", "mean n_1",
                               "mean n_2", "test MSE", "epsilon (ledger)"], body))
    return "\n\n".join(out)


# ML-100K and the paper's p; the paper's Fig. 2 dataset (ML10M) for its byte figures.
_N_USERS, _N_ITEMS, _RANK = 943, 1682, 20
_PAPER_N, _PAPER_M, _PAPER_VFL_MB, _PAPER_MP_MB = 69878, 10677, 5.6, 1.7


def fmf_comm(rows):
    """docs/results/fmf.md, Fig. 2: bytes per party (LFL: per user) and sync, VFL then HFL (the
    comm runs) then LFL (its dropout-free two-phase lfl-dropout cell at omega 0.3), one row per
    phase and vector length, next to the paper's formulas."""
    n_p, m_p = _N_USERS * _RANK, _N_ITEMS * _RANK
    syncs = []  # (algorithm, parties in the sync, phase, length, metrics)
    for partition in ("vfl", "hfl"):
        for run in _runs_by_phase(rows, "comm"):
            if run["partition"] == partition:
                syncs += [(f"{partition}-sgdmf", run["parties"], phase, length, m)
                          for (phase, length), m in run["phases"].items()]
    for run in _runs_by_phase(rows, "lfl-dropout"):
        if (run["method"], run["omega"], run["dropout"], run["drop_phase"]) == (
                "two-phase", "0.3", "0", "all"):
            syncs += [("lfl-sgdmf", run["cohort"], phase, length, m)
                      for (phase, length), m in run["phases"].items() if length]
    body = []
    for algorithm, parties, phase, length, m in syncs:
        values = int(length)
        if algorithm == "lfl-sgdmf":
            formula = f"m p + O(log n) = {m_p} + O(log n)"
        else:  # the shared matrix's rounds, then the last round's error report
            shared = n_p if algorithm == "vfl-sgdmf" else m_p
            formula = (f"{'n' if algorithm == 'vfl-sgdmf' else 'm'} p = {shared}"
                       if values == shared else "- (last round: test and training error sums)")
        up = float(m["up_masked_input"])
        body.append([algorithm, parties, phase, formula, f"{values} x {m['bits']} bits",
                     f"{up:.0f}", f"{up / values:.2f}", f"{float(m['up_total']):.0f}",
                     f"{float(m['down_task']):.0f}", f"{float(m['down_total']):.0f}"])
    return "\n\n".join([
        "### Communication per sync per party (Fig. 2): measured on ML-100K against the "
        "paper's formulas",
        markdown_table(["algorithm", "parties in the sync", "phase", "paper's formula (values)",
                        "measured vector", "up: masked input (bytes)", "bytes per value",
                        "up: all stages", "down: plan (bytes)", "down: all stages"], body),
        f"The paper's Fig. 2 figures on ML10M (n = {_PAPER_N}, m = {_PAPER_M}, p = 20): VFL "
        f"{_PAPER_VFL_MB} MB = {_PAPER_VFL_MB * 1e6 / (_PAPER_N * _RANK):.1f} bytes per value "
        f"of n p; HFL and each LFL phase {_PAPER_MP_MB} MB = "
        f"{_PAPER_MP_MB * 1e6 / (_PAPER_M * _RANK):.1f} bytes per value of m p."])
