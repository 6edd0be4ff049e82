#!/usr/bin/env python3
"""bench/partition_cut.py - cut sizes of SEIR's contact graph split into K
parts, and the bytes a day that a partitioned run would exchange
(docs/scaling.md).

    partition_cut.py PREFIX [--parts 2,4,16,64] [--methods contiguous,random,metis,kahip]
                     [--tsv FILE] [--seed 1]

PREFIX is what bench/partition-graph wrote: PREFIX.txt (agents, stored
layers in slot order, daily community contacts, the run's summary),
PREFIX.rows (n x layers + 1 u32 row offsets, an agent's layers together)
and PREFIX.cols (u32 contacts, each stored in both directions).

Methods: contiguous (agents cut by index into K equal runs, as weft numbers
them), random (a balanced random assignment), metis (METIS 5 k-way, not
recursive bisection, for every K, through pymetis, edges weighted by their layer's beta), kahip (KaHIP's kaffpa,
FASTSOCIAL, 3 % imbalance, same weights). Per (method, K): edges cut per
layer, boundary agents (with a contact on another part), ghosts (distinct
(agent, other part) pairs: the copies a halo would keep), the largest
part, the seconds the partitioner took, and the exchange bytes per day of
the two schemes in docs/scaling.md:

  halo:   every ghost receives its owner's state and care bytes each day
          (STATE_BYTES per ghost), independent of prevalence;
  claims: each candidate an infector picks on another part is one claim
          record (CLAIM_BYTES) to the contact's owner, who decides; the
          candidates per infectious agent and day of layer l are
          degree_l x beta x beta_l x the largest susceptibility (the skip
          sampling rate, models/seir/seir.md), the daily community ones
          cut with probability (K - 1) / K.

Prints a Markdown table and writes the rows as TSV with --tsv.
"""
import argparse
import sys
import time

try:
    import numpy as np
except ImportError:
    sys.exit("partition_cut.py: numpy is missing: run bench/partition-cut.sh "
             "(it makes a virtual environment with numpy, pymetis and kahip) "
             "or pip install numpy")

STATE_BYTES = 2   # state and care bytes of a ghost, per day
CLAIM_BYTES = 16  # owner-local agent u32, infector's chance Q28 u32,
                  # acceptance draw u32, skip level u16, layer u8, pad u8
GHOST_BYTES = 8   # a ghost's address: owner rank u32, owner-local index u32

# examples/nyc.ini and Covasim's hybrid layer weights; susceptibility's
# largest value (Covasim's sus_ORs, 1.47 above 60)
DEFAULT_BETA = 0.016
DEFAULT_LAYER_BETA = {"home": 3.0, "school": 0.6, "work": 0.6,
                      "community": 0.3}
SUS_MAX = 1.47


def read_graph(prefix):
    head = {"summary": []}
    with open(prefix + ".txt") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(" ")
            if key == "summary":
                head["summary"].append(value)
            else:
                head[key] = value
    n = int(head["agents"])
    layers = head["layers"].split()
    rows = np.fromfile(prefix + ".rows", dtype=np.uint32)
    cols = np.fromfile(prefix + ".cols", dtype=np.uint32)
    if rows.size != n * len(layers) + 1 or rows[-1] != cols.size:
        sys.exit(f"partition_cut.py: {prefix}.rows: {rows.size} offsets, "
                 f"expected {n * len(layers) + 1} for {n} agents and "
                 f"{len(layers)} layers")
    return head, n, layers, rows, cols


def entry_arrays(n, layers, rows):
    """Per stored entry: its agent and its layer (slot)."""
    L = len(layers)
    counts = np.diff(rows.astype(np.int64))
    layer = np.repeat(np.tile(np.arange(L, dtype=np.uint8), n), counts)
    src = np.repeat(np.arange(n, dtype=np.uint32),
                    counts.reshape(n, L).sum(axis=1))
    return src, layer


def part_contiguous(n, k, **_):
    return (np.arange(n, dtype=np.int64) * k // n).astype(np.int32)


def part_random(n, k, seed, **_):
    perm = np.random.default_rng(seed).permutation(n)
    part = np.empty(n, dtype=np.int32)
    part[perm] = (np.arange(n, dtype=np.int64) * k // n).astype(np.int32)
    return part


def part_metis(n, k, xadj, adjncy, eweights, seed, **_):
    import pymetis
    opts = pymetis.Options(seed=seed)
    _, part = pymetis.part_graph(k, pymetis.CSRAdjacency(xadj, adjncy),
                                 eweights=eweights, options=opts,
                                 recursive=False)
    return np.asarray(part, dtype=np.int32)


def part_kahip(n, k, xadj, adjncy, eweights, seed, **_):
    import kahip
    _, part = kahip.kaffpa(np.ones(n, dtype=np.int32).tolist(),
                           xadj.tolist(), eweights.tolist(), adjncy.tolist(),
                           k, 0.03, True, seed, kahip.FASTSOCIAL)
    return np.asarray(part, dtype=np.int32)


METHODS = {"contiguous": part_contiguous, "random": part_random,
           "metis": part_metis, "kahip": part_kahip}


def measure(n, k, part, src, cols, layer, layers):
    """Cut edges per layer, boundary agents, ghosts, largest part."""
    p_src = part[src]
    p_dst = part[cols]
    cut = p_src != p_dst
    L = len(layers)
    cut_per_layer = np.bincount(layer[cut], minlength=L) // 2
    boundary = np.zeros(n, dtype=bool)
    boundary[src[cut]] = True
    # a ghost: contact b (owned elsewhere) seen from part p_src; a flag
    # per (agent, part) pair, which is faster than sorting the pairs
    ghost = np.zeros(n * k, dtype=bool)
    ghost[cols[cut].astype(np.int64) * k + p_src[cut]] = True
    ghosts_per_part = ghost.reshape(n, k).sum(axis=0)
    sizes = np.bincount(part, minlength=k)
    bnd_per_part = np.bincount(part[boundary], minlength=k)
    return {
        "cut": cut_per_layer,
        "boundary": int(boundary.sum()),
        "boundary_max": int(bnd_per_part.max()),
        "ghosts": int(ghosts_per_part.sum()),
        "ghosts_max": int(ghosts_per_part.max()),
        "largest": int(sizes.max()),
    }


def candidates(layers, degree, community_daily, beta, layer_beta):
    """Expected candidates per infectious agent and day, by layer."""
    c = {l: degree[l] * beta * layer_beta[l] * SUS_MAX for l in layers}
    c["community (daily)"] = (community_daily * beta *
                              layer_beta["community"] * SUS_MAX)
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix")
    ap.add_argument("--parts", default="2,4,16,64")
    ap.add_argument("--methods", default="contiguous,random,metis")
    ap.add_argument("--tsv")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--beta", type=float, default=DEFAULT_BETA)
    args = ap.parse_args()

    head, n, layers, rows, cols = read_graph(args.prefix)
    community_daily = int(head.get("community_daily", "0"))
    src, layer = entry_arrays(n, layers, rows)
    edges = np.bincount(layer, minlength=len(layers)) // 2
    degree = {l: 2 * edges[i] / n for i, l in enumerate(layers)}
    cand = candidates(layers, degree, community_daily, args.beta,
                      DEFAULT_LAYER_BETA)
    # METIS's graph: an agent's entries of every layer are contiguous
    xadj = rows[::len(layers)].astype(np.int64)
    adjncy = cols.astype(np.int64)
    unit = min(DEFAULT_LAYER_BETA[l] for l in layers)
    eweights = np.array([round(DEFAULT_LAYER_BETA[l] / unit)
                         for l in layers], dtype=np.int64)[layer]

    print(f"# {args.prefix}: {n} agents, stored layers "
          + ", ".join(f"{l} {edges[i]} edges (degree {degree[l]:.2f})"
                      for i, l in enumerate(layers))
          + f", community drawn daily {community_daily}")
    print("# candidates per infectious agent-day: "
          + ", ".join(f"{l} {c:.4f}" for l, c in cand.items()))
    cols_out = (["agents", "method", "K", "seconds"]
                + [f"cut_{l}" for l in layers]
                + [f"cutfrac_{l}" for l in layers]
                + ["boundary", "boundary_max", "ghosts", "ghosts_max",
                   "largest", "halo_bytes_day", "claim_bytes_per_inf_day"])
    print("| " + " | ".join(cols_out) + " |")
    print("|" + "---|" * len(cols_out))
    out = []
    for method in args.methods.split(","):
        if method not in METHODS:
            sys.exit(f"partition_cut.py: --methods: unknown method "
                     f"'{method}' (methods: {', '.join(METHODS)})")
        for k in [int(x) for x in args.parts.split(",")]:
            t0 = time.monotonic()
            part = METHODS[method](n, k, xadj=xadj, adjncy=adjncy,
                                   eweights=eweights, seed=args.seed)
            secs = time.monotonic() - t0
            m = measure(n, k, part, src, cols, layer, layers)
            frac = [m["cut"][i] / edges[i] if edges[i] else 0.0
                    for i in range(len(layers))]
            claims = sum(cand[l] * frac[i] for i, l in enumerate(layers))
            claims += cand["community (daily)"] * (k - 1) / k
            row = ([n, method, k, f"{secs:.2f}"]
                   + [int(c) for c in m["cut"]]
                   + [f"{f:.4f}" for f in frac]
                   + [m["boundary"], m["boundary_max"], m["ghosts"],
                      m["ghosts_max"], m["largest"],
                      m["ghosts"] * STATE_BYTES,
                      f"{claims * CLAIM_BYTES:.3f}"])
            out.append(row)
            print("| " + " | ".join(str(x) for x in row) + " |",
                  flush=True)
    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("\t".join(cols_out) + "\n")
            for row in out:
                f.write("\t".join(str(x) for x in row) + "\n")


if __name__ == "__main__":
    main()
