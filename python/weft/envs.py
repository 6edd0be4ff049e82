"""weft.envs - CartPole-v1 for batched reinforcement learning, as a
Gymnasium vector environment.

CartPoleVectorEnv steps N CartPole-v1 environments on a weft backend
(models/cartpole/cartpole.md). With gymnasium installed it is a
gymnasium.vector.VectorEnv (spaces, metadata["autoreset_mode"] =
AutoresetMode.SAME_STEP, info["final_obs"] and info["final_info"] as
SyncVectorEnv gives them); without it, a plain class with the same
methods.

Zero copy: the arrays step() and reset() return are numpy views of the
packed result buffer, made once. On a host backend (OpenMP) that buffer
is the device's own memory, so nothing is copied; on OpenCL or CUDA one
read per step brings it to a host buffer. Either way the next step
overwrites them: pass copy=True, or copy what you keep.

Device arrays: device_array(name) hands an array (or the action buffer)
where it lies, for torch.from_dlpack (CPU and CUDA, zero copy);
step_device() steps with the actions written into the action buffer in
place.
"""
import sys

import numpy as np

from . import _weft
from .errors import InvalidArgumentError

try:
    import gymnasium as _gym
    from gymnasium.vector import VectorEnv as _Base
    from gymnasium.vector.vector_env import AutoresetMode as _Mode
except ImportError:  # gymnasium is optional
    _gym = None
    _Base = object
    _Mode = None

__all__ = ["CartPoleVectorEnv"]


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

_THETA = 12 * 2 * np.pi / 360  # Gymnasium's theta_threshold_radians


def _observation_space(n):
    high = np.array([2.4 * 2, np.inf, _THETA * 2, np.inf], dtype=np.float32)
    single = _gym.spaces.Box(-high, high, dtype=np.float32)
    batch = _gym.spaces.Box(np.tile(-high, (n, 1)), np.tile(high, (n, 1)),
                            dtype=np.float32)
    return single, batch


class CartPoleVectorEnv(_Base):
    """num_envs CartPole-v1 environments stepped together by weft.

    backend: "auto", "openmp", "opencl", "cuda" (a name, as [backend]
    name); precision: "f32" (fast, within 1 ulp of Gymnasium per step) or
    "f64" (Gymnasium's float64 physics bit for bit); max_episode_steps:
    truncation (500, as CartPole-v1); threads: OpenMP threads (None: the
    backend's default); copy: return fresh arrays instead of views;
    overrides: more "section.key=value" settings (e.g. "backend.device=1").
    """

    metadata = {"autoreset_mode": _Mode.SAME_STEP if _Mode else "SameStep",
                "render_modes": []}
    render_mode = None

    def __init__(self, num_envs=8, *, backend="auto", precision="f32",
                 max_episode_steps=500, threads=None, copy=False,
                 overrides=()):
        import tempfile

        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InvalidArgumentError(
                "num_envs must be a positive integer, got %r" % (num_envs,))
        sets = ["simulation.model=cartpole", "cartpole.envs=%d" % num_envs,
                "backend.name=%s" % backend,
                "cartpole.precision=%s" % precision,
                "cartpole.max_episode_steps=%s" % max_episode_steps,
                "output.csv=false", "output.summary=false",
                "output.plot=none",
                "output.directory=%s" % tempfile.gettempdir()]
        if threads is not None:
            sets.append("backend.threads=%s" % threads)
        sets.extend(overrides)
        self._c = _weft.CartPole(sets)
        info = self._c.info()
        self.num_envs = int(num_envs)
        self.backend = info["backend"]
        self.precision = "f64" if info["precision"] == 64 else "f32"
        self.zero_copy = info["zero_copy"]
        self._copy = copy
        self._views(info)
        self._dtype_state = np.float64 if info["precision"] == 64 \
            else np.float32
        if _gym is not None:
            self.single_action_space = _gym.spaces.Discrete(2)
            self.action_space = _gym.spaces.MultiDiscrete(
                np.full(self.num_envs, 2))
            self.single_observation_space, self.observation_space = \
                _observation_space(self.num_envs)
        self._cuda_device = None  # _on_cuda(): -1, or the CUDA device
        self.closed = False

    def _views(self, lay):
        n = self.num_envs
        buf = np.frombuffer(self._c, dtype=np.uint8)

        def view(off, dtype, count, shape):
            return np.frombuffer(buf, dtype=dtype, count=count,
                                 offset=off).reshape(shape)

        self._obs = view(lay["obs"], np.float32, 4 * n, (n, 4))
        self._rew = view(lay["reward"], np.float32, n, (n,))
        self._term = view(lay["terminated"], np.bool_, n, (n,))
        self._trunc = view(lay["truncated"], np.bool_, n, (n,))
        self.final_obs = view(lay["final_obs"], np.float32, 4 * n, (n, 4))
        self.final_return = view(lay["final_return"], np.float32, n, (n,))
        self._final_rows = list(self.final_obs)

    # ---- Gymnasium's API -------------------------------------------------

    def reset(self, *, seed=None, options=None):
        """Begin new episodes, as VectorEnv.reset: seed None (each
        environment's next episode), an int s (environment i seeded with
        s + i, as SyncVectorEnv does) or a sequence of ints and None (one
        per environment); options={"reset_mask": bool array} resets only
        those (the others keep their episode). Returns (obs, {})."""
        n = self.num_envs
        which = np.ones(n, dtype=np.uint8)
        seeds = None
        mask = (options or {}).get("reset_mask")
        if mask is not None:
            mask = np.asarray(mask)
            if mask.shape != (n,) or mask.dtype != np.bool_:
                raise InvalidArgumentError(
                    "options['reset_mask'] must be a bool array of shape "
                    "(%d,), got %s %s" % (n, mask.dtype, mask.shape))
        if seed is not None:
            seeds, given = self._seeds(seed)
            which[given] = 2
        if mask is not None:
            which[~mask] = 0
        self._c.reset(which, seeds)
        return self._out(self._obs), {}

    def _seeds(self, seed):
        n = self.num_envs
        if isinstance(seed, (int, np.integer)):
            base = int(seed)
            if base < 0:
                raise InvalidArgumentError("seed must be >= 0, got %d" % base)
            return ((np.arange(n, dtype=np.uint64) + np.uint64(base)),
                    np.ones(n, dtype=bool))
        seed = list(seed)
        if len(seed) != n:
            raise InvalidArgumentError(
                "seed: %d seeds for %d environments" % (len(seed), n))
        seeds = np.zeros(n, dtype=np.uint64)
        given = np.zeros(n, dtype=bool)
        for i, s in enumerate(seed):
            if s is None:
                continue
            if not isinstance(s, (int, np.integer)) or s < 0:
                raise InvalidArgumentError(
                    "seed[%d] must be a non-negative int or None, got %r"
                    % (i, s))
            seeds[i], given[i] = s, True
        return seeds, given

    def step(self, actions):
        """One step of every environment; actions: n integers 0 or 1 (a
        numpy array of any integer dtype, a list, or any DLPack producer
        on the CPU, e.g. a torch tensor). Returns (obs, reward,
        terminated, truncated, info) as Gymnasium's SAME_STEP autoreset:
        where an episode ended, obs is the next episode's first and
        info["final_obs"] holds the last."""
        if isinstance(actions, (list, tuple)):
            actions = np.asarray(actions)
        ended = self._c.step(actions)
        if ended or self._copy:
            return self._result(ended)
        return self._obs, self._rew, self._term, self._trunc, {}

    def step_device(self, stream=None):
        """One step with the actions already in device_array("actions")
        (written there in place, e.g. by a torch policy); values other
        than 0 push right. Returns what step() returns.

        Work queued on another stream must be complete before the step
        reads the actions and overwrites the arrays: on the CUDA
        backend, weft's stream does not wait for PyTorch's or CuPy's
        (nor they for it). So the step first waits for `stream` (an
        object with synchronize(): torch.cuda.Stream, cupy.cuda.Stream)
        when one is given, on any backend; with None, on CUDA, for the
        current stream of PyTorch and of CuPy, where either has been
        imported and has started CUDA."""
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
        return self._result(self._c.step_device())

    def _on_cuda(self):
        """Whether the action buffer is CUDA memory (asked once)."""
        if self._cuda_device is None:
            try:
                nat = self._c.device_array("actions").native
            except Exception:  # no native buffers: nothing to wait for
                nat = {"kind": "?", "device": -1}
            self._cuda_device = nat["device"] if nat["kind"] == "cuda" \
                else -1
        return self._cuda_device >= 0

    def _out(self, a):
        return a.copy() if self._copy else a

    def _result(self, ended):
        """The step's arrays, and, where episodes ended, info as
        SyncVectorEnv builds it with SAME_STEP: final_obs an object array
        (None where no episode ended; each entry a row of final_obs, a
        view unless copy=True), final_info {} (a CartPole step has no
        info), each with its mask."""
        info = {}
        if ended:
            final = np.empty(self.num_envs, dtype=object)
            rows = self._final_rows
            for i in ended:
                final[i] = rows[i].copy() if self._copy else rows[i]
            done = self._term | self._trunc
            info = {"final_obs": final, "_final_obs": done,
                    "final_info": {}, "_final_info": done.copy()}
        return (self._out(self._obs), self._out(self._rew),
                self._out(self._term), self._out(self._trunc), info)

    def close(self, **kwargs):
        if not self.closed:
            self._c.close()
            self.closed = True

    def close_extras(self, **kwargs):
        self.close()

    # ---- beyond Gymnasium ------------------------------------------------

    def get_state(self):
        """Every environment's state, (n, 4): x, x_dot, theta, theta_dot,
        float64 with precision f64 (the state the next step starts from),
        float32 with f32."""
        out = np.empty((self.num_envs, 4), dtype=np.float64)
        self._c.get_state(out)
        return out.astype(self._dtype_state, copy=False)

    def set_state(self, state, env_ids=None):
        """Set the state of every environment (state of shape (n, 4)), or
        of env_ids (state of shape (len(env_ids), 4)); like assigning
        Gymnasium's env.unwrapped.state. States must be finite and not
        terminated (|x| <= 2.4, |theta| <= 12 degrees). Returns the
        observations."""
        n = self.num_envs
        state = np.asarray(state, dtype=np.float64)
        which = None
        full = np.zeros((n, 4), dtype=np.float64)
        if env_ids is None:
            if state.shape != (n, 4):
                raise InvalidArgumentError(
                    "state must have shape (%d, 4), got %s" % (n,
                                                               state.shape))
            full[:] = state
        else:
            ids = np.asarray(env_ids, dtype=np.int64).reshape(-1)
            if state.shape != (len(ids), 4):
                raise InvalidArgumentError(
                    "state must have shape (%d, 4) for %d env_ids, got %s"
                    % (len(ids), len(ids), state.shape))
            if len(ids) and (ids.min() < 0 or ids.max() >= n):
                raise InvalidArgumentError(
                    "env_ids must be within 0..%d" % (n - 1))
            which = np.zeros(n, dtype=np.uint8)
            which[ids] = 1
            full[ids] = state
        self._c.set_state(which, full)
        return self._out(self._obs)

    def device_array(self, name):
        """"obs", "reward", "terminated", "truncated", "final_obs",
        "final_return" or "actions" where it lies on the device, as an
        object with __dlpack__ and __dlpack_device__ (torch.from_dlpack
        makes a tensor of it without a copy, on the CPU or the GPU). On
        OpenCL it raises BufferError: a cl_mem cannot be a DLPack tensor
        (.native gives the handle)."""
        return self._c.device_array(name)

    def episode_statistics(self):
        """Episodes finished, mean and max return, reduced on the
        device: since the environments were made and since the last
        call."""
        return self._c.episode_stats()

    def counters(self):
        """The backend's counters (transfers, launches, syncs, ...)."""
        return self._c.counters()

    def __repr__(self):
        return "CartPoleVectorEnv(num_envs=%d, backend=%r, precision=%r)" % (
            self.num_envs, self.backend, self.precision)
