#!/usr/bin/env python3
"""examples/python/reinforce_cartpole.py - REINFORCE with PyTorch on
weft's CartPole: 256 environments, a 4-64-2 policy, until the greedy
policy's mean return is above 475 (CartPole-v1 is "solved" at 475).

    python examples/python/reinforce_cartpole.py [--envs 256] [--seed 0]
        [--backend auto] [--minutes 5]

The rollout is weft's device path: the observations are a torch tensor
over weft's own packed result (torch.from_dlpack, no copy), the policy
writes its actions into weft's action buffer in place, and
env.step_device() steps every environment with them: on a host backend
nothing is copied between torch and weft, on CUDA nothing crosses to the
host. Rewards and episode ends come back as tensors the same way.

Each iteration collects T steps of every environment (episodes continue
across iterations; the return-to-go of an episode cut by the rollout's
end is bootstrapped with nothing, a small bias), then takes one gradient
step on the normalised returns-to-go. Every 5 iterations a greedy
evaluation runs whole episodes on a second environment set. Prints the
time and the return; exits 1 if the time limit passes first.
"""
import argparse
import time

import numpy as np
import torch

from weft.envs import CartPoleVectorEnv


def tensor(env, name):
    return torch.from_dlpack(env.device_array(name))


class Rollouts:
    """An environment set seen through torch: obs, reward, done and the
    action buffer are tensors over weft's memory."""

    def __init__(self, n, backend, seed):
        self.env = CartPoleVectorEnv(n, backend=backend)
        self.env.reset(seed=seed)
        self.obs = tensor(self.env, "obs")
        self.reward = tensor(self.env, "reward")
        self.term = tensor(self.env, "terminated")
        self.trunc = tensor(self.env, "truncated")
        self.act = tensor(self.env, "actions")

    def step(self, actions):
        self.act.copy_(actions)  # in place: weft's action buffer
        self.env.step_device()
        return self.reward.clone(), (self.term | self.trunc).bool(), \
            self.term.bool()


def returns_to_go(rewards, dones, gamma):
    """Discounted returns within each episode, backwards over T."""
    out = torch.zeros_like(rewards)
    run = torch.zeros(rewards.shape[1])
    for t in range(rewards.shape[0] - 1, -1, -1):
        run = rewards[t] + gamma * run * (1.0 - dones[t])
        out[t] = run
    return out


def evaluate(policy, ev, episodes_needed=256):
    """Mean return of whole greedy episodes (every environment from a
    fresh start, until each has finished one)."""
    ev.env.reset()
    done_once = torch.zeros(len(ev.obs), dtype=torch.bool)
    ret = torch.zeros(len(ev.obs))
    total = torch.zeros(len(ev.obs))
    while not done_once.all():
        with torch.no_grad():
            a = policy(ev.obs).argmax(dim=1).to(torch.uint8)
        r, d, _ = ev.step(a)
        ret += r
        newly = d & ~done_once
        total[newly] = ret[newly]
        done_once |= d
        ret[d] = 0
    return float(total.mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--steps", type=int, default=128, help="T per iteration")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--minutes", type=float, default=5.0)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(1)  # weft's OpenMP threads get the cores
    policy = torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.Tanh(),
                                 torch.nn.Linear(64, 2))
    opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    train = Rollouts(a.envs, a.backend, a.seed)
    ev = Rollouts(256, a.backend, a.seed + 1000)
    t0, it, score = time.perf_counter(), 0, 0.0
    while time.perf_counter() - t0 < 60 * a.minutes:
        obs, acts, rews, dones = [], [], [], []
        for _ in range(a.steps):
            o = train.obs.clone()
            with torch.no_grad():
                act = torch.distributions.Categorical(
                    logits=policy(o)).sample()
            r, d, _ = train.step(act.to(torch.uint8))
            obs.append(o)
            acts.append(act)
            rews.append(r)
            dones.append(d.float())
        g = returns_to_go(torch.stack(rews), torch.stack(dones), 0.99)
        adv = (g - g.mean()) / (g.std() + 1e-8)
        logp = torch.distributions.Categorical(
            logits=policy(torch.stack(obs))).log_prob(torch.stack(acts))
        loss = -(logp * adv).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        it += 1
        if it % 5 == 0:
            score = evaluate(policy, ev)
            st = train.env.episode_statistics()
            print("%6.1f s  iteration %4d  training return %6.1f  greedy "
                  "return %6.1f" % (time.perf_counter() - t0, it,
                                    st["recent_mean_return"], score),
                  flush=True)
            if score > 475:
                print("solved: mean return %.1f > 475 in %.1f s on %s" % (
                    score, time.perf_counter() - t0, train.env.backend))
                return 0
    print("not solved within %.1f minutes (return %.1f)" % (a.minutes,
                                                           score))
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
