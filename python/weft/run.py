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

__all__ = ["run", "check", "backends", "models", "RunResult", "Table",
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
    counters (the backend's: transfers, launches, syncs, ...), outputs
    (file name -> path of every committed file) and tables (CSV stem ->
    Table, e.g. tables["daily"])."""

    def __init__(self, info, summary, counters, outputs):
        self.backend = info["backend"]
        self.model = info["model"]
        self.steps = info["steps_done"]
        self.summary = dict(summary)
        self.counters = counters
        self.outputs = {os.path.basename(p): p for p in outputs}
        self.tables = {os.path.splitext(n)[0]: Table.read_csv(p)
                       for n, p in self.outputs.items()
                       if n.endswith(".csv")}

    def __repr__(self):
        return "RunResult(model=%r, backend=%r, steps=%d, outputs=%r)" % (
            self.model, self.backend, self.steps, sorted(self.outputs))


def run(config=None, *, overrides=None, model=None, backend=None,
        steps=None, seed=None, output=None):
    """Run a simulation as `weft run CONFIG --set ...` does and return a
    RunResult.

    config: an INI file (None: every default; then model= is needed);
    overrides: {"section.key": value} or ["section.key=value", ...];
    model, backend, steps, seed, output: shortcuts for [simulation] model,
    [backend] name, [simulation] steps, [simulation] seed and [output]
    directory. Raises a weft.WeftError subclass with weft's message (a
    ConfigError names the file, line and key); KeyboardInterrupt on
    Ctrl-C, replacing no output.
    """
    sets = _sets(overrides, **{"simulation.model": model,
                               "backend.name": backend,
                               "simulation.steps": steps,
                               "simulation.seed": seed,
                               "output.directory": output})
    sim = _weft.Sim(config, sets)
    try:
        info = sim.info()
        sim.step(info["steps_total"] - info["steps_done"])
        sim.finish()
        return RunResult(sim.info(), sim.summary(), sim.stats(),
                         sim.outputs())
    finally:
        sim.close()


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
