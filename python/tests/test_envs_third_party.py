"""A third party's environment model, built from the installed kit alone
and driven through weft.envs.make and gymnasium.make_vec.

The kit is staged as `make install` installs it (the headers, weft.pc,
libweft, weft-wk and the minimal template's Makefile.example, through
automake's own install rules with DESTDIR, as tests/models/kit.sh does)
into a temporary directory, from the build tree as it is (nothing there
is remade), and the model of python/tests/data/tpwalk
(its .c, .wk and shared header, nothing else) is copied into a fresh
directory and built there with the staged Makefile.example, pkg-config
and weft-wk: no path into weft's source or build tree. The package's
model_path then finds it, besides the built-in models. A package built
against no build tree uses the installed kit (pkg-config weft) instead.

The model (tpwalk_shared.h): a walker on the integers starting at -1, 0
or 1, moved by its action (Discrete(3, start=-1)), terminated at +-goal
(reward +-1, else -0.125 a step), truncated after 20 steps; observation
(position, mark), the mark drawn when an episode begins. The tests check
every step against that, in the three autoreset modes.

Skipped only where a tool the kit needs (a C compiler, make, pkg-config)
is missing; with them, a kit that does not stage or a model that does
not build fails the tests, with the log."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import need

gym = need("gymnasium", "weft.envs.make builds gymnasium vector environments")
from gymnasium.vector import AutoresetMode  # noqa: E402

import weft  # noqa: E402
import weft.envs as E  # noqa: E402
from weft import _paths  # noqa: E402

HERE = Path(__file__).resolve().parent
MODEL_SRC = HERE / "data" / "tpwalk"
MODEL_FILES = ("tpwalk.c", "tpwalk.wk", "tpwalk_shared.h")
ID, ID_NS = "TpWalk-v0", "ThirdParty/TpWalk-v1"
GOAL, GOAL_NS, MAX_STEPS = 3, 5, 20
N = 6


def _tool(names: tuple[str, ...], what: str) -> str:
    for name in names:
        if name and shutil.which(name):
            return shutil.which(name)
    pytest.skip("%s is not installed (%s): the third-party model is built "
                "with it" % (" or ".join(n for n in names if n), what))


def _run(cmd: list[str], log: Path, what: str, **kw) -> None:
    """Run cmd, its output into log; fail the test with the log's end if
    it fails."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env.update(kw.pop("env", {}))
    with open(log, "w") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                            env=env, timeout=600, **kw).returncode
    if rc != 0:
        tail = "".join(log.read_text().splitlines(True)[-30:])
        pytest.fail("%s failed (exit %d): %s\n%s"
                    % (what, rc, " ".join(map(str, cmd)), tail))


@pytest.fixture(scope="session")
def kit(tmp_path_factory) -> dict:
    """The installed kit: {"pkg_config": the pkg-config command (a
    list) that describes it, "include": its include directory,
    "template": the minimal template's directory}. Staged from the build
    tree the package was built against (WEFT_BUILD_DIR, else
    weft._paths.BUILD_DIR), else the installed weft."""
    cc = _tool((os.environ.get("CC", ""), "cc", "gcc", "clang"),
               "a C11 compiler")
    _tool(("make",), "make runs the kit's Makefile.example")
    pkg = _tool(("pkg-config", "pkgconf"), "the kit is found through weft.pc")
    build = os.environ.get("WEFT_BUILD_DIR") or _paths.BUILD_DIR
    root = tmp_path_factory.mktemp("kit")
    env = dict(os.environ)
    if build:
        build = Path(build).resolve()
        if not (build / "Makefile").is_file():
            pytest.fail("the build tree %s has no Makefile: the kit cannot "
                        "be staged from it" % build)
        stage = root / "stage"
        # -o: what is built is staged as it is, nothing in the build tree
        # is remade (the package runs on that libweft too)
        _run(["make", "-s", "-C", str(build), "DESTDIR=%s" % stage,
              "-o", "core/libweft.la", "-o", "cli/weft-wk",
              "-o", "cli/weft-wk$(EXEEXT)",
              "install-weftincludeHEADERS", "install-pkgconfigDATA",
              "install-dist_modeltemplateminimalDATA",
              "install-libLTLIBRARIES", "lib_LTLIBRARIES=core/libweft.la",
              "install-binPROGRAMS", "bin_PROGRAMS=cli/weft-wk$(EXEEXT)"],
             root / "install.log",
             "staging the kit (make install DESTDIR=%s)" % stage)
        pcs = sorted(stage.rglob("weft.pc"))
        assert pcs, "make install staged no weft.pc under %s" % stage
        env["PKG_CONFIG_PATH"] = str(pcs[0].parent)
        prefix = subprocess.run([pkg, "--variable=prefix", "weft"],
                                env=env, capture_output=True, text=True,
                                check=True).stdout.strip()
        cmd = [pkg, "--define-variable=prefix=%s%s" % (stage, prefix)]
    else:
        if subprocess.run([pkg, "--exists", "weft"]).returncode != 0:
            pytest.skip("the package was built against no build tree and "
                        "pkg-config finds no installed weft (weft.pc)")
        cmd = [pkg]

    def var(name):
        return subprocess.run(cmd + ["--variable=%s" % name, "weft"],
                              env=env, capture_output=True, text=True,
                              check=True).stdout.strip()

    out = {"pkg_config": cmd, "env": env, "cc": cc,
           "include": Path(var("includedir")),
           "template": Path(var("modeltemplateminimaldir"))}
    for f in ("weft/model.h", "weft/env.h", "weft/env.wk", "weft/kernel.h"):
        assert (out["include"] / f).is_file(), \
            "the kit lacks %s (in %s)" % (f, out["include"])
    assert (out["template"] / "Makefile.example").is_file(), \
        "the kit lacks the minimal template's Makefile.example"
    return out


@pytest.fixture(scope="session")
def model_dir(kit, tmp_path_factory) -> Path:
    """A directory holding weft-model-tpwalk.so, built from the model's
    sources alone with the kit's Makefile.example."""
    work = tmp_path_factory.mktemp("tpwalk")
    for f in MODEL_FILES:
        shutil.copy(MODEL_SRC / f, work / f)
    shutil.copy(kit["template"] / "Makefile.example", work / "Makefile")
    # the kit's pkg-config, as one word for make: a wrapper script
    pc = work / "pkg-config-kit"
    pc.write_text("#!/bin/sh\nexec %s \"$@\"\n"
                  % " ".join("'%s'" % a for a in kit["pkg_config"]))
    pc.chmod(0o755)
    _run(["make", "-C", str(work), "NAME=tpwalk", "SRCS=tpwalk.c",
          "HDRS=tpwalk_shared.h", "CC=%s" % kit["cc"],
          "PKG_CONFIG=%s" % pc, "CFLAGS=-O2 -Wall -Wextra -Werror"],
         work / "make.log", "building tpwalk with the kit's Makefile.example",
         env=kit["env"])
    so = work / "weft-model-tpwalk.so"
    assert so.is_file(), "make built no %s" % so.name
    return work


def test_built_from_the_kit_alone(kit, model_dir):
    """Every weft header the compiler reads for the model is the kit's,
    and weft-wk inlined the kit's weft/env.wk."""
    cflags = subprocess.run(kit["pkg_config"] + ["--cflags", "weft"],
                            env=kit["env"], capture_output=True, text=True,
                            check=True).stdout.split()
    deps = subprocess.run([kit["cc"], "-std=c11", "-M"] + cflags +
                          ["tpwalk.c", "tpwalk_kernels.c"], cwd=model_dir,
                          capture_output=True, text=True, check=True).stdout
    weft_headers = {d for d in deps.replace("\\\n", " ").split()
                    if "/weft/" in d}
    inc = str(kit["include"]) + "/weft/"
    assert weft_headers and all(d.startswith(inc) for d in weft_headers), \
        sorted(weft_headers)
    assert "tpwalk_act" in (model_dir / "tpwalk_kernels.h").read_text()


def test_ids_search_model_path_and_the_built_in_models(model_dir):
    builtin = E.ids()
    assert ID not in builtin
    for path in (str(model_dir), model_dir, [model_dir],
                 os.pathsep.join(["", str(model_dir), ""])):
        found = E.ids(model_path=path)
        assert ID in found and ID_NS in found
        # in addition to, not instead of, the models found without it
        assert set(builtin) <= set(found)
        assert found == sorted(found)
    with pytest.raises(TypeError, match="model_path must be None, a str"):
        E.ids(model_path=3)


def test_model_path_relative_to_the_current_directory(model_dir,
                                                      monkeypatch):
    monkeypatch.chdir(model_dir.parent)
    env = E.make(ID, 2, model_path=model_dir.name)
    assert env.id == ID
    env.close()


def test_make_without_model_path_does_not_find_it(model_dir):
    with pytest.raises(ValueError, match=r"id: no environment 'TpWalk-v0'"):
        E.make(ID, 2)


def test_weft_model_path_adds_to_the_built_in_models(model_dir):
    """With $WEFT_MODEL_PATH set, a fresh interpreter importing the
    package lists the third party's ids and the built-in ones."""
    code = ("import weft.envs as E, gymnasium as g; i = E.ids(); "
            "print(' '.join(i)); "
            "print(E.gym_id(%r) in g.registry)" % ID)
    env = dict(os.environ, WEFT_MODEL_PATH=str(model_dir),
               PYTHONPATH=os.pathsep.join(
                   [str(Path(weft.__file__).parent.parent)] +
                   [p for p in os.environ.get("PYTHONPATH", "").split(
                       os.pathsep) if p]))
    out = subprocess.run([sys.executable, "-c", code], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    ids, registered = out.stdout.split("\n")[:2]
    ids = ids.split()
    assert ID in ids and set(E.ids()) <= set(ids)
    assert registered == "True"


@pytest.fixture
def registered(model_dir):
    """weft.envs.register(model_path=model_dir), undone afterwards."""
    names = E.register(model_path=model_dir)
    yield names
    for n in names:
        gym.registry.pop(n, None)


def _makers(model_dir):
    """The two ways to make the environments, each a function of (id, n,
    **kw)."""
    def by_make(id, n, **kw):
        return E.make(id, n, model_path=model_dir, backend="openmp", **kw)

    def by_make_vec(id, n, **kw):
        return gym.make_vec(E.gym_id(id), n, model_path=model_dir,
                            backend="openmp", **kw)

    return {"make": by_make, "make_vec": by_make_vec}


@pytest.fixture(params=["make", "make_vec"])
def maker(request, model_dir, registered, backends):
    if "openmp" not in backends:
        pytest.skip("the OpenMP backend is not available here (%s)"
                    % ", ".join(sorted(backends)))
    return _makers(model_dir)[request.param]


def test_register_and_make_vec(model_dir, registered):
    assert set(registered) == {"weft/TpWalk-v0", "weft/ThirdParty-TpWalk-v1"}
    assert E.register(model_path=model_dir) == []  # already known
    # registered with the model_path: make_vec needs no keyword then
    # the specs carry the model's truncation and reward thresholds
    assert gym.spec("weft/TpWalk-v0").reward_threshold == 10.0
    assert gym.spec("weft/ThirdParty-TpWalk-v1").reward_threshold is None
    assert gym.spec("weft/TpWalk-v0").max_episode_steps == 20
    env = gym.make_vec("weft/TpWalk-v0", 3)
    assert isinstance(env, E.WeftVectorEnv) and env.num_envs == 3
    assert env.spec.kwargs["model_path"] == str(model_dir)
    env.close()
    # and a built-in id takes the keyword too
    builtin = E.ids()[0]
    env = gym.make_vec(E.gym_id(builtin), 2, model_path=model_dir)
    assert env.id == builtin
    env.close()


@pytest.mark.parametrize("id, goal", [(ID, GOAL), (ID_NS, GOAL_NS)])
def test_spaces_are_the_declared_ones(maker, id, goal):
    env = maker(id, N)
    try:
        assert env.id == id and env.model == "tpwalk"
        assert env.single_observation_space == gym.spaces.Box(
            np.array([-goal, 0], np.float32), np.array([goal, 1], np.float32),
            (2,), np.float32)
        assert env.single_action_space == gym.spaces.Discrete(3, start=-1)
        assert env.observation_space.shape == (N, 2)
        assert env.observation_space.dtype == np.float32
        assert env.action_space == gym.spaces.MultiDiscrete(
            np.full(N, 3), start=np.full(N, -1))
        assert env.precision == "f32"
        views = env.views()
        assert views["obs"] == ("float32", (N, 2))
        assert views["actions"] == ("int32", (N,))
        obs, info = env.reset(seed=0)
        assert obs.shape == (N, 2) and obs.dtype == np.float32
        # its info field, as SyncVectorEnv's info holds a key
        assert set(info) == {"steps", "_steps"}
        assert info["steps"].dtype == np.uint32 and (info["steps"] == 0).all()
        assert info["_steps"].dtype == np.bool_ and info["_steps"].all()
        assert env.single_observation_space.contains(obs[0])
        assert env.observation_space.contains(obs)
    finally:
        env.close()


class Walk:
    """The model's dynamics apart from its draws, to check each step
    against: a step's positions, rewards and flags follow from the last
    observation and the actions; a new episode's first observation is
    drawn (position -1, 0 or 1, a mark in [0, 1))."""

    def __init__(self, obs, goal=GOAL):
        self.obs = obs.copy()
        self.t = np.zeros(len(obs), np.int64)
        self.goal = goal

    def expect(self, actions):
        """(position, reward, terminated, truncated) after a step."""
        pos = self.obs[:, 0] + actions
        term = np.abs(pos) >= self.goal
        reward = np.where(pos >= self.goal, 1.0,
                          np.where(pos <= -self.goal, -1.0, -0.125))
        trunc = self.t + 1 >= MAX_STEPS
        return pos, reward.astype(np.float32), term, trunc


def _is_first(obs):
    return np.isin(obs[:, 0], (-1.0, 0.0, 1.0)) & (obs[:, 1] >= 0) & \
        (obs[:, 1] < 1)


def _actions(rng, n=N):
    # mostly +1, so that episodes terminate often
    return rng.choice(np.array([-1, 0, 1]), size=n, p=[0.15, 0.15, 0.7])


def test_next_step(maker):
    env = maker(ID, N, autoreset_mode=AutoresetMode.NEXT_STEP)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=11)
    assert _is_first(obs).all()
    w, pending, ends, begins = Walk(obs), np.zeros(N, bool), 0, 0
    for _ in range(80):
        a = _actions(rng)
        pos, rew, term, trunc = w.expect(a)
        obs, reward, terminated, truncated, info = env.step(a)
        assert set(info) == {"steps", "_steps"} and info["_steps"].all()
        live = ~pending
        np.testing.assert_array_equal(obs[live, 0], pos[live])
        np.testing.assert_array_equal(obs[live, 1], w.obs[live, 1])
        np.testing.assert_array_equal(reward[live], rew[live])
        np.testing.assert_array_equal(terminated[live], term[live])
        np.testing.assert_array_equal(truncated[live], trunc[live])
        # the step after an end: the action is ignored, a new episode
        assert _is_first(obs[pending]).all()
        assert (reward[pending] == 0).all()
        assert not terminated[pending].any() and not truncated[pending].any()
        begins += pending.sum()
        w.t = np.where(pending, 0, w.t + 1)
        np.testing.assert_array_equal(info["steps"], w.t)
        pending = terminated | truncated
        ends += pending.sum()
        w.obs = obs.copy()
    assert ends > 10 and begins > 10
    stats = env.episode_statistics()
    assert stats["episodes"] == ends and stats["env_steps"] == 80 * N
    env.close()


def test_same_step(maker):
    env = maker(ID, N, autoreset_mode="same_step")
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=12)
    w, ends = Walk(obs), 0
    for _ in range(60):
        a = _actions(rng)
        pos, rew, term, trunc = w.expect(a)
        obs, reward, terminated, truncated, info = env.step(a)
        np.testing.assert_array_equal(reward, rew)
        np.testing.assert_array_equal(terminated, term)
        np.testing.assert_array_equal(truncated, trunc)
        ended = term | trunc
        # the info field: the steps into the episode; where one ended,
        # the ended step's in final_info (none for the new episode)
        np.testing.assert_array_equal(info["steps"][~ended],
                                      (w.t + 1)[~ended])
        np.testing.assert_array_equal(info["_steps"], ~ended)
        if ended.any():
            np.testing.assert_array_equal(info["_final_obs"], ended)
            np.testing.assert_array_equal(info["_final_info"], ended)
            fin = info["final_info"]
            assert set(fin) == {"steps", "_steps"}
            np.testing.assert_array_equal(
                fin["steps"], np.where(ended, w.t + 1, 0))
            np.testing.assert_array_equal(fin["_steps"], ended)
            for i in range(N):
                if ended[i]:
                    np.testing.assert_array_equal(
                        info["final_obs"][i],
                        np.array([pos[i], w.obs[i, 1]], np.float32))
                else:
                    assert info["final_obs"][i] is None
        else:
            assert set(info) == {"steps", "_steps"}
        # an ended episode's next one begins in the same step
        assert _is_first(obs[ended]).all()
        np.testing.assert_array_equal(obs[~ended, 0], pos[~ended])
        np.testing.assert_array_equal(obs[~ended, 1], w.obs[~ended, 1])
        w.t = np.where(ended, 0, w.t + 1)
        ends += ended.sum()
        w.obs = obs.copy()
    assert ends > 10
    env.close()


def test_disabled_with_reset_mask(maker):
    env = maker(ID, N, autoreset_mode="disabled")
    assert env.metadata["autoreset_mode"] == AutoresetMode.DISABLED
    rng = np.random.default_rng(2)
    obs, _ = env.reset(seed=13)
    w, resets = Walk(obs), 0
    for k in range(60):
        a = _actions(rng)
        pos, rew, term, trunc = w.expect(a)
        obs, reward, terminated, truncated, info = env.step(a)
        np.testing.assert_array_equal(info["steps"], w.t + 1)
        assert info["_steps"].all()
        np.testing.assert_array_equal(obs[:, 0], pos)
        np.testing.assert_array_equal(obs[:, 1], w.obs[:, 1])
        np.testing.assert_array_equal(reward, rew)
        np.testing.assert_array_equal(terminated, term)
        np.testing.assert_array_equal(truncated, trunc)
        w.t += 1
        ended = terminated | truncated
        if ended.any():
            before = obs.copy()
            seeds = None if k % 2 else [100 + i if e else None
                                        for i, e in enumerate(ended)]
            obs, info = env.reset(seed=seeds,
                                  options={"reset_mask": ended.copy()})
            # the info field of the environments reset only
            np.testing.assert_array_equal(info["_steps"], ended)
            assert (info["steps"][ended] == 0).all()
            # only those reset: the others keep their observation
            np.testing.assert_array_equal(obs[~ended], before[~ended])
            assert _is_first(obs[ended]).all()
            w.t[ended] = 0
            resets += ended.sum()
        w.obs = obs.copy()
    assert resets > 10
    env.close()


def test_seeds(maker):
    env = maker(ID, N)
    a, _ = env.reset(seed=5)
    a = a.copy()
    b, _ = env.reset(seed=5)
    np.testing.assert_array_equal(a, b)
    c, _ = env.reset(seed=6)
    assert not np.array_equal(a[:, 1], c[:, 1])
    # environment i seeded with s + i: its episodes depend on the seed
    # alone, whatever its index
    d, _ = env.reset(seed=[5 + i for i in range(N)])
    np.testing.assert_array_equal(a, d)
    e = env.reset(seed=[7] * N)[0].copy()  # (a view the next reset writes)
    assert (e == e[0]).all()
    f, _ = env.reset(seed=[None, 7] + [None] * (N - 2))
    np.testing.assert_array_equal(f[1], e[0])
    env.close()


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_determinism_make_and_make_vec(model_dir, registered, backends,
                                       mode):
    """The same seed and actions give the same arrays, bit for bit, from
    make() and from make_vec(), twice."""
    if "openmp" not in backends:
        pytest.skip("the OpenMP backend is not available here")
    makers = _makers(model_dir)

    def trajectory(make):
        env = make(ID, N, autoreset_mode=mode, copy=True)
        rng = np.random.default_rng(3)
        out = [env.reset(seed=21)[0]]
        for _ in range(40):
            obs, rew, term, trunc, _ = env.step(_actions(rng))
            out += [obs, rew, term, trunc]
            if mode == "disabled" and (term | trunc).any():
                out.append(env.reset(
                    options={"reset_mask": term | trunc})[0])
        env.close()
        return out

    runs = [trajectory(makers["make"]), trajectory(makers["make"]),
            trajectory(makers["make_vec"])]
    for other in runs[1:]:
        assert len(other) == len(runs[0])
        for x, y in zip(runs[0], other):
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


def test_dlpack_views_of_obs(maker):
    """obs through DLPack: np.from_dlpack of device_array("obs") and of
    the obs step() returns are views of the same memory (on the host
    backend, the device's own), which the next step overwrites."""
    env = maker(ID, N)
    assert env.zero_copy
    obs, _ = env.reset(seed=1)
    dev = env.device_array("obs")
    assert hasattr(dev, "__dlpack__") and hasattr(dev, "__dlpack_device__")
    assert dev.__dlpack_device__()[0] == 1  # kDLCPU
    t = np.from_dlpack(dev)
    assert t.shape == (N, 2) and t.dtype == np.float32
    assert t.ctypes.data == obs.ctypes.data
    u = np.from_dlpack(obs)
    assert u.ctypes.data == obs.ctypes.data
    # positions -1, 0 or 1: one step of +1 and one of -1 end no episode
    obs2 = env.step(np.ones(N, np.int64))[0]
    assert obs2.ctypes.data == obs.ctypes.data
    np.testing.assert_array_equal(t, obs2)
    np.testing.assert_array_equal(u, obs2)
    # actions written in place through DLPack, then step_device()
    act = np.from_dlpack(env.device_array("actions"))
    assert act.dtype == np.int32 and act.shape == (N,)
    before = obs2.copy()
    act[:] = -1
    out = env.step_device()[0]
    np.testing.assert_array_equal(out[:, 0], before[:, 0] - 1)
    np.testing.assert_array_equal(out[:, 1], before[:, 1])
    del t, u, act, dev
    env.close()
