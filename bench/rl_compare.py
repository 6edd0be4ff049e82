#!/usr/bin/env python3
"""bench/rl_compare.py - environment steps per second of one RL
environment in one peer, at several batch sizes; run by bench/rl-compare.sh
(which pins it to one core, repeats it interleaved and takes medians).

    rl_compare.py PEER ENV_ID -n 8,1024,65536 [-s SECONDS]
    rl_compare.py --summarize CSV MARKDOWN

PEER is one of
  weft-py     weft.envs.make(ENV_ID, N, backend="openmp", threads=1):
              step(actions) with host (numpy) actions cycling through 16
              arrays drawn beforehand from its action space; the model's
              default precision (f64, Gymnasium's bits, for classic
              control; CartPole's default is f32)
  weft-py-f32 the same with precision="f32", the fast mode (skipped for
              models without a precision key)
  envpool     envpool.make(ENV_ID, env_type="gymnasium", num_envs=N,
              batch_size=N, num_threads=1): synchronous step(actions),
              actions as above
  gymnax      jax.jit of lax.scan over K steps of the vmapped env.step
              (K = 2^18/N, from 4 to 1,000), actions drawn
              beforehand on the device (an array K x N), a fresh key per
              environment and step; compilation outside the timing.
              Only the states and rewards leave the scan, so XLA drops
              the observation's computation: a step without the
              observation, which no learner can use
  gymnax-obs  the same with every step's observation used: its sum
              (every element, as float32) added to the scan's output,
              what a policy reading the observation at least costs
  gym-sync    gymnasium.vector.SyncVectorEnv of N gymnasium.make(ENV_ID)
  gym-vector  Gymnasium's own numpy vector env
              (make_vec(..., vectorization_mode="vector_entry_point"))
  obs-floor   no environment: a numpy array of N of weft's observations
              of ENV_ID (their shape and dtype) set to 0 each step
              (ndarray.fill): what setting the observations' bytes alone
              takes on this core
ENV_ID: CartPole-v1, Acrobot-v1, MountainCar-v0, MountainCarContinuous-v0,
Pendulum-v1 or a MinAtar game,
MinAtar/{Asterix,Breakout,Freeway,Seaquest,SpaceInvaders}-v1 (gymnax's
Asterix-MinAtar and so on).

Each size: a warm-up of the same calls, then calls until SECONDS (0.5)
have passed (at least 3 steps). Prints one line per size:
  RESULT peer=P env=E envs=N steps=S seconds=T env_steps_per_s=R
or "SKIP peer=P env=E envs=N reason=..." when the peer lacks the
environment or cannot be imported. Exit status 0.
"""
import argparse
import csv
import statistics
import sys
import time

GYMNAX_IDS = {f"MinAtar/{g}-v1": f"{g}-MinAtar"
              for g in ("Asterix", "Breakout", "Freeway", "Seaquest",
                        "SpaceInvaders")}


def skip(peer, env_id, sizes, why):
    for n in sizes:
        print(f"SKIP peer={peer} env={env_id} envs={n} reason={why}",
              flush=True)


def report(peer, env_id, n, steps, secs):
    print(f"RESULT peer={peer} env={env_id} envs={n} steps={steps} "
          f"seconds={secs:.3f} env_steps_per_s={steps * n / secs:.4g}",
          flush=True)


def timed(step, seconds, per_call=1):
    """Calls step() until seconds pass; returns (steps, seconds)."""
    step()  # warm-up
    calls, t0 = 0, time.perf_counter()
    while True:
        step()
        calls += 1
        t = time.perf_counter() - t0
        if t >= seconds and calls >= 3:
            return calls * per_call, t


def action_sets(space, seed=1):
    space.seed(seed)
    return [space.sample() for _ in range(16)]


def host_loop(peer, env_id, n, env, seconds, int_dtype=None):
    space = env.action_space
    if peer == "envpool":  # its action_space is one environment's
        from gymnasium.vector.utils import batch_space
        space = batch_space(space, n)
    acts = action_sets(space)
    if int_dtype is not None and acts[0].dtype.kind == "i":
        acts = [a.astype(int_dtype) for a in acts]
    i = [0]

    def step():
        env.step(acts[i[0] & 15])
        i[0] += 1

    steps, secs = timed(step, seconds)
    report(peer, env_id, n, steps, secs)


def run_weft(peer, env_id, sizes, seconds):
    import weft.envs
    if env_id not in weft.envs.ids():
        return skip(peer, env_id, sizes, "not-built-in-this-tree")
    extra = {"precision": "f32"} if peer == "weft-py-f32" else {}
    for n in sizes:
        try:
            env = weft.envs.make(env_id, n, backend="openmp", threads=1,
                                 **extra)
        except ValueError as ex:
            return skip(peer, env_id, sizes,
                        "no-precision-key" if extra else str(ex))
        env.reset(seed=0)
        host_loop(peer, env_id, n, env, seconds)
        env.close()


def run_envpool(env_id, sizes, seconds):
    import envpool
    if env_id not in envpool.list_all_envs():
        return skip("envpool", env_id, sizes, "no-such-env-in-envpool")
    for n in sizes:
        env = envpool.make(env_id, env_type="gymnasium", num_envs=n,
                           batch_size=n, num_threads=1, seed=0)
        env.reset()
        host_loop("envpool", env_id, n, env, seconds, "int32")
        env.close()


def run_gym(peer, env_id, sizes, seconds):
    import gymnasium as gym
    for n in sizes:
        if peer == "gym-sync":
            env = gym.vector.SyncVectorEnv(
                [lambda: gym.make(env_id) for _ in range(n)])
        else:
            spec = gym.spec(env_id)
            if not spec.vector_entry_point:
                return skip(peer, env_id, sizes, "no-vector-entry-point")
            env = gym.make_vec(env_id, n,
                               vectorization_mode="vector_entry_point")
        env.reset(seed=0)
        host_loop(peer, env_id, n, env, seconds)
        env.close()


def run_obs_floor(env_id, sizes, seconds):
    import numpy as np
    import weft.envs
    if env_id not in weft.envs.ids():
        return skip("obs-floor", env_id, sizes, "not-built-in-this-tree")
    try:
        env = weft.envs.make(env_id, 1, backend="openmp", threads=1)
    except ValueError as ex:
        return skip("obs-floor", env_id, sizes, str(ex))
    one = env.reset(seed=0)[0]  # (1, *shape) of the observation's dtype
    env.close()
    for n in sizes:
        obs = np.ones((n,) + one.shape[1:], dtype=one.dtype)
        steps, secs = timed(lambda: obs.fill(0), seconds)
        report("obs-floor", env_id, n, steps, secs)


def run_gymnax(env_id, sizes, seconds, use_obs=False):
    import jax
    import jax.numpy as jnp
    import gymnax
    name = GYMNAX_IDS.get(env_id, env_id)
    if name not in gymnax.registered_envs:
        return skip("gymnax", env_id, sizes, "no-such-env-in-gymnax")
    env, params = gymnax.make(name)
    space = env.action_space(params)
    for n in sizes:
        k_steps = min(1000, max(4, (1 << 18) // n))
        key = jax.random.PRNGKey(0)
        key, k_reset, k_act = jax.random.split(key, 3)
        _, state = jax.vmap(env.reset, in_axes=(0, None))(
            jax.random.split(k_reset, n), params)
        acts = jax.vmap(space.sample)(
            jax.random.split(k_act, k_steps * n))
        acts = acts.reshape((k_steps, n) + acts.shape[1:])
        vstep = jax.vmap(env.step, in_axes=(0, 0, 0, None))

        def body(carry, a):
            st, k = carry
            k, sub = jax.random.split(k)
            out = vstep(jax.random.split(sub, n), st, a, params)
            st, r = out[1], out[2]  # (obs, state, reward, done..., info)
            if use_obs:
                return (st, k), r.sum() + out[0].astype(jnp.float32).sum()
            return (st, k), r.sum()

        @jax.jit
        def roll(st, k, acts):
            (st, k), rs = jax.lax.scan(body, (st, k), acts)
            return st, k, rs.sum()

        carry = [state, key]

        def call():
            st, k, s = roll(carry[0], carry[1], acts)
            s.block_until_ready()
            carry[0], carry[1] = st, k

        steps, secs = timed(call, seconds, per_call=k_steps)
        report("gymnax-obs" if use_obs else "gymnax", env_id, n, steps,
               secs)


def summarize(csv_path, md_path):
    """CSV rows (rep,peer,env,envs,rate,load1) -> medians, a markdown
    table per environment."""
    rows = [r for r in csv.DictReader(open(csv_path)) if r["envs"]]
    med = {}
    for r in rows:
        if r["rate"]:
            med.setdefault((r["env"], r["peer"], int(r["envs"])),
                           []).append(float(r["rate"]))
    sizes = sorted({int(r["envs"]) for r in rows})
    envs = []
    for r in rows:
        if r["env"] not in envs:
            envs.append(r["env"])
    order = ["weft-py", "weft-py-f32", "weft-c-host", "weft-c-device",
             "weft-c-policy", "pufferlib-c",
             "envpool", "gymnax", "gymnax-obs", "gym-vector", "gym-sync",
             "obs-floor"]
    out = []
    for e in envs:
        out.append(f"\n{e}, env steps/s (median of the runs; n = runs):\n")
        out.append("| peer | " + " | ".join(f"N = {s:,}" for s in sizes)
                   + " |")
        out.append("|---|" + "---:|" * len(sizes))
        for p in order:
            if not any((e, p, s) in med for s in sizes):
                continue
            cells = []
            for s in sizes:
                v = med.get((e, p, s))
                cells.append(f"{statistics.median(v):.3g} ({len(v)})"
                             if v else "–")
            out.append(f"| {p} | " + " | ".join(cells) + " |")
    loads = [float(r["load1"]) for r in rows if r["load1"]]
    if loads:
        out.append(f"\nLoad average (1 min) before the runs: "
                   f"{min(loads):.2f} to {max(loads):.2f}, median "
                   f"{statistics.median(loads):.2f}.")
    text = "\n".join(out) + "\n"
    open(md_path, "w").write(text)
    print(text)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--summarize":
        return summarize(sys.argv[2], sys.argv[3])
    ap = argparse.ArgumentParser()
    ap.add_argument("peer")
    ap.add_argument("env_id")
    ap.add_argument("-n", "--sizes", default="8,1024,65536")
    ap.add_argument("-s", "--seconds", type=float, default=0.5)
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    try:
        if a.peer in ("weft-py", "weft-py-f32"):
            run_weft(a.peer, a.env_id, sizes, a.seconds)
        elif a.peer == "envpool":
            run_envpool(a.env_id, sizes, a.seconds)
        elif a.peer in ("gymnax", "gymnax-obs"):
            run_gymnax(a.env_id, sizes, a.seconds, a.peer == "gymnax-obs")
        elif a.peer == "obs-floor":
            run_obs_floor(a.env_id, sizes, a.seconds)
        elif a.peer in ("gym-sync", "gym-vector"):
            run_gym(a.peer, a.env_id, sizes, a.seconds)
        else:
            sys.exit(f"rl_compare.py: unknown peer {a.peer}")
    except ImportError as ex:
        skip(a.peer, a.env_id, sizes, f"import-failed:{ex.name}")


if __name__ == "__main__":
    main()
