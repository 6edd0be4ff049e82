#!/usr/bin/env python3
"""bench/cartpole_python.py - CartPole environment steps per second from
Python, weft side by side with its peers in one run, for docs/benchmarks.md
("CartPole from Python"):

  weft-host    CartPoleVectorEnv.step(actions) with numpy actions (one
               upload, launch, fence and wait; numpy views, no copy)
  weft-host-f64       the same with precision="f64" (Gymnasium's float64
               physics bit for bit), on the host's hardware doubles
  weft-host-f64-soft  the same on weft/double.h's software doubles: the
               model plugin of a build configured with
               CPPFLAGS=-DWEFT_D64_SOFT, whose .libs directory --soft-model
               names (skipped without it)
  weft-torch   a torch policy (4-64-2 MLP on the CPU) on weft's
               observations as a tensor (DLPack, no copy), its actions
               written into weft's action buffer in place, step_device()
  torch-gym    the same torch policy on Gymnasium's numpy CartPoleVectorEnv
  c-host       bench/cartpole-bench's host mode (the C API, for the ratio)
  sync, async, vector, envpool   as bench/cartpole_gym.py (random actions)
  gymnax       gymnax CartPole-v1, jax.jit of lax.scan over 1,000 steps
               of vmap'ed env steps with random actions (compile outside)

  python3 bench/cartpole_python.py [-s SECONDS] [-n 8,1024,65536]
      [-w weft-host,...] [--c-bench PATH] [--threads N] [-r REPEATS]
      [--soft-model DIR]

One line per point: "peer=... envs=N env_steps_per_s=...". Each point
runs for SECONDS (1.0) after a warm-up; a peer that cannot be imported
or run is printed as skipped with its error. With -r REPEATS (1) the
peers take turns REPEATS times (round by round, so that a change of the
machine's load hits them alike), and a last line per point gives the
median: "peer=... envs=N median_env_steps_per_s=... of=REPEATS".
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cartpole_gym  # noqa: E402  (the Gymnasium and EnvPool peers)


def timed(step, seconds, per_call=1):
    for _ in range(5):
        step()
    n, t0 = 0, time.perf_counter()
    while True:
        for _ in range(16):
            step()
        n += 16 * per_call
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n, dt


def weft_host_env(n, threads, precision="f32", model_dir=None):
    """CartPoleVectorEnv on OpenMP; model_dir: where the model plugin is
    looked for first (libweft reads $WEFT_MODEL_PATH when it opens)."""
    from weft.envs import CartPoleVectorEnv
    old = os.environ.get("WEFT_MODEL_PATH")
    if model_dir:
        os.environ["WEFT_MODEL_PATH"] = model_dir
    try:
        return CartPoleVectorEnv(n, backend="openmp", threads=threads,
                                 precision=precision)
    finally:
        if old is None:
            os.environ.pop("WEFT_MODEL_PATH", None)
        else:
            os.environ["WEFT_MODEL_PATH"] = old


def weft_host(n, seconds, threads, precision="f32", model_dir=None):
    env = weft_host_env(n, threads, precision, model_dir)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    acts = [rng.integers(0, 2, n).astype(np.uint8) for _ in range(16)]
    k = [0]

    def step():
        env.step(acts[k[0] & 15])
        k[0] += 1
    try:
        return timed(step, seconds)
    finally:
        env.close()


def policy_net():
    import torch
    # torch's own threads would fight weft's OpenMP threads for the cores
    torch.set_num_threads(1)
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.Tanh(),
                               torch.nn.Linear(64, 2))


def weft_torch(n, seconds, threads):
    import torch
    from weft.envs import CartPoleVectorEnv
    env = CartPoleVectorEnv(n, backend="openmp", threads=threads)
    env.reset(seed=1)
    net = policy_net()
    obs = torch.from_dlpack(env.device_array("obs"))
    act = torch.from_dlpack(env.device_array("actions"))

    def step():
        with torch.no_grad():
            act.copy_(net(obs).argmax(1))
        env.step_device()
    try:
        return timed(step, seconds)
    finally:
        env.close()


def torch_gym(n, seconds, threads):
    import gymnasium as gym
    import torch
    env = gym.make_vec("CartPole-v1", num_envs=n,
                       vectorization_mode="vector_entry_point")
    obs, _ = env.reset(seed=1)
    net = policy_net()
    cur = [obs]

    def step():
        with torch.no_grad():
            a = net(torch.from_numpy(cur[0])).argmax(1).numpy()
        cur[0] = env.step(a)[0]
    try:
        return timed(step, seconds)
    finally:
        env.close()


def gymnax_scan(n, seconds, threads):
    import jax
    import gymnax
    env, params = gymnax.make("CartPole-v1")
    steps = 1000

    def rollout(key):
        keys = jax.random.split(key, n)
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)

        def body(carry, k):
            state = carry
            ks = jax.random.split(k, n)
            a = jax.random.randint(k, (n,), 0, 2)
            out = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                ks, state, a, params)  # obs, state, reward, done, ...
            return out[1], out[2].sum()
        state, rs = jax.lax.scan(body, state, jax.random.split(key, steps))
        return rs.sum()
    f = jax.jit(rollout)
    key = jax.random.PRNGKey(0)
    f(key).block_until_ready()  # compile outside the timing
    k = [0]

    def step():
        f(jax.random.PRNGKey(k[0])).block_until_ready()
        k[0] += 1
    return timed(step, seconds, per_call=steps)


def peer_gym(name):
    def run(n, seconds, threads):
        r, why = cartpole_gym.bench(name, n, seconds)
        if r is None:
            raise RuntimeError(why)
        return r
    return run


def c_host(path):
    def run(n, seconds, threads):
        out = subprocess.run([path, "openmp", str(threads or 0), "host",
                              str(n), "-t", str(seconds)],
                             capture_output=True, text=True, check=True)
        f = dict(kv.split("=") for kv in out.stdout.split())
        return int(f["steps"]), float(f["seconds"])
    return run


def weft_host_f64(soft_dir):
    def run(n, seconds, threads):
        if soft_dir is not None and not soft_dir:
            raise RuntimeError("no --soft-model DIR (a build configured "
                               "with CPPFLAGS=-DWEFT_D64_SOFT)")
        return weft_host(n, seconds, threads, "f64", soft_dir)
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-s", "--seconds", type=float, default=1.0)
    ap.add_argument("-n", "--sizes", default="8,1024,65536")
    ap.add_argument("-w", "--which", default="weft-host,weft-torch,c-host,"
                    "torch-gym,sync,async,vector,envpool,gymnax")
    ap.add_argument("--c-bench", default="_build/bench/cartpole-bench")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("-r", "--repeats", type=int, default=1)
    ap.add_argument("--soft-model", default="",
                    help="models/cartpole/.libs of a build configured "
                    "with CPPFLAGS=-DWEFT_D64_SOFT")
    a = ap.parse_args()
    import warnings
    warnings.filterwarnings("ignore")
    peers = {"weft-host": weft_host, "weft-torch": weft_torch,
             "torch-gym": torch_gym, "gymnax": gymnax_scan,
             "c-host": c_host(a.c_bench),
             "weft-host-f64": weft_host_f64(None),
             "weft-host-f64-soft": weft_host_f64(a.soft_model)}
    for name in ("sync", "async", "vector", "envpool"):
        peers[name] = peer_gym(name)
    rates = {}
    for _ in range(a.repeats):
        for name in a.which.split(","):
            for n in (int(s) for s in a.sizes.split(",")):
                try:
                    steps, dt = peers[name](n, a.seconds, a.threads)
                except Exception as e:  # missing or failing: say so
                    msg = str(e).splitlines()[0] if str(e) else ""
                    print("peer=%s envs=%d skipped=%s: %s" % (
                        name, n, type(e).__name__, msg[:200]), flush=True)
                    continue
                rates.setdefault((name, n), []).append(steps * n / dt)
                print("peer=%s envs=%d steps=%d seconds=%.3f "
                      "env_steps_per_s=%.4g" % (name, n, steps, dt,
                                                steps * n / dt), flush=True)
    if a.repeats > 1:
        for (name, n), r in rates.items():
            print("peer=%s envs=%d median_env_steps_per_s=%.4g of=%d" % (
                name, n, statistics.median(r), len(r)), flush=True)


if __name__ == "__main__":
    main()
