#!/usr/bin/env python3
"""bench/wolf_sheep_mesa.py - Mesa 3.5's Wolf-Sheep example over seeds.

Runs the model of the installed Mesa (mesa.examples.advanced.wolf_sheep, its
own code, imported; its default parameters unless --set gives others) for
STEPS steps with seeds FIRST..FIRST+SEEDS-1 (the model's rng=SEED), one after
the other in this process (one core), and writes

  --counts FILE  per seed and step: seed,step,sheep,wolves,grass (grass =
                 fully grown patches; step 0 is the initial state, as Mesa's
                 DataCollector records it);
  --band FILE    per step over the seeds: the mean, the 5 % and 95 %
                 percentiles (numpy's default, linear interpolation) and
                 the standard deviation (n - 1) of sheep, wolves and grass,
                 after '#' comment lines that say which Mesa, seeds, steps
                 and parameters made it;
  --timing       one line per seed on stdout:
                 "mesa SIZE seed S init_s X steps_s Y ms_per_step Z
                  agent_steps A agent_steps_per_s B final SHEEP WOLVES GRASS"
                 where steps_s is the wall time of the step loop only
                 (model construction is init_s) and agent_steps counts the
                 animals activated: the sum over steps of sheep + wolves
                 alive at the step's start.

--scale F multiplies the grid's width and height by F and the initial
sheep and wolves by F*F (same densities): --scale 10 is 100x the agents.

Run with the Python of bench/mesa-venv.sh:
  $(bench/mesa-venv.sh) bench/wolf_sheep_mesa.py --seeds 20 --band band.csv
"""

import argparse
import csv
import sys
import time


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--seeds", type=int, default=20, help="number of seeds (default 20)")
    p.add_argument("--first", type=int, default=1, help="first seed (default 1)")
    p.add_argument("--steps", type=int, default=200, help="steps per run (default 200)")
    p.add_argument("--scale", type=int, default=1, help="grid x F per axis, agents x F*F")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a WolfSheepScenario parameter (repeatable)")
    p.add_argument("--counts", help="write per-seed per-step counts to this CSV")
    p.add_argument("--band", help="write the per-step band over the seeds to this CSV")
    p.add_argument("--timing", action="store_true", help="print one timing line per seed")
    return p.parse_args(argv)


def scenario_params(scenario_cls, scale, sets):
    """The scenario's parameters: its defaults, scaled, then the --set overrides."""
    params = dict(scenario_cls._scenario_defaults)
    params["width"] *= scale
    params["height"] *= scale
    params["initial_sheep"] *= scale * scale
    params["initial_wolves"] *= scale * scale
    for kv in sets:
        key, sep, value = kv.partition("=")
        if not sep or key not in params:
            sys.exit(f"wolf_sheep_mesa.py: --set {kv!r}: expected KEY=VALUE with KEY one of "
                     + ", ".join(sorted(params)))
        default = params[key]
        if isinstance(default, bool):
            params[key] = value.lower() in ("1", "true", "yes", "on")
        else:
            params[key] = type(default)(value)
    return params


def run_one(model_cls, scenario_cls, params, seed, steps):
    """One run: (counts rows [(step, sheep, wolves, grass)], init_s, steps_s)."""
    t0 = time.perf_counter()
    model = model_cls(scenario_cls(rng=seed, **params))
    t1 = time.perf_counter()
    for _ in range(steps):
        model.step()
    t2 = time.perf_counter()
    df = model.datacollector.get_model_vars_dataframe()
    if len(df) != steps + 1:
        sys.exit(f"wolf_sheep_mesa.py: seed {seed}: {len(df)} rows collected, expected {steps + 1}")
    rows = [(k, int(s), int(w), int(g))
            for k, (s, w, g) in enumerate(zip(df["Sheep"], df["Wolves"], df["Grass"]))]
    return rows, t1 - t0, t2 - t1


def fmt(x):
    """A compact number: integers without decimals, others to 2 decimals."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def write_band(path, runs, header):
    import numpy as np

    arr = np.array([[r[1:] for r in rows] for rows in runs], dtype=float)  # seed, step, 3
    mean = arr.mean(axis=0)
    p5 = np.percentile(arr, 5, axis=0)
    p95 = np.percentile(arr, 95, axis=0)
    sd = arr.std(axis=0, ddof=1) if arr.shape[0] > 1 else np.zeros_like(mean)
    with open(path, "w", newline="") as f:
        for line in header:
            f.write(f"# {line}\n")
        f.write("step," + ",".join(f"{s}_{c}" for s in ("sheep", "wolves", "grass")
                                   for c in ("mean", "p5", "p95", "sd")) + "\n")
        for k in range(arr.shape[1]):
            cols = [str(k)]
            for j in range(3):
                cols += [fmt(mean[k, j]), fmt(p5[k, j]), fmt(p95[k, j]), fmt(sd[k, j])]
            f.write(",".join(cols) + "\n")


def main(argv):
    args = parse_args(argv)
    import mesa
    from mesa.examples.advanced.wolf_sheep.model import WolfSheep, WolfSheepScenario

    params = scenario_params(WolfSheepScenario, args.scale, args.set)
    seeds = list(range(args.first, args.first + args.seeds))
    size = f"{params['width']}x{params['height']}"
    runs = []
    for seed in seeds:
        rows, init_s, steps_s = run_one(WolfSheep, WolfSheepScenario, params, seed, args.steps)
        runs.append(rows)
        if args.timing:
            agent_steps = sum(s + w for _, s, w, _ in rows[:-1])
            last = rows[-1]
            print(f"mesa {size} seed {seed} init_s {init_s:.4f} steps_s {steps_s:.4f} "
                  f"ms_per_step {1e3 * steps_s / max(args.steps, 1):.4f} "
                  f"agent_steps {agent_steps} agent_steps_per_s {agent_steps / steps_s:.4g} "
                  f"final {last[1]} {last[2]} {last[3]}", flush=True)
    if args.counts:
        with open(args.counts, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["seed", "step", "sheep", "wolves", "grass"])
            for seed, rows in zip(seeds, runs):
                for r in rows:
                    w.writerow([seed, *r])
    if args.band:
        header = [
            f"Mesa {mesa.__version__} wolf-sheep (mesa.examples.advanced.wolf_sheep, default "
            f"parameters unless listed), written by: bench/wolf_sheep_mesa.py "
            + " ".join(argv),
            f"seeds {seeds[0]}..{seeds[-1]} (WolfSheepScenario(rng=seed)), {args.steps} steps, "
            f"step 0 = initial state; p5/p95 = numpy.percentile (linear) over the seeds, "
            f"sd = standard deviation (n - 1)",
            "parameters " + " ".join(f"{k}={v}" for k, v in sorted(params.items())),
        ]
        write_band(args.band, runs, header)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
