#!/usr/bin/env python3
"""examples/python/ppo.py - PPO (CleanRL's ppo.py, one file) on weft's
vector environments: any installed environment with discrete actions,
through weft.envs.make, until the mean return of the last 100 episodes
reaches a target.

    python examples/python/ppo.py [--env-id CartPole-v1] [--num-envs 16]
        [--total-timesteps 1000000] [--seed 1] [--time-limit 300]
        [--target 475] [--backend auto]

With no --target, the id's own: CartPole-v1 475, Acrobot-v1 -100
(Gymnasium's reward thresholds). Prints the steps per second and the mean
return of the last 100 episodes every 5 s; exits 0 when that mean reaches
the target within --time-limit seconds (counted from the environments'
creation) and --total-timesteps steps, 1 otherwise.

The algorithm is CleanRL's ppo.py: orthogonal initialisation, two
64-unit tanh layers for the actor and the critic, Adam with a linearly
annealed learning rate, GAE, the clipped surrogate, a clipped value loss,
an entropy bonus, minibatch epochs and advantages normalised per
minibatch. Its defaults are CleanRL's for CartPole (4 minibatches, 4
epochs, lr 2.5e-4, gamma 0.99, lambda 0.95) but 16 environments of 64
steps a rollout (CleanRL: 4 of 128) and 1M steps (500k): a step of 16
environments costs a policy call as one of 4 does, and the policy calls
cost more than weft's steps. One torch thread (faster than two on a
2-core machine, where weft's OpenMP threads run the environments).

Autoreset: weft.envs.make's default is Gymnasium 1.x's NEXT_STEP mode:
the step that ends an episode returns its last observation (terminated or
truncated), and the environment's next step ignores its action, resets it
and returns the new episode's first observation with reward 0. That reset
step is not a transition of the environment, so it is masked out of the
learning: its advantage and return are not computed through it (GAE stops
at the end before it) and it is left out of the minibatches. The step
that ended the episode keeps its last observation as the next state,
so a truncated episode (time limit) is bootstrapped with the value of its
true last observation and a terminated one with 0.
"""
import argparse
import collections
import time

import numpy as np
import torch
import torch.nn as nn

import weft.envs

TARGETS = {"CartPole-v1": 475.0, "Acrobot-v1": -100.0,
           "MountainCar-v0": -110.0}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--env-id", default="CartPole-v1")
    ap.add_argument("--num-envs", type=int, default=16)
    ap.add_argument("--total-timesteps", type=int, default=1000000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=300.0,
                    help="seconds (wall clock)")
    ap.add_argument("--target", type=float, default=None,
                    help="mean return of the last --window episodes to "
                    "reach (default: the id's, CartPole-v1 475)")
    ap.add_argument("--window", type=int, default=100,
                    help="episodes in the mean that is checked")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--torch-threads", type=int, default=1)
    ap.add_argument("--env-threads", type=int, default=None,
                    help="weft's OpenMP threads (None: weft's default)")
    # CleanRL's ppo.py hyperparameters
    ap.add_argument("--learning-rate", type=float, default=2.5e-4)
    ap.add_argument("--num-steps", type=int, default=64)
    ap.add_argument("--anneal-lr", type=int, default=1)
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--gae-lambda", type=float, default=0.95)
    ap.add_argument("--num-minibatches", type=int, default=4)
    ap.add_argument("--update-epochs", type=int, default=4)
    ap.add_argument("--norm-adv", type=int, default=1)
    ap.add_argument("--clip-coef", type=float, default=0.2)
    ap.add_argument("--clip-vloss", type=int, default=1)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--vf-coef", type=float, default=0.5)
    ap.add_argument("--max-grad-norm", type=float, default=0.5)
    ap.add_argument("--target-kl", type=float, default=None)
    a = ap.parse_args(argv)
    if a.target is None:
        name = a.env_id[5:] if a.env_id.startswith("weft/") else a.env_id
        if name not in TARGETS:
            ap.error("--target: no default for %s; give one" % a.env_id)
        a.target = TARGETS[name]
    a.batch_size = a.num_envs * a.num_steps
    a.num_iterations = max(a.total_timesteps // a.batch_size, 1)
    return a


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, n_obs, n_act):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(n_obs, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0))
        self.actor = nn.Sequential(
            layer_init(nn.Linear(n_obs, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, n_act), std=0.01))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        probs = torch.distributions.Categorical(logits=self.actor(x))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), \
            self.critic(x)

    @torch.no_grad()
    def act(self, x):
        """get_action_and_value for the rollout, without the entropy and
        the Categorical object (fewer small torch calls per step)."""
        logp = torch.log_softmax(self.actor(x), dim=1)
        action = torch.multinomial(logp.exp(), 1)
        return action.view(-1), logp.gather(1, action).view(-1), \
            self.critic(x).view(-1)


def gae(rewards, values, terms, dones, next_value, gamma, lam):
    """Advantages (T, N) over a NEXT_STEP rollout. Step t's next state is
    the observation stored at t + 1 (next_value after the last step);
    where step t ended an episode (dones[t]), that observation is the
    episode's last one: bootstrapped unless terminated, and the recursion
    stops there, so the reset step at t + 1 gives nothing to t."""
    T = rewards.shape[0]
    adv = np.zeros_like(rewards)
    last = np.zeros_like(next_value)
    for t in reversed(range(T)):
        nv = next_value if t == T - 1 else values[t + 1]
        delta = rewards[t] + gamma * nv * (1.0 - terms[t]) - values[t]
        last = delta + gamma * lam * (1.0 - dones[t]) * last
        adv[t] = last
    return adv


def main(argv=None):
    a = parse_args(argv)
    torch.set_num_threads(a.torch_threads)
    np.random.seed(a.seed)
    torch.manual_seed(a.seed)
    torch.backends.cudnn.deterministic = True
    # the checks of every Categorical's arguments cost more than the
    # 64-unit layers here
    torch.distributions.Distribution.set_default_validate_args(False)

    envs = weft.envs.make(a.env_id, a.num_envs, backend=a.backend,
                          autoreset_mode="next_step", threads=a.env_threads)
    space = envs.single_action_space
    if not hasattr(space, "n"):
        raise SystemExit("%s: PPO here needs discrete actions; the action "
                         "space is %s" % (a.env_id, space))
    start = int(getattr(space, "start", 0))
    n_obs = int(np.prod(envs.single_observation_space.shape))
    agent = Agent(n_obs, int(space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=a.learning_rate,
                                 eps=1e-5)

    T, N = a.num_steps, a.num_envs
    obs = torch.zeros((T, N, n_obs))
    actions = torch.zeros((T, N), dtype=torch.long)
    logprobs = torch.zeros((T, N))
    values = torch.zeros((T, N))
    rewards = np.zeros((T, N), np.float32)
    terms = np.zeros((T, N), np.float32)
    dones = np.zeros((T, N), np.float32)
    valid = np.zeros((T, N), bool)

    def as_obs(o):  # a copy: weft's arrays are overwritten by each step
        return torch.tensor(np.asarray(o, dtype=np.float32).reshape(N, -1))

    o, _ = envs.reset(seed=a.seed)
    next_obs = as_obs(o)
    # NEXT_STEP: an environment that ended at the previous step is reset
    # by the next one, which is not a transition to learn from
    next_reset = np.zeros(N, bool)
    ep_return = np.zeros(N)
    recent = collections.deque(maxlen=a.window)
    episodes, global_step = 0, 0
    print("ppo: %s, %d environments on %s, target %g (mean of the last %d "
          "episodes) within %g s" % (a.env_id, N, envs.backend, a.target,
                                     a.window, a.time_limit), flush=True)
    t0 = time.perf_counter()
    t_print = t0

    def mean_recent():
        return float(np.mean(recent)) if recent else float("nan")

    def reached():
        return len(recent) >= a.window and mean_recent() >= a.target

    solved = False
    for iteration in range(1, a.num_iterations + 1):
        if a.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / a.num_iterations
            optimizer.param_groups[0]["lr"] = frac * a.learning_rate

        for step in range(T):
            global_step += N
            obs[step] = next_obs
            valid[step] = ~next_reset
            action, logprob, value = agent.act(next_obs)
            values[step] = value
            actions[step] = action
            logprobs[step] = logprob
            o, r, term, trunc, _ = envs.step(action.numpy() + start)
            done = term | trunc
            rewards[step] = r
            terms[step] = term
            dones[step] = done
            next_obs = as_obs(o)
            next_reset = done
            ep_return += r  # (a reset step's reward is 0)
            if done.any():
                for i in np.flatnonzero(done):
                    recent.append(ep_return[i])
                    episodes += 1
                ep_return[done] = 0.0
        if reached():
            solved = True
            break

        with torch.no_grad():
            next_value = agent.get_value(next_obs).view(-1).numpy()
        advantages = torch.from_numpy(gae(
            rewards, values.numpy(), terms, dones, next_value, a.gamma,
            a.gae_lambda))
        returns = advantages + values

        keep = torch.from_numpy(valid.reshape(-1))
        b_obs = obs.reshape(-1, n_obs)[keep]
        b_logprobs = logprobs.reshape(-1)[keep]
        b_actions = actions.reshape(-1)[keep]
        b_advantages = advantages.reshape(-1)[keep]
        b_returns = returns.reshape(-1)[keep]
        b_values = values.reshape(-1)[keep]
        size = b_obs.shape[0]
        mb = max(size // a.num_minibatches, 1)

        for epoch in range(a.update_epochs):
            b_inds = torch.randperm(size)
            approx_kl = torch.zeros(())
            for s in range(0, size, mb):
                mb_inds = b_inds[s:s + mb]
                _, newlogprob, entropy, newvalue = \
                    agent.get_action_and_value(b_obs[mb_inds],
                                               b_actions[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()

                mb_adv = b_advantages[mb_inds]
                if a.norm_adv and len(mb_inds) > 1:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)

                pg_loss = torch.max(
                    -mb_adv * ratio,
                    -mb_adv * torch.clamp(ratio, 1 - a.clip_coef,
                                          1 + a.clip_coef)).mean()

                newvalue = newvalue.view(-1)
                if a.clip_vloss:
                    v_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                    v_clipped = b_values[mb_inds] + torch.clamp(
                        newvalue - b_values[mb_inds], -a.clip_coef,
                        a.clip_coef)
                    v_loss = 0.5 * torch.max(
                        v_unclipped,
                        (v_clipped - b_returns[mb_inds]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb_inds])
                                    ** 2).mean()

                loss = pg_loss - a.ent_coef * entropy.mean() + \
                    v_loss * a.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), a.max_grad_norm)
                optimizer.step()
            if a.target_kl is not None and approx_kl > a.target_kl:
                break

        now = time.perf_counter()
        if now - t_print >= 5.0 or iteration == 1:
            t_print = now
            print("%6.1f s  step %8d  %7.0f steps/s  episodes %6d  mean "
                  "return (last %d) %8.1f" % (
                      now - t0, global_step, global_step / (now - t0),
                      episodes, len(recent), mean_recent()), flush=True)
        if now - t0 > a.time_limit:
            break

    elapsed = time.perf_counter() - t0
    envs.close()
    if solved and elapsed <= a.time_limit:
        print("solved: %s mean return %.1f >= %g over the last %d episodes "
              "in %.1f s, %d steps (%.0f steps/s)" % (
                  a.env_id, mean_recent(), a.target, len(recent), elapsed,
                  global_step, global_step / elapsed), flush=True)
        return 0
    print("not solved: %s mean return %.1f over the last %d episodes, "
          "target %g, after %.1f s (limit %g s) and %d steps (limit %d)" % (
              a.env_id, mean_recent(), len(recent), a.target, elapsed,
              a.time_limit, global_step, a.total_timesteps), flush=True)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
