#!/usr/bin/env python3
"""bench/cartpole_gym.py - environment steps per second of the Python peers
of weft's CartPole model, on CartPole-v1 with random actions, for
docs/benchmarks.md (bench/cartpole.sh runs it next to bench/cartpole-bench):

  sync     gymnasium.vector.SyncVectorEnv: N CartPoleEnv in this process
  async    gymnasium.vector.AsyncVectorEnv: N CartPoleEnv in N processes
  vector   gymnasium's own numpy CartPoleVectorEnv (gym.make_vec with
           vectorization_mode="vector_entry_point")
  envpool  envpool.make("CartPole-v1", env_type="gymnasium"), synchronous
           (batch_size = num_envs), its C++ threads on every core

  python3 bench/cartpole_gym.py [-s SECONDS] [-n 8,256,4096] [-w sync,async,...]

Each line: "peer=sync envs=8 steps=12000 seconds=2.0 env_steps_per_s=4.8e+04".
Actions are drawn beforehand (16 random arrays, cycled), as in
cartpole-bench, so that drawing them is not timed; each point runs for
SECONDS (1.0) after a warm-up. Sizes a peer cannot run in reasonable time
are skipped with the reason: AsyncVectorEnv above ASYNC_MAX processes,
SyncVectorEnv above SYNC_MAX environments (its rate does not grow with N:
65,536 took 20 s to build and ran at 5.5e4 env steps/s), EnvPool above
ENVPOOL_MAX (1,048,576 ran at 2.8e5 env steps/s, a minute for 16 steps).
Needs: pip install gymnasium envpool numpy.
"""
import argparse
import sys
import time

import numpy as np

ASYNC_MAX = 256  # one Python process per environment
SYNC_MAX = 4096  # one Python object per environment, stepped in a loop
ENVPOOL_MAX = 65536  # 1,048,576 took a minute for 16 steps


def make(peer, n):
    import gymnasium as gym
    if peer == "sync":
        return gym.vector.SyncVectorEnv(
            [lambda: gym.make("CartPole-v1") for _ in range(n)])
    if peer == "async":
        return gym.vector.AsyncVectorEnv(
            [lambda: gym.make("CartPole-v1") for _ in range(n)])
    if peer == "vector":
        return gym.make_vec("CartPole-v1", num_envs=n,
                            vectorization_mode="vector_entry_point")
    if peer == "envpool":
        import envpool
        return envpool.make("CartPole-v1", env_type="gymnasium",
                            num_envs=n, batch_size=n)
    raise ValueError(peer)


def bench(peer, n, seconds):
    if peer == "async" and n > ASYNC_MAX:
        return None, "more than %d processes" % ASYNC_MAX
    if peer == "sync" and n > SYNC_MAX:
        return None, "more than %d environments in one loop" % SYNC_MAX
    if peer == "envpool" and n > ENVPOOL_MAX:
        return None, "more than %d environments" % ENVPOOL_MAX
    env = make(peer, n)
    try:
        env.reset(seed=1)
        rng = np.random.default_rng(1)
        acts = [rng.integers(0, 2, size=n, dtype=np.int32)
                for _ in range(16)]
        for k in range(5):
            env.step(acts[k])
        steps, t0 = 0, time.perf_counter()
        while True:
            for k in range(16):
                env.step(acts[k])
            steps += 16
            dt = time.perf_counter() - t0
            if dt >= seconds:
                return (steps, dt), None
    finally:
        env.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-s", "--seconds", type=float, default=1.0)
    ap.add_argument("-n", "--sizes", default="8,256,4096,65536")
    ap.add_argument("-w", "--which", default="sync,async,vector,envpool")
    args = ap.parse_args()
    import warnings
    warnings.filterwarnings("ignore")
    for peer in args.which.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            try:
                r, why = bench(peer, n, args.seconds)
            except Exception as e:  # a peer missing or failing: say so
                r, why = None, "%s: %s" % (type(e).__name__, e)
            if r is None:
                print("peer=%s envs=%d skipped=%s" % (peer, n, why))
            else:
                steps, dt = r
                print("peer=%s envs=%d steps=%d seconds=%.3f "
                      "env_steps_per_s=%.4g" % (peer, n, steps, dt,
                                                steps * n / dt))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
