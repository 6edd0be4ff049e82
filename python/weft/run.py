"""weft.run - runs of any model, configuration checks and listings.

A run is what `weft run` does: open (backend, device, the model's setup),
step every [simulation] steps, finish (final outputs, summary, plot) and
commit the outputs. Steps run in chunks with the GIL released; Ctrl-C
raises KeyboardInterrupt between chunks and, since outputs are committed
only by the finish, leaves every earlier output as it was.
"""
import os
from typing import NamedTuple

import numpy as np

from . import _weft

__all__ = ["run", "run_ensemble", "check", "backends", "models",
           "RunResult", "EnsembleResult", "FailedRun", "Table",
           "BackendInfo", "ModelInfo"]


def _sets(overrides=None, **named):
    """["section.key=value", ...] from a mapping, a sequence of such
    strings, and the named shortcuts (None: left alone)."""
    out = []
    if isinstance(overrides, dict):
        for k, v in overrides.items():
            if not isinstance(k, str) or "." not in k:
                raise TypeError("override keys are 'section.key' strings, "
                                "got %r" % (k,))
            out.append("%s=%s" % (k, _text(v)))
    elif overrides is not None:
        if isinstance(overrides, str):
            raise TypeError("overrides: a dict or a list of "
                            "'section.key=value' strings, not one string")
        for a in overrides:
            if not isinstance(a, str):
                raise TypeError("overrides: 'section.key=value' strings, "
                                "got %r" % (a,))
            out.append(a)
    for k, v in named.items():
        if v is not None:
            out.append("%s=%s" % (k, _text(v)))
    return out


def _text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class Table(np.ndarray):
    """A CSV output as a numpy structured array (one field per column,
    integers where every value is one); .to_pandas() gives a DataFrame
    when pandas is installed."""

    def to_pandas(self):
        try:
            import pandas
        except ImportError as e:
            raise ImportError("to_pandas() needs pandas: pip install "
                              "pandas (or weft[pandas])") from e
        return pandas.DataFrame.from_records(np.asarray(self))

    @classmethod
    def read_csv(cls, path):
        """A weft CSV (a header line, then numbers) as a Table. An empty
        field (CartPole's mean return before any episode ended) is NaN,
        its column float."""
        arr = np.atleast_1d(np.genfromtxt(path, delimiter=",", names=True,
                                          dtype=None, encoding="utf-8",
                                          usemask=True))
        missing = {n for n in arr.dtype.names
                   if np.ma.getmaskarray(arr[n]).any()}
        if missing:
            dtype = [(n, np.float64 if n in missing else arr.dtype[n])
                     for n in arr.dtype.names]
            out = np.empty(len(arr), dtype=dtype)
            for n in arr.dtype.names:
                out[n] = (arr[n].astype(np.float64).filled(np.nan)
                          if n in missing else arr[n].data)
            arr = out
        return np.asarray(arr).view(cls)


class RunResult:
    """What a run left: summary (key -> text, as `weft run` prints it),
    counters (the backend's: transfers, launches, syncs, ...; and
    counters["kernels"], per kernel: {"launches", "seconds", "timed"},
    timed with profile=True; None when the backend keeps no per-kernel
    counters), step_seconds (the steps' time, from the first step's
    enqueue to the completion of their work, as `weft run` reports it),
    outputs (file name -> path of every committed file) and tables (CSV
    stem -> Table, e.g. tables["daily"])."""

    def __init__(self, info, summary, counters, outputs, kernels=None,
                 times=None):
        self.backend = info["backend"]
        self.model = info["model"]
        self.steps = info["steps_done"]
        self.summary = dict(summary)
        self.counters = dict(counters, kernels=kernels)
        self.step_seconds = times["seconds"] if times else None
        self.outputs = {os.path.basename(p): p for p in outputs}
        self.tables = {os.path.splitext(n)[0]: Table.read_csv(p)
                       for n, p in self.outputs.items()
                       if n.endswith(".csv")}

    def __repr__(self):
        return "RunResult(model=%r, backend=%r, steps=%d, outputs=%r)" % (
            self.model, self.backend, self.steps, sorted(self.outputs))


def run(config=None, *, overrides=None, model=None, backend=None,
        steps=None, seed=None, output=None, profile=None):
    """Run a simulation as `weft run CONFIG --set ...` does and return a
    RunResult.

    config: an INI file (None: every default; then model= is needed);
    overrides: {"section.key": value} or ["section.key=value", ...],
    text only (a NUL byte or another control character in a key or value
    raises ConfigError naming the key);
    model, backend, steps, seed, output, profile: shortcuts for
    [simulation] model, [backend] name, [simulation] steps, [simulation]
    seed, [output] directory and [backend] profile (True: time every
    kernel, for counters["kernels"], as `weft run --stats` does). Raises a weft.WeftError subclass with weft's message (a
    ConfigError names the file, line and key); KeyboardInterrupt on
    Ctrl-C, replacing no output.
    """
    sets = _sets(overrides, **{"simulation.model": model,
                               "backend.name": backend,
                               "simulation.steps": steps,
                               "simulation.seed": seed,
                               "output.directory": output,
                               "backend.profile": profile})
    sim = _weft.Sim(config, sets)
    try:
        info = sim.info()
        sim.step(info["steps_total"] - info["steps_done"])
        sim.finish()
        return RunResult(sim.info(), sim.summary(), sim.stats(),
                         sim.outputs(), sim.kernel_stats(), sim.times())
    finally:
        sim.close()


class FailedRun(NamedTuple):
    """A run of an ensemble that failed: its index, scenario, seed and
    weft's message."""
    index: int
    scenario: str
    seed: int
    message: str


class EnsembleResult:
    """What an ensemble left (`weft run` on an ensemble file; Covasim's
    MultiSim): scenarios (names, in order), runs (how many), summary
    (key -> text, as summary.txt), failed (FailedRun of each run that
    failed; its scenario's aggregates are then not written), outputs
    (file name -> path of every committed file) and tables (CSV stem ->
    Table): tables[SCENARIO] holds, per step, each aggregated column's
    mean, std and quantiles (S_mean, S_std, S_q05 ... S_q95), and
    tables["summary"] the final outcomes per scenario, and, with two
    scenarios or more, tables["differences"] each later scenario's
    outcomes minus the first's, paired seed by seed (mean, std, 95 %
    interval of the mean, q05, q95)."""

    def __init__(self, d):
        self.scenarios = list(d["scenarios"])
        self.runs = d["runs"]
        self.summary = dict(d["summary"])
        self.failed = [FailedRun(*f) for f in d["failed"]]
        self.outputs = {os.path.basename(p): p for p in d["outputs"]}
        self.tables = {os.path.splitext(n)[0]: Table.read_csv(p)
                       for n, p in self.outputs.items()
                       if n.endswith(".csv")}

    def __repr__(self):
        return "EnsembleResult(runs=%d, scenarios=%r, failed=%d)" % (
            self.runs, self.scenarios, len(self.failed))


def run_ensemble(config=None, *, overrides=None, model=None, backend=None,
                 steps=None, seed=None, runs=None, batch=None,
                 output=None):
    """Run an ensemble as `weft run ENSEMBLE.ini` does ([ensemble] runs,
    [sweep], [scenario NAME]; docs/config.md) and return an
    EnsembleResult.

    runs: [ensemble] runs, seeds seed, seed + 1, ... of each scenario;
    batch: [ensemble] batch, that many runs of a scenario stepped
    together as one batch of replicas on one device (same results);
    the other arguments as for run(). A run that fails does not raise:
    it is in .failed, and the others' results are written. Raises
    ConfigError (naming file and line) for a bad configuration, one
    that is not an ensemble included; KeyboardInterrupt on Ctrl-C,
    replacing no output."""
    sets = _sets(overrides, **{"simulation.model": model,
                               "backend.name": backend,
                               "simulation.steps": steps,
                               "simulation.seed": seed,
                               "ensemble.runs": runs,
                               "ensemble.batch": batch,
                               "output.directory": output})
    return EnsembleResult(_weft.ensemble(config, sets))


def check(config=None, *, overrides=None):
    """Read and validate a configuration as `weft check` does; raise
    ConfigError (or PluginError for a model plugin that cannot load)."""
    _weft.check(config, _sets(overrides))


class BackendInfo(NamedTuple):
    """A backend plugin as `weft backends` lists it."""
    name: str
    path: str
    state: str  # available, unavailable, failed, missing
    stage: str
    reason: str
    devices: str
    score: int
    shadowed: bool


class ModelInfo(NamedTuple):
    """A model plugin as `weft models` lists it."""
    name: str
    path: str
    state: str  # available, failed, shadowed
    stage: str
    reason: str
    summary: str
    version: str


def backends(plugin_path=None):
    """Every backend plugin found (plugin_path, $WEFT_PLUGIN_PATH, the
    installed plugin directory), probed."""
    return [BackendInfo(**d) for d in _weft.backends(plugin_path)]


def models(model_path=None):
    """Every model plugin found (model_path, $WEFT_MODEL_PATH, the
    installed plugin directory), its table checked."""
    return [ModelInfo(**d) for d in _weft.models(model_path)]
