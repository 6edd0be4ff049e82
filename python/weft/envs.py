"""weft.envs - batched reinforcement-learning environments as Gymnasium
vector environments.

make(id, num_envs, ...) opens any installed environment model (the
protocol of weft/env.h; ids() lists them) as a WeftVectorEnv, on the
generic C type weft._weft.Env: spaces from the model's declared ones, the
three autoreset modes of Gymnasium 1.x, seeds as SyncVectorEnv, results
as writable numpy views, and generic operations on the model's declared
views and launch lists (read, write, launch), episode statistics from the
protocol's bookkeeping view and render(). Importing this module registers
every id with Gymnasium as "weft/ID" (gymnasium.make_vec("weft/Pendulum-v1",
8)).

Zero copy: the arrays step() and reset() return are numpy views of the
results, made once. On a host backend (OpenMP) they are the device's own
memory, so nothing is copied; on OpenCL or CUDA one read per step brings
them to a host buffer. Either way the next step overwrites them: pass
copy=True, or copy what you keep.

CartPoleVectorEnv is WeftVectorEnv of CartPole-v1 with SAME_STEP
autoreset, plus what CartPole's model declares besides the protocol
(states through its "state" and "set_state" lists, final_return), written
with those generic operations: no C code of its own.
"""
from __future__ import annotations

import os
import sys
import warnings
from functools import partial
from typing import Sequence, Union

import numpy as np

from . import _weft
from .errors import ConfigError, InvalidArgumentError, PluginError

try:
    import gymnasium as _gym
    from gymnasium.vector import VectorEnv as _Base
    from gymnasium.vector.vector_env import AutoresetMode as _Mode
except ImportError:  # gymnasium is optional
    _gym = None
    _Base = object
    _Mode = None

__all__ = ["CartPoleVectorEnv", "WeftVectorEnv", "make", "ids", "gym_id",
           "register"]

# What model_path takes: ":"-separated directories, a path, or a list.
PathList = Union[str, "os.PathLike[str]",
                 Sequence[Union[str, "os.PathLike[str]"]]]

# Gymnasium's AutoresetMode values, for metadata without gymnasium.
_MODE_VALUES = {"next_step": "NextStep", "same_step": "SameStep",
                "disabled": "Disabled"}
_RENDER_MODES = ["rgb_array"]


def _sync_current_streams(device):
    """Wait for the current CUDA stream of PyTorch and of CuPy on
    `device`, for each that is imported and has started CUDA (neither is
    imported here: one that is not loaded has queued nothing)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        torch.cuda.current_stream(device).synchronize()
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        with cupy.cuda.Device(device):
            cupy.cuda.get_current_stream().synchronize()

# ---- any environment model (weft/env.h): weft.envs.make -----------------

_MODES = {"next_step": "NEXT_STEP", "same_step": "SAME_STEP",
          "disabled": "DISABLED"}
# The keys reset(options=...) takes.
_RESET_OPTIONS = ("reset_mask",)


def _model_path(model_path: PathList | None) -> str | None:
    """model_path as libweft takes it: None, or its directories made
    absolute and joined by ":". model_path is None, a str of
    ":"-separated directories, an os.PathLike, or a list or tuple of
    those; empty ones are dropped."""
    if model_path is None:
        return None
    if isinstance(model_path, (str, os.PathLike)):
        parts = [model_path]
    elif isinstance(model_path, (list, tuple)):
        parts = list(model_path)
    else:
        raise TypeError(
            "model_path must be None, a str of ':'-separated directories, "
            "a path or a list of them; got %s" % type(model_path).__name__)
    dirs = []
    for p in parts:
        if not isinstance(p, (str, os.PathLike)):
            raise TypeError(
                "model_path: each directory must be a str or a path, got "
                "%s %r" % (type(p).__name__, p))
        p = os.fspath(p)
        if isinstance(p, bytes):
            raise TypeError("model_path: a directory must be a str, got "
                            "bytes %r" % (p,))
        dirs += [os.path.abspath(d) for d in p.split(os.pathsep) if d]
    return os.pathsep.join(dirs) or None


def ids(model_path: PathList | None = None) -> list[str]:
    """The environment ids of the available models (weft_env_list_scan),
    sorted: ["Acrobot-v1", "CartPole-v1", ...]. model_path: directories
    searched first (a str of ":"-separated directories, a path, or a
    list of them), then $WEFT_MODEL_PATH, then the installed plugin
    directory; make(..., model_path=) searches the same."""
    return [e["id"] for e in _weft.envs(_model_path(model_path))]


def gym_id(id):
    """The name under which Gymnasium knows weft's id: "weft/" + id, with
    a namespace of the id's own joined by "-" (Gymnasium allows one
    namespace): "weft/Acrobot-v1", "weft/MinAtar-Breakout-v1"."""
    return "weft/" + id.replace("/", "-")


def _entry(id, model_path=None):
    """The weft_env_list entry of id ("Acrobot-v1", or its Gymnasium name
    "weft/Acrobot-v1", "weft/MinAtar-Breakout-v1") among the models of
    model_path (as _model_path() gives it), $WEFT_MODEL_PATH and the
    installed directory, or ValueError listing the ids there are."""
    if not isinstance(id, str):
        raise TypeError("id must be a str such as 'Acrobot-v1', got %s"
                        % type(id).__name__)
    name = id[5:] if id.startswith("weft/") else id
    entries = _weft.envs(model_path)
    for e in entries:
        if e["id"] == name or gym_id(e["id"]) == id:
            return e
    failed = _failed_models(model_path)
    raise InvalidArgumentError(
        "id: no environment %r among the installed models; the ids are: "
        "%s%s" % (id, ", ".join(e["id"] for e in entries) or "(none)",
                  "; models that did not load: " + "; ".join(failed)
                  if failed else ""))


def _failed_models(model_path):
    """The model plugins of model_path, $WEFT_MODEL_PATH and the installed
    directory that did not load, as "PATH (STAGE: REASON)": an id of one
    of them is not listed, and this says why."""
    return ["%s (%s: %s)" % (m["path"], m["stage"], m["reason"])
            for m in _weft.models(model_path) if m["state"] == "failed"]


def _mode_name(mode):
    """"next_step", "same_step" or "disabled" from an AutoresetMode or
    either spelling of its name."""
    if _Mode is not None and isinstance(mode, _Mode):
        mode = mode.name
    if isinstance(mode, str):
        key = mode.lower().replace("-", "_")
        key = {"nextstep": "next_step", "samestep": "same_step"}.get(key, key)
        if key in _MODES:
            return key
    raise InvalidArgumentError(
        "autoreset_mode must be a gymnasium AutoresetMode or one of "
        "'next_step', 'same_step', 'disabled'; got %r" % (mode,))


def _override_items(overrides):
    """overrides as (key, value, text) triples: a dict {"section.key":
    value} or "section.key=value" strings."""
    if isinstance(overrides, dict):
        items = overrides.items()
        return [(str(k).strip(), str(v).strip(), "%s=%s" % (k, v))
                for k, v in items]
    if isinstance(overrides, str):
        overrides = [overrides]
    out = []
    for s in overrides:
        if not isinstance(s, str) or "=" not in s:
            raise InvalidArgumentError(
                "overrides: expected 'section.key=value' strings (or a "
                "dict), got %r" % (s,))
        k, v = s.split("=", 1)
        out.append((k.strip(), v.strip(), s))
    return out


def _space(d):
    """A Gymnasium space of one environment from a declared space. A
    Discrete space has Gymnasium's default dtype (int64, as its own
    environments declare them, so that the spaces compare equal); the
    action view's storage (u8 for CartPole) is the model's, and step()
    converts."""
    dtype = np.dtype(d["dtype"])
    if d["kind"] == "discrete":
        return _gym.spaces.Discrete(int(d["n"]), start=int(d["start"]))
    shape = tuple(d["shape"])
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        lo_inf, hi_inf = info.min, info.max
    else:
        lo_inf, hi_inf = -np.inf, np.inf
    low = np.full(shape, lo_inf, dtype=np.float64) if d["low"] is None \
        else np.asarray(d["low"], dtype=np.float64).reshape(shape)
    high = np.full(shape, hi_inf, dtype=np.float64) if d["high"] is None \
        else np.asarray(d["high"], dtype=np.float64).reshape(shape)
    return _gym.spaces.Box(low.astype(dtype), high.astype(dtype),
                           shape=shape, dtype=dtype)


def _check_renderer(env_id):
    """ValueError unless weft.render draws env_id (where weft.render is
    there to ask)."""
    try:
        from . import render as _render
    except ImportError:  # not installed: render() will say so
        return
    ids = getattr(_render, "supported_ids", None)
    if ids is None:
        return
    known = ids()
    if env_id in known or any(k.endswith("/*") and
                              env_id.startswith(k[:-1]) for k in known):
        return
    raise InvalidArgumentError(
        "render_mode='rgb_array': weft.render has no renderer for %s "
        "(it draws %s)" % (env_id, ", ".join(known)))


def _open(sets, results, backend, section, model_keys):
    """_weft.Env(sets, results), its errors as Python's for a bad call: a
    key of the model's section that it does not have, given as a keyword
    of make(), a TypeError (as an unexpected keyword argument is; a bad
    value of a key it has stays a ConfigError, a ValueError); a backend
    name no plugin has, a ValueError naming `backend`."""
    try:
        return _weft.Env(sets, tuple(results))
    except ConfigError as e:
        for k in model_keys:
            if str(e).startswith("--set %s.%s: unknown key"
                                 % (section, k)):
                raise TypeError("unexpected keyword argument %r: %s"
                                % (k, e)) from None
        raise
    except PluginError as e:
        if backend != "auto" and str(e).startswith("no backend named"):
            raise InvalidArgumentError("backend: %s" % e) from None
        raise


def _render_fps(env_id):
    """Gymnasium's render_fps of env_id where weft.render knows it."""
    try:
        from .render import render_fps
    except ImportError:  # not installed: no frames, no rate
        return None
    return render_fps(env_id)


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(
        x, (bool, np.bool_))


class WeftVectorEnv(_Base):
    """num_envs environments of one id, stepped together by weft, as a
    gymnasium.vector.VectorEnv. Made by weft.envs.make() (or
    gymnasium.make_vec("weft/ID")); see make() for the arguments."""

    render_mode = None

    def __init__(self, id, num_envs=1, *, backend="auto",
                 autoreset_mode="next_step", precision=None,
                 max_episode_steps=None, threads=None, copy=False,
                 overrides=(), render_mode=None, model_path=None,
                 _results=(), **model_keys):
        import tempfile

        if not _is_int(num_envs) or num_envs < 1:
            raise InvalidArgumentError(
                "num_envs must be a positive int, got %r" % (num_envs,))
        num_envs = int(num_envs)
        if not isinstance(copy, (bool, np.bool_)):
            raise TypeError("copy must be a bool, got %s %r"
                            % (type(copy).__name__, copy))
        if not isinstance(backend, str):
            raise TypeError("backend must be a str ('auto' or a backend's "
                            "name, see weft.backends()), got %s %r"
                            % (type(backend).__name__, backend))
        model_path = _model_path(model_path)
        entry = _entry(id, model_path)
        mode = _mode_name(autoreset_mode)
        if render_mode is not None and render_mode not in _RENDER_MODES:
            raise InvalidArgumentError(
                "render_mode must be None or 'rgb_array' (the render modes "
                "of weft's environments), got %r" % (render_mode,))
        section = entry["count_key"].split(".", 1)[0]
        # the run searches model_path first, as the listing did (set
        # before the model's section is named)
        sets = ["model.plugin_path=%s" % model_path] if model_path else []
        sets.append("simulation.model=%s" % entry["model"])
        sets += [s for s in entry["sets"].split("\n") if s.strip()]
        sets += ["%s=%d" % (entry["count_key"], num_envs),
                 "%s=%s" % (entry["autoreset_key"], mode),
                 "backend.name=%s" % backend,
                 "output.csv=false", "output.summary=false",
                 "output.plot=none",
                 "output.directory=%s" % tempfile.gettempdir()]
        if precision is not None:
            if not entry["precision_key"]:
                raise InvalidArgumentError(
                    "precision: %s has one precision (the model %s has no "
                    "precision key); leave precision=None"
                    % (entry["id"], entry["model"]))
            if precision not in ("f32", "f64"):
                raise InvalidArgumentError(
                    "precision must be 'f32' or 'f64', got %r"
                    % (precision,))
            sets.append("%s=%s" % (entry["precision_key"], precision))
        if max_episode_steps is not None:
            if not _is_int(max_episode_steps) or max_episode_steps < 1:
                raise InvalidArgumentError(
                    "max_episode_steps must be a positive int (None: the "
                    "id's), got %r" % (max_episode_steps,))
            # the id's own is what the model applies already (make_vec
            # passes the spec's: a model need not have the key for it)
            if max_episode_steps != entry.get("max_episode_steps"):
                sets.append("%s.max_episode_steps=%d"
                            % (section, max_episode_steps))
        if threads is not None:
            if not _is_int(threads) or threads < 1:
                raise InvalidArgumentError(
                    "threads must be a positive int, got %r" % (threads,))
            sets.append("backend.threads=%d" % threads)
        for k, v in model_keys.items():
            sets.append("%s.%s=%s" % (section, k, v))
        for k, v, text in _override_items(overrides):
            if k == entry["count_key"] and v != str(num_envs):
                raise InvalidArgumentError(
                    "overrides: %r would make %s environments, but "
                    "num_envs is %d: pass num_envs=%s instead"
                    % (text, v, num_envs, v))
            sets.append(text)
        self._c = _open(sets, _results, backend, section, model_keys)
        info = self._c.info()
        if info["num_envs"] != num_envs:  # a model's own setting changed it
            self._c.close()
            raise InvalidArgumentError(
                "the settings made %d environments, but num_envs is %d"
                % (info["num_envs"], num_envs))
        self.id = entry["id"]
        self.num_envs = num_envs
        self.backend = info["backend"]
        self.model = info["model"]
        self.precision = "f64" if info["precision"] == 64 else "f32"
        self.zero_copy = info["zero_copy"]
        self.autoreset = info["autoreset"]
        self._copy = bool(copy)
        self._info = info
        self._declared = self._c.views()  # {name: (dtype, shape)}
        self._obs_space, self._act_space = info["observation"], info["action"]
        self._act_dtype = np.dtype(info["actions_dtype"])
        sp = self._act_space
        self._act_shape = (num_envs,) + tuple(sp["shape"])
        self._act_range = (sp["start"], sp["start"] + sp["n"] - 1) \
            if sp["kind"] == "discrete" else None
        # the arrays step() passes to the extension as they are (dtype
        # type codes): a Discrete space's integers, a float32 Box's
        # float32 and float64; others are converted here first
        if self._act_range is not None:
            self._act_codes = np.typecodes["AllInteger"]
        elif self._act_dtype == np.float32:
            self._act_codes = "fd"
        else:
            self._act_codes = ""
        self._views(info)
        # the episodes that ended in the last step, computed in place in
        # SAME_STEP mode (its info) and DISABLED mode (those must be reset
        # before the next step, as SyncVectorEnv requires)
        self._ended = np.zeros(num_envs, dtype=np.bool_)
        # the model's info fields, and their mask where every environment
        # has them (read-only: one array for every step)
        self._info_fields = tuple(info.get("info_fields", ()))
        self._all = np.ones(num_envs, dtype=np.bool_)
        self._all.flags.writeable = False
        # A step's result where it is the views themselves and an empty
        # info (NEXT_STEP, no info fields, no copies): one tuple made
        # once, so that step() adds only the info dict (_result)
        self._plain = (self.autoreset == "next_step"
                       and not self._info_fields and not self._copy)
        self._views_out = (self._obs, self._rew, self._term, self._trunc)
        if render_mode is not None:
            try:
                _check_renderer(self.id)
            except Exception:
                self._c.close()
                raise
        self.render_mode = render_mode
        self.metadata = {"autoreset_mode":
                         getattr(_Mode, _MODES[self.autoreset])
                         if _Mode else _MODE_VALUES[self.autoreset],
                         "render_modes": list(_RENDER_MODES)}
        fps = _render_fps(self.id)
        if fps is not None:  # as SyncVectorEnv copies it from its env
            self.metadata["render_fps"] = fps
        if _gym is not None:
            from gymnasium.vector.utils import batch_space
            self.single_observation_space = _space(self._obs_space)
            self.single_action_space = _space(self._act_space)
            self.observation_space = batch_space(
                self.single_observation_space, num_envs)
            self.action_space = batch_space(self.single_action_space,
                                            num_envs)
        self._cuda_device = None  # _on_cuda(): -1, or the CUDA device
        self._lists = {}  # _has_list(): which launch lists there are
        self._env_steps = 0
        self._stats_seen = (0, 0.0)  # episodes and returns at the last call
        # True before the first reset(), once closed, and in DISABLED
        # mode while an ended environment has not been reset: step()
        # checks this one flag, then which it is (_refuse)
        self._needs_reset = True
        self._started = False  # reset() (or set_state of all) was called
        self.closed = False

    def _begun(self, mask):
        """The bookkeeping of a reset: the environments of mask (None:
        every one) began new episodes."""
        if mask is None:
            self._ended[:] = False
        else:
            self._ended &= ~mask
        self._started = True
        self._needs_reset = (self.autoreset == "disabled"
                             and bool(self._ended.any()))

    def _refuse(self, call):
        """The error of a step that cannot be taken (_needs_reset)."""
        if self.closed:
            raise InvalidArgumentError("%s: the environments are closed"
                                       % call)
        if not self._started:
            raise InvalidArgumentError(
                "%s before reset(): call reset() first (as Gymnasium's "
                "vector environments require)" % call)
        ended = np.flatnonzero(self._ended)
        raise InvalidArgumentError(
            "%s: environment%s %s ended in the last step and %s not been "
            "reset: with autoreset_mode='disabled' reset them first, "
            "reset(options={'reset_mask': terminated | truncated})"
            % (call, "s" if len(ended) > 1 else "",
               ", ".join(str(i) for i in ended[:8])
               + (", ..." if len(ended) > 8 else ""),
               "have" if len(ended) > 1 else "has"))

    def _views(self, info):
        buf = np.frombuffer(self._c, dtype=np.uint8)

        def view(name, dtype=None):
            off, dt, shape = info["views"][name]
            dt = np.dtype(dtype or dt)
            count = int(np.prod(shape))
            return np.frombuffer(buf, dtype=dt, count=count,
                                 offset=off).reshape(shape)

        self._obs = view("obs")
        self._rew = view("reward")
        self._term = view("terminated", np.bool_)
        self._trunc = view("truncated", np.bool_)
        self._final = view("final_obs")
        # more results asked for (Env(sets, results)): views too
        self._more = {k: view(k) for k in info["views"]
                      if k not in ("obs", "reward", "terminated",
                                   "truncated", "final_obs")}

    def _out(self, a):
        return a.copy() if self._copy else a

    # ---- Gymnasium's API -------------------------------------------------

    def reset(self, *, seed=None, options=None):
        """Begin new episodes, as VectorEnv.reset: seed None (each
        environment's next episode), an int s (environment i seeded with
        s + i, as SyncVectorEnv does) or a list of ints and None, one per
        environment; options={"reset_mask": bool array of shape
        (num_envs,)} resets only those (any other key of options is
        refused, ValueError naming it). Returns (obs, info): info the
        model's info fields, for the environments reset (none: {})."""
        n = self.num_envs
        which = np.full(n, 1, dtype=np.uint8)  # WEFT_ENV_NEXT
        seeds = None
        if options is not None and not isinstance(options, dict):
            raise TypeError("options must be a dict or None, got %s"
                            % type(options).__name__)
        unknown = [k for k in (options or {}) if k not in _RESET_OPTIONS]
        if unknown:
            raise InvalidArgumentError(
                "options: unknown key%s %s; reset() accepts %s"
                % ("s" if len(unknown) > 1 else "",
                   ", ".join(repr(k) for k in unknown),
                   ", ".join(repr(k) for k in _RESET_OPTIONS)))
        mask = (options or {}).get("reset_mask")
        if mask is not None:
            mask = np.asarray(mask)
            if mask.shape != (n,) or mask.dtype != np.bool_:
                raise InvalidArgumentError(
                    "options['reset_mask'] must be a bool array of shape "
                    "(%d,), got %s of shape %s" % (n, mask.dtype,
                                                   mask.shape))
            # a copy: the mask may be the terminated view, which the
            # reset clears
            mask = mask.copy()
        if seed is not None:
            seeds, given = self._seeds(seed)
            which[given] = 2  # WEFT_ENV_SEEDED
        if mask is not None:
            which[~mask] = 0  # WEFT_ENV_KEEP
        self._c.reset_some(which, seeds)
        if _gym is not None and _is_int(seed):  # VectorEnv.reset's
            from gymnasium.utils import seeding
            self._np_random, self._np_random_seed = seeding.np_random(
                int(seed))
        self._begun(mask)
        return self._out(self._obs), self._fields(
            self._all if mask is None else mask)

    def _seeds(self, seed):
        n = self.num_envs
        if _is_int(seed):
            seed = int(seed)  # numpy's fixed-width ints would wrap
            if seed < 0 or seed + n - 1 > 2**64 - 1:
                raise InvalidArgumentError(
                    "seed must be an int in 0 .. 2**64 - num_envs, got %d"
                    % seed)
            return (np.arange(n, dtype=np.uint64) + np.uint64(seed),
                    np.ones(n, dtype=bool))
        if isinstance(seed, (str, bytes, float, bool, np.floating, np.bool_,
                             dict, set, frozenset)) or not hasattr(
                                 seed, "__len__"):
            raise TypeError(
                "seed must be None, an int, or a list of %d entries (each "
                "an int or None); got %s %r" % (n, type(seed).__name__, seed))
        seed = list(seed)
        if len(seed) != n:
            raise InvalidArgumentError(
                "seed: a list of %d seeds for %d environments; expected "
                "one per environment (an int or None)" % (len(seed), n))
        seeds = np.zeros(n, dtype=np.uint64)
        given = np.zeros(n, dtype=bool)
        for i, s in enumerate(seed):
            if s is None:
                continue
            if not _is_int(s):
                raise TypeError("seed[%d] must be an int or None, got %s %r"
                                % (i, type(s).__name__, s))
            s = int(s)
            if s < 0 or s > 2**64 - 1:
                raise InvalidArgumentError(
                    "seed[%d] must be in 0 .. 2**64 - 1, got %d" % (i, s))
            seeds[i], given[i] = s, True
        return seeds, given

    def _actions(self, actions):
        """actions as a C-contiguous array of the action view's dtype and
        shape, or ValueError/TypeError naming what is wrong. An array
        that is already so is passed as it is, checked with reductions
        only: a step allocates no array of its own."""
        if not isinstance(actions, np.ndarray) and hasattr(
                actions, "__dlpack__"):
            try:
                actions = np.from_dlpack(actions)
            except (BufferError, RuntimeError, TypeError) as e:
                raise InvalidArgumentError(
                    "actions: %s; step() takes host memory (write device "
                    "actions into device_array('actions') and call "
                    "step_device())" % e) from None
        a = np.asarray(actions)
        sp = self._act_space
        shape = self._act_shape
        if self._act_range is not None:
            if a.dtype.kind not in "iub":
                raise TypeError(
                    "actions must be integers (Discrete(%d, start=%d)); "
                    "got dtype %s" % (sp["n"], sp["start"], a.dtype))
            if a.shape != shape:
                raise InvalidArgumentError(
                    "actions have shape %s; expected %s (one per "
                    "environment)" % (a.shape, shape))
            lo, hi = self._act_range
            if a.min() < lo or a.max() > hi:
                i = int(np.flatnonzero((a < lo) | (a > hi))[0])
                raise InvalidArgumentError(
                    "actions[%d] is %s, out of range: expected %d .. %d "
                    "(Discrete(%d, start=%d)); nothing was sent"
                    % (i, a[i], lo, hi, sp["n"], sp["start"]))
        else:
            if a.dtype.kind not in "iuf":
                raise TypeError(
                    "actions must be numbers (Box of %s); got dtype %s"
                    % (sp["dtype"], a.dtype))
            if a.shape != shape:
                raise InvalidArgumentError(
                    "actions have shape %s; expected %s (num_envs, "
                    "*single_action_space.shape)" % (a.shape, shape))
            return self._box_actions(a)
        if a.dtype == self._act_dtype and a.flags.c_contiguous:
            return a
        return np.ascontiguousarray(a, dtype=self._act_dtype)

    def _box_actions(self, a):
        """Box actions a as the action view's dtype, or ValueError naming
        the first environment whose actions are not finite there (1e39
        is not, as float32)."""
        with np.errstate(over="ignore", invalid="ignore"):
            out = a if a.dtype == self._act_dtype and a.flags.c_contiguous \
                else np.ascontiguousarray(a, dtype=self._act_dtype)
            # floats are checked as the model takes them, or as given
            # where it takes integers (a NaN has no integer value)
            chk = out if out.dtype.kind == "f" else a
            if chk.dtype.kind != "f" or np.isfinite(chk.sum()):
                return out
        bad = ~np.isfinite(chk).reshape(self.num_envs, -1).all(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidArgumentError(
                "actions of environment %d are not finite as %s (%s); "
                "nothing was sent" % (i, chk.dtype, a[i]))
        return out

    def step(self, actions):
        """One step of every environment. actions: (num_envs, *A) of the
        action space (a numpy array, a list, or a DLPack producer on the
        CPU); Discrete actions out of range are refused naming the first
        environment, Box actions are passed as they are (the model clips
        them as Gymnasium's does) unless not finite. Returns (obs,
        reward, terminated, truncated, info) as Gymnasium's SyncVectorEnv
        does in this autoreset mode."""
        if self._needs_reset:
            self._refuse("step()")
        a = actions
        if not (type(a) is np.ndarray and a.dtype.char in self._act_codes
                and a.dtype.isnative and a.shape == self._act_shape
                and a.flags.c_contiguous):
            a = self._actions(a)
        # (a Discrete space's integer array of the right shape, any
        # integer dtype, is passed as it is: the extension converts it and
        # checks the range in one pass, allocating nothing; so is a
        # float32 Box's float32 or float64 array, converted and checked
        # finite)
        out = self._views_out  # (a close() by another thread clears it)
        self._c.step(a)
        self._env_steps += self.num_envs
        if self._plain:
            return out + ({},)
        return self._result()

    def step_device(self, stream=None):
        """One step with the actions already in device_array("actions")
        (written there in place, e.g. by a torch policy). Returns what
        step() returns.

        Work queued on another stream must be complete before the step
        reads the actions and overwrites the arrays: on the CUDA
        backend, weft's stream does not wait for PyTorch's or CuPy's
        (nor they for it). So the step first waits for `stream` (an
        object with synchronize(): torch.cuda.Stream, cupy.cuda.Stream)
        when one is given, on any backend; with None, on CUDA, for the
        current stream of PyTorch and of CuPy, where either has been
        imported and has started CUDA."""
        if self._needs_reset:
            self._refuse("step_device()")
        if stream is not None:
            sync = getattr(stream, "synchronize", None)
            if not callable(sync):
                raise TypeError(
                    "stream must have a synchronize() method (a "
                    "torch.cuda.Stream or cupy.cuda.Stream), got %r"
                    % (stream,))
            sync()
        elif self._on_cuda():
            _sync_current_streams(self._cuda_device)
        self._c.step(None)
        self._env_steps += self.num_envs
        return self._result()

    def _on_cuda(self):
        """Whether the action buffer is CUDA memory (asked once)."""
        if self._cuda_device is None:
            nat = self._c.device_array("actions").native
            self._cuda_device = nat["device"] if nat["kind"] == "cuda" \
                else -1
        return self._cuda_device >= 0

    def _fields(self, valid):
        """The model's info fields (weft_model_env_info) as
        SyncVectorEnv's info holds an environment's keys: info[name], the
        view (a copy with copy=True), and info["_" + name], the bool mask
        `valid` of the environments it holds them for."""
        info = {}
        for k in self._info_fields:
            info[k] = self._out(self._more[k])
            info["_" + k] = valid
        return info

    def _same_step_ends(self, ended):
        """SAME_STEP's info where the environments `ended` (a bool array
        of its own) ended their episodes (_result)."""
        idx = ended.nonzero()[0]
        final = np.empty(self.num_envs, dtype=object)
        for i, row in zip(idx.tolist(), self._final[idx]):
            final[i] = row
        ended_info = {}
        for k in self._info_fields:
            rows = np.zeros_like(self._more[k])
            rows[idx] = self._more[k][idx]
            ended_info[k] = rows
            ended_info["_" + k] = ended.copy()
        info = self._fields(~ended)
        info.update({"final_obs": final, "_final_obs": ended,
                     "final_info": ended_info, "_final_info": ended.copy()})
        return info

    def _result(self):
        """The step's arrays and info: the model's info fields, and in
        SAME_STEP mode, where episodes ended, as SyncVectorEnv builds it:
        final_obs an object array (None where no episode ended; elsewhere
        a copy of the ended episode's last observation, which later steps
        leave be: rows of one copy of those rows), final_info (the info
        fields of the ended step: copies, zero where no episode ended,
        and their masks) and their masks. The info fields' own masks are
        then False there: the view holds the ended step's values, which
        final_info gives (SyncVectorEnv would give the new episode's
        reset info there, which one view per field cannot also hold). In
        DISABLED mode an episode's end makes the next step wait for
        its environment's reset (_refuse)."""
        if self.closed:
            raise InvalidArgumentError(
                "step(): the environments were closed by another thread "
                "before the step's results were read")
        if self._plain:
            return self._views_out + ({},)
        if self.autoreset == "next_step" or not np.logical_or(
                self._term, self._trunc, out=self._ended).any():
            info = self._fields(self._all)
        elif self.autoreset == "same_step":
            info = self._same_step_ends(self._ended.copy())
        else:  # DISABLED: the next step waits for their reset
            self._needs_reset = True
            info = self._fields(self._all)
        return (self._out(self._obs), self._out(self._rew),
                self._out(self._term), self._out(self._trunc), info)

    def render(self):
        """num_envs frames, a tuple of uint8 (H, W, 3) arrays, as
        SyncVectorEnv.render() gives its environments' frames, drawn by
        weft.render.frame from each environment's physical state (the
        "state" view, packed first by the model's "state" launch list
        where it has one) and observation. Needs render_mode="rgb_array"
        (make(..., render_mode="rgb_array"))."""
        if self.closed:
            raise InvalidArgumentError("render(): the environments are closed")
        if self.render_mode is None:
            raise InvalidArgumentError(
                "render(): these environments were made with render_mode="
                "None; pass render_mode='rgb_array' to make()")
        from . import render as _render

        state = self.read_state() if "state" in self._declared else None
        obs = self._obs
        return tuple(_render.frame(self.id,
                                   None if state is None else state[i],
                                   obs[i])
                     for i in range(self.num_envs))

    def read_state(self):
        """Every environment's physical state as the model's "state" view
        holds it (Gymnasium's env.unwrapped.state order), a numpy copy:
        the "state" launch list packs it first where the model has one."""
        if self._has_list("state"):
            self._c.launch("state", 1)
        return self.read("state")

    def _has_list(self, name):
        if name not in self._lists:
            self._lists[name] = self._c.has_list(name)
        return self._lists[name]

    def close(self, **kwargs):
        """Close the run; its memory is freed once no array of it (a view
        step() returned, a DeviceArray, a DLPack tensor) is left."""
        if not self.closed:
            # refused (RuntimeError) while another thread steps them:
            # then nothing here changes either
            self._c.close()
            # our own views pin the memory too: it is freed once they
            # and any the caller holds are gone
            self._obs = self._rew = self._term = self._trunc = None
            self._final = None
            self._more = {}
            self._views_out = None
            self.closed = True
            self._needs_reset = True

    def close_extras(self, **kwargs):
        self.close()

    def __copy__(self):
        # a copy would share the run and close it under the original
        raise TypeError(
            "%s cannot be copied (its environments are one weft run); make "
            "another with weft.envs.make(%r, %d, ...)"
            % (type(self).__name__, self.id, self.num_envs))

    def __deepcopy__(self, memo):
        return self.__copy__()

    # ---- beyond Gymnasium: the model's views and lists -------------------

    def device_array(self, name):
        """A view the model declared ("obs", "reward", "actions", "state",
        "env_book", ...) where it lies: __dlpack__/__dlpack_device__ for
        torch.from_dlpack (CPU and CUDA, zero copy), and on host backends
        the buffer protocol (np.asarray(env.device_array("actions")) is
        writable). On OpenCL __dlpack__ raises BufferError: a cl_mem
        cannot be a DLPack tensor (.native gives the handle)."""
        return self._c.device_array(name)

    def views(self):
        """Every view the model declared: {name: (dtype, shape)}."""
        return dict(self._declared)

    def _view(self, name):
        if not isinstance(name, str):
            raise TypeError("a view's name must be a str, got %s"
                            % type(name).__name__)
        try:
            dt, shape = self._declared[name]
        except KeyError:
            raise InvalidArgumentError(
                "%s (model %s) declares no view %r; its views: %s"
                % (self.id, self.model, name,
                   ", ".join(self._declared))) from None
        return np.dtype(dt), tuple(shape)

    def read(self, name):
        """A numpy copy of the declared view `name` (its dtype and
        shape), after everything issued: one blocking read."""
        if self.closed:
            raise InvalidArgumentError("read(): the environments are closed")
        dt, shape = self._view(name)
        out = np.empty(shape, dtype=dt)
        self._c.read(name, out)
        return out

    def write(self, name, array):
        """Write array (converted to the view's dtype; of its shape) into
        the declared view `name`, in order after everything issued: one
        blocking write."""
        if self.closed:
            raise InvalidArgumentError(
                "write(): the environments are closed")
        dt, shape = self._view(name)
        a = np.asarray(array)
        if a.shape != shape:
            raise InvalidArgumentError(
                "write(%r): an array of shape %s; the view has shape %s"
                % (name, a.shape, shape))
        self._c.write(name, np.ascontiguousarray(a, dtype=dt))

    def launch(self, name, n=1):
        """n repetitions of the model's launch list `name` (e.g.
        CartPole's "policy": steps with its on-device policy), then the
        results brought back as after a step (the arrays step() returned
        show what the list wrote there)."""
        if self.closed:
            raise InvalidArgumentError(
                "launch(): the environments are closed")
        if not isinstance(name, str):
            raise TypeError("a launch list's name must be a str, got %s"
                            % type(name).__name__)
        if not _is_int(n) or n < 0:
            raise InvalidArgumentError(
                "launch(%r, n): n must be an int >= 0, got %r" % (name, n))
        self._c.launch(name, int(n))

    def episode_statistics(self):
        """Episodes ended and their mean return, from the protocol's
        bookkeeping view "env_book" (each environment's episodes ended
        and their returns summed, kept on the device by weft_env_record):
        since the environments were made, and since the last call
        ("recent_"); env_steps counts the steps of step() and
        step_device() times num_envs."""
        book = self.read("env_book")
        episodes = int(book[_ENV_ENDED].sum(dtype=np.uint64))
        total = float(book[_ENV_SUM].view(np.float32).sum(dtype=np.float64))
        seen_ep, seen_total = self._stats_seen
        self._stats_seen = (episodes, total)
        recent = episodes - seen_ep
        return {"env_steps": self._env_steps, "episodes": episodes,
                "mean_return": total / episodes if episodes else 0.0,
                "recent_episodes": recent,
                "recent_mean_return": (total - seen_total) / recent
                if recent else 0.0}

    def counters(self):
        """The backend's counters (transfers, launches, syncs, ...)."""
        return self._c.counters()

    def __repr__(self):
        return "WeftVectorEnv(%r, num_envs=%d, backend=%r, autoreset=%r)" % (
            self.id, self.num_envs, self.backend, self.autoreset)


# Words of the bookkeeping view env_book (weft/env.wk): episodes ended and
# their returns summed (f32 bits).
_ENV_ENDED, _ENV_SUM = 8, 9

# Word of CartPole's "control" view (CP_CTL_MAX of cartpole_shared.h): the
# longest episode among those its "stats" list last reduced.
_CTL_MAX = 12

# CartPole-v1's termination (Gymnasium's x_threshold and
# theta_threshold_radians): a state set must be within them.
_X_MAX, _THETA_MAX = 2.4, 12 * 2 * np.pi / 360


class CartPoleVectorEnv(WeftVectorEnv):
    """num_envs CartPole-v1 environments stepped together by weft: a
    WeftVectorEnv of "CartPole-v1" whose autoreset is SAME_STEP (an ended
    episode is reset in the same step; info["final_obs"] holds its last
    observation), with CartPole's states and final returns.

    backend: "auto", "openmp", "opencl", "cuda" (a name, as [backend]
    name); precision: "f32" (fast, within 2e-6 of Gymnasium per step) or
    "f64" (Gymnasium's float64 physics bit for bit); max_episode_steps:
    truncation (500, as CartPole-v1); threads: OpenMP threads (None: the
    backend's default); copy: return fresh arrays instead of views;
    overrides: more "section.key=value" settings (e.g. "backend.device=1");
    render_mode: None or "rgb_array".

    Everything here is the generic path: the model's views ("state",
    "reset_mask", "final_return", "control") and launch lists ("state",
    "set_state", "policy", "stats") through read(), write() and launch().
    """

    def __init__(self, num_envs=8, *, backend="auto", precision="f32",
                 max_episode_steps=500, threads=None, copy=False,
                 overrides=(), render_mode=None):
        super().__init__("CartPole-v1", num_envs, backend=backend,
                         autoreset_mode="same_step", precision=precision,
                         max_episode_steps=max_episode_steps,
                         threads=threads, copy=copy, overrides=overrides,
                         render_mode=render_mode,
                         _results=("final_return",))
        self.final_obs = self._final
        self.final_return = self._more["final_return"]
        self._state_dtype = np.dtype(self._declared["state"][0])
        self._max_return = 0

    def close(self, **kwargs):
        super().close(**kwargs)  # (refused while another thread steps)
        self.final_obs = self.final_return = None

    def get_state(self):
        """Every environment's state, (n, 4): x, x_dot, theta, theta_dot,
        float64 with precision f64 (the state the next step starts from),
        float32 with f32 (the model's "state" list packs it into the
        "state" view, which is read)."""
        return self.read_state()

    def set_state(self, state, env_ids=None):
        """Set the state of every environment (state of shape (n, 4)), or
        of env_ids (state of shape (len(env_ids), 4)); like assigning
        Gymnasium's env.unwrapped.state. States must be finite and not
        terminated (|x| <= 2.4, |theta| <= 12 degrees), or nothing is
        set. Returns the observations."""
        n = self.num_envs
        state = np.asarray(state, dtype=np.float64)
        mask = np.ones(n, dtype=np.uint8)
        full = np.zeros((n, 4), dtype=np.float64)
        if env_ids is None:
            if state.shape != (n, 4):
                raise InvalidArgumentError(
                    "state must have shape (%d, 4), got %s"
                    % (n, state.shape))
            full[:] = state
            ids = np.arange(n)
        else:
            ids = np.asarray(env_ids).reshape(-1)
            if ids.size and ids.dtype.kind not in "iu":
                raise TypeError("env_ids must be integers (environment "
                                "indices), got dtype %s" % ids.dtype)
            ids = ids.astype(np.int64)
            if state.shape != (len(ids), 4):
                raise InvalidArgumentError(
                    "state must have shape (%d, 4) for %d env_ids, got %s"
                    % (len(ids), len(ids), state.shape))
            if len(ids) and (ids.min() < 0 or ids.max() >= n):
                raise InvalidArgumentError(
                    "env_ids must be within 0..%d" % (n - 1))
            twice = np.flatnonzero(np.bincount(ids, minlength=n) > 1)
            if len(twice):
                raise InvalidArgumentError(
                    "env_ids: environment %d is given more than once (one "
                    "state each)" % twice[0])
            mask[:] = 0
            mask[ids] = 1
            full[ids] = state
        sub = full[ids]
        finite = np.isfinite(sub).all(axis=1)
        with np.errstate(invalid="ignore"):
            ok = finite & (np.abs(sub[:, 0]) <= _X_MAX) & \
                (np.abs(sub[:, 2]) <= _THETA_MAX)
        if not ok.all():
            j = int(np.flatnonzero(~ok)[0])
            s = sub[j]
            why = "not finite" if not finite[j] else (
                "terminated (|x| > 2.4 or |theta| > 12 degrees): it cannot "
                "be stepped")
            raise InvalidArgumentError(
                "set_state: environment %d: state (%g, %g, %g, %g) is %s; "
                "nothing was sent" % (ids[j], s[0], s[1], s[2], s[3], why))
        self.write("state", full.astype(self._state_dtype))
        self.write("reset_mask", mask)
        self.launch("set_state")
        if env_ids is None:  # every environment has a state to step
            self._begun(None)
        elif self._started:
            self._begun(mask.astype(np.bool_))
        return self._out(self._obs)

    def policy_steps(self, n=1):
        """n steps of every environment with the model's own on-device
        policy ([cartpole] policy: linear or random; ended episodes reset
        at once), launched as one list of n repetitions with nothing sent
        or read between; then the observations packed (the "pack" list).
        The episodes it ends count in episode_statistics(); reward,
        terminated and truncated are not updated."""
        self.launch("policy", n)
        self.launch("pack")
        self._env_steps += n * self.num_envs
        return self._out(self._obs)

    def episode_statistics(self):
        """WeftVectorEnv.episode_statistics() and the longest return:
        max_return (since the environments were made) and
        recent_max_return (since the last call), as weft_cartpole_stats
        gives them, of every episode ended, policy_steps() included. The
        model's "stats" list reduces each environment's longest episode
        (and clears it) into its "control" view, which is read."""
        out = super().episode_statistics()
        if "control" in self._declared:  # (a model built before it: none)
            self.launch("stats")
            recent = int(self.read("control")[_CTL_MAX])
            self._max_return = max(self._max_return, recent)
            out["max_return"] = float(self._max_return)
            out["recent_max_return"] = float(recent)
        return out

    def __repr__(self):
        return "CartPoleVectorEnv(num_envs=%d, backend=%r, precision=%r)" % (
            self.num_envs, self.backend, self.precision)


def make(id, num_envs=1, *, backend="auto", autoreset_mode=None,
         precision=None, max_episode_steps=None, threads=None, copy=False,
         overrides=(), render_mode=None, model_path=None, **model_keys):
    """num_envs environments of `id` ("Acrobot-v1", "weft/Acrobot-v1"; see
    ids()) as a WeftVectorEnv. backend: "auto" or a backend's name;
    autoreset_mode: a gymnasium AutoresetMode or "next_step" (the
    default, as Gymnasium 1.x), "same_step", "disabled"; precision: "f32"
    or "f64" for models that have both (None: the model's default);
    max_episode_steps: truncation (None, or the id's own: the model's,
    which an override of its key changes); threads: OpenMP
    threads; copy: fresh arrays instead of views; overrides: more
    "section.key=value" settings (or a dict); render_mode: None or
    "rgb_array" (render() then gives num_envs frames); model_path:
    directories searched for the model first (a str of ":"-separated
    directories, a path, or a list of them; then $WEFT_MODEL_PATH and
    the installed plugin directory, as ids(model_path)); model_keys: keys
    of the model's own section (make("MountainCar-v0", 8,
    policy="random"))."""
    if autoreset_mode is None:
        autoreset_mode = "next_step"
    return WeftVectorEnv(id, num_envs, backend=backend,
                         autoreset_mode=autoreset_mode, precision=precision,
                         max_episode_steps=max_episode_steps,
                         threads=threads, copy=copy, overrides=overrides,
                         render_mode=render_mode, model_path=model_path,
                         **model_keys)


def _creator(num_envs=1, *, _id, **kw):
    """Gymnasium's vector entry point of weft's ids: make(_id, num_envs,
    **kw), kw make()'s keywords (model_path among them)."""
    return make(_id, num_envs, **kw)


def register(model_path: PathList | None = None) -> list[str]:
    """Register with Gymnasium every id of the models that ids(model_path)
    lists, under gym_id(ID) with a vector entry point, and return the
    names registered now. With a model_path, each id so registered is
    made with that model_path unless make_vec is given another:
    weft.envs.register("path/to/models") then
    gymnasium.make_vec("weft/MyEnv-v0", 8). A name Gymnasium already
    knows keeps its registration (pass model_path= to make_vec to search
    other directories), and an id Gymnasium does not accept is left out.
    Importing weft.envs calls register(): the ids of $WEFT_MODEL_PATH and
    the installed models."""
    if _gym is None:
        raise ImportError("weft.envs.register needs gymnasium, which is "
                          "not installed")
    path = _model_path(model_path)
    if path is not None:
        for why in _failed_models(path):
            warnings.warn("weft.envs.register: a model plugin did not load, "
                          "its ids are not registered: %s" % why,
                          RuntimeWarning, stacklevel=2)
    done = []
    for e in _weft.envs(path):
        name = gym_id(e["id"])
        if name in _gym.registry:
            continue
        try:
            _gym.register(name, vector_entry_point=partial(_creator,
                                                           _id=e["id"]),
                          max_episode_steps=e.get("max_episode_steps")
                          or None,
                          reward_threshold=e.get("reward_threshold"),
                          kwargs={"model_path": path} if path else {})
        except Exception:  # an id Gymnasium does not accept
            continue
        done.append(name)
    return done


def _register():
    """register() at import, quietly: no gymnasium or no models found,
    nothing registered."""
    if _gym is None:
        return
    try:
        register()
    except Exception:  # no models found: nothing to register
        return


_register()
