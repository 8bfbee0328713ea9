#!/usr/bin/env python3
"""How far PDPMF's t as the paper takes it (the mean privacy weight of the training ratings, a
data-dependent number) lies from ours (the specification's mean weight mean(beta) mean(gamma),
public): the ratio of the two over many draws of Table 2's specification on MovieLens 100K with
10 random ratings of each user held out (the split of docs/results/hdpmf.md). The weights are
drawn independently of the data, as fedmf's specification draws them (exact group sizes, uniform
weights within a group), so the ratio's spread is all that the paper's choice can change; its
quantiles of the training ratings' mean weight are the pdpmf_mean_weight values of `run.py hdpmf
--only paper-choices`.

usage: tools/experiments/hdpmf-threshold-spread.py [--data u.data] [--draws N] [--seed S]
"""
import argparse
import random
import statistics
import sys
from collections import defaultdict

# Table 2: (fraction conservative, fraction moderate, conservative weights' low end, moderate's).
USERS = (0.54, 0.37, 0.1, 0.5)
ITEMS = (0.33, 0.33, 0.1, 0.5)


def weights(groups, n, rng):
    f_con, f_mod, w_con, w_mod = groups
    order = list(range(n))
    rng.shuffle(order)
    n_con = min(n, round(f_con * n))
    n_mod = min(n - n_con, round(f_mod * n))
    w = [1.0] * n
    for k in range(n_con + n_mod):
        lo, hi = (w_con, w_mod) if k < n_con else (w_mod, 1.0)
        w[order[k]] = rng.uniform(lo, hi)
    return w


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="../shared/data/ml-100k/u.data")
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        with open(args.data) as f:
            rows = [line.split()[:2] for line in f if line.strip()]
    except FileNotFoundError:
        sys.exit(f"{args.data}: not found (MovieLens 100K's u.data); nothing to measure")
    rng = random.Random(args.seed)
    by_user = defaultdict(list)
    for user, item in rows:
        by_user[user].append(item)
    users = {u: k for k, u in enumerate(sorted(by_user))}
    items = {i: k for k, i in enumerate(sorted({i for _, i in rows}))}
    train = []
    for user, rated in by_user.items():
        kept = rated[:]
        rng.shuffle(kept)
        train += [(users[user], items[i]) for i in kept[10:]]
    ratios, paper_weights = [], []
    for _ in range(args.draws):
        beta = weights(USERS, len(users), rng)
        gamma = weights(ITEMS, len(items), rng)
        # A rating's weight is its user's times its item's: active users and popular items
        # count once per rating here, once in the specification's mean.
        by_rating = sum(beta[u] * gamma[i] for u, i in train) / len(train)
        paper_weights.append(by_rating)
        ratios.append(by_rating / (statistics.fmean(beta) * statistics.fmean(gamma)))
    ratios.sort()
    paper_weights.sort()
    q = lambda xs, p: xs[min(len(xs) - 1, int(p * len(xs)))]
    print(f"training ratings {len(train)}, users {len(users)}, items {len(items)}, draws {args.draws}")
    print(f"ratio (training ratings' mean weight / specification's mean weight): "
          f"mean {statistics.fmean(ratios):.4f} sd {statistics.stdev(ratios):.4f} "
          f"q2.5 {q(ratios, 0.025):.4f} q97.5 {q(ratios, 0.975):.4f}")
    print(f"training ratings' mean weight (pdpmf_mean_weight as the paper takes t): "
          f"q2.5 {q(paper_weights, 0.025):.4f} q50 {q(paper_weights, 0.5):.4f} "
          f"q97.5 {q(paper_weights, 0.975):.4f}")


if __name__ == "__main__":
    main()
