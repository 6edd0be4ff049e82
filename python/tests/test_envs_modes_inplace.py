"""The arrays step() and reset() return are writable numpy views of the
results (zero copy), which a wrapper may edit in place (Gymnasium's
NormalizeObservation, ClipReward and the like do). The edits must not
feed back into the dynamics: two twins of one seed, stepped with the same
actions, one of them with every returned array overwritten after every
step, give the same results, episode ends and states, in every autoreset
mode."""
import numpy as np
import pytest

import weft.envs as E

IDS = E.ids()
N = 4
STEPS = 150


def _edit_obs_reward(t, obs, rew, te, tr, info):
    obs[...] = 0 if t % 2 else (1 if obs.dtype.kind in "ub" else 7.5)
    rew[...] = 99
    if "final_obs" in info:  # SAME_STEP's final observations too
        for f in info["final_obs"]:
            if f is not None:
                f[...] = 3


def _edit_flags(t, obs, rew, te, tr, info):
    # every episode "ended" (or none), which the next step must not read
    np.logical_not(te, out=te)
    tr[...] = t % 2 == 0


EDITS = {"obs_reward": _edit_obs_reward, "flags": _edit_flags}


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Acrobot-v1",
                                    "MinAtar/Breakout-v1"])
def test_edits_of_returned_arrays_do_not_feed_back(env_id, mode, edit):
    if env_id not in IDS:
        pytest.skip("%s is not installed here" % env_id)
    kw = dict(autoreset_mode=mode, max_episode_steps=30)
    a, b = E.make(env_id, N, **kw), E.make(env_id, N, **kw)
    oa, _ = a.reset(seed=8)
    ob, _ = b.reset(seed=8)
    assert oa.tobytes() == ob.tobytes()
    # the results are the envs' own writable memory (else this tests
    # nothing): the same array every step
    assert ob.flags.writeable
    space = a.action_space
    space.seed(4)
    ends = 0
    for t in range(STEPS):
        act = space.sample()
        ra = a.step(act)
        rb = b.step(act.copy())
        assert rb[0] is ob  # one view, step after step
        for x, y, name in zip(ra[:4], rb[:4], ("obs", "reward",
                                                "terminated", "truncated")):
            assert x.tobytes() == y.tobytes(), (env_id, mode, t, name)
        ia, ib = ra[4], rb[4]
        assert set(ia) == set(ib)
        if "final_obs" in ia:
            assert (ia["_final_obs"] == ib["_final_obs"]).all()
            for fa, fb in zip(ia["final_obs"], ib["final_obs"]):
                assert (fa is None) == (fb is None)
                if fa is not None:
                    assert fa.tobytes() == fb.tobytes(), (env_id, t)
        ended = ra[2] | ra[3]  # a's: b's may be edited next
        ends += int(ended.sum())
        EDITS[edit](t, *rb)
        if mode == "disabled" and ended.any():
            ra0, _ = a.reset(options={"reset_mask": ended.copy()})
            rb0, _ = b.reset(options={"reset_mask": ended.copy()})
            assert ra0.tobytes() == rb0.tobytes(), (env_id, t, "reset")
            EDITS[edit](t, rb0, rb[1], rb[2], rb[3], {})
    assert ends >= N, ends  # several episodes ended and began again
    for name in ("state", "env_book"):
        if name in a.views():
            assert a.read(name).tobytes() == b.read(name).tobytes(), name
    a.close()
    b.close()
