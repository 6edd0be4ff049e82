"""weft.calibrate - fit a model's parameters to data, for any model.

    import weft
    from weft.calib_components import Normal
    res = weft.calibrate("examples/covasim-random.ini", data="cases.csv",
                         parameters={"seir.beta": (0.005, 0.03)},
                         components=[Normal("cases", "new_infections")],
                         trials=40, replicas=4, seed=1)
    res.best_params, res.best_value; res.plot_fit("fit.png")

Each trial runs the configuration with the sampled values as one batched
ensemble (weft.run_ensemble with runs = batch = replicas, seeds seed ...
seed + replicas - 1, the same seeds in every trial) and scores it with
the likelihood components (weft.calib_components): the sum over the
components of weight x mean NLL over the data's rows and the replicas,
Starsim's ss.Calibration objective; Optuna minimises it. Optuna is an
optional dependency (pip install optuna, or weft[calibration]); `import
weft` does not need it. docs/calibration.md is the guide.
"""
import math
import numbers
import os
import shutil
import tempfile
import time as _time
import warnings

import numpy as np

from . import calib_components as cc
from .errors import WeftError
from .run import Table, check, run_ensemble

__all__ = ["calibrate", "CalibrationResult", "mpi_ranks"]

_SAMPLERS = ("tpe", "cmaes", "random")
_COMBINE = ("replicas", "mean")
_TIME_COLUMNS = ("day", "step", "t")


def _need_optuna():
    try:
        import optuna
    except ImportError as e:
        raise ImportError("weft.calibrate needs optuna: pip install optuna "
                          "(or pip install 'weft[calibration]')") from e
    return optuna


# ---- arguments -------------------------------------------------------------

class _Param:
    """A parameter to calibrate: key "section.key", low, high, int or
    float, log scale, step."""

    def __init__(self, key, spec):
        where = "parameters[%r]" % (key,)
        if not isinstance(key, str) or key.count(".") != 1 or \
                not all(key.split(".")):
            raise TypeError("parameters: keys are 'section.key' strings "
                            "(e.g. 'seir.beta'), got %r" % (key,))
        self.key = key
        log, step, kind = False, None, None
        if isinstance(spec, dict):
            unknown = set(spec) - {"low", "high", "log", "step", "type"}
            if unknown:
                raise ValueError("%s: unknown entries %s (expected low, "
                                 "high, log, step, type)"
                                 % (where, sorted(unknown)))
            if "low" not in spec or "high" not in spec:
                raise ValueError("%s: a dict needs 'low' and 'high'" % where)
            low, high = spec["low"], spec["high"]
            log = spec.get("log", False)
            step = spec.get("step")
            kind = spec.get("type")
            if kind not in (None, "int", "float", int, float):
                raise ValueError("%s: type is 'int' or 'float', got %r"
                                 % (where, kind))
            if not isinstance(log, bool):
                raise TypeError("%s: log is True or False, got %r"
                                % (where, log))
        elif isinstance(spec, (tuple, list)) and len(spec) == 2:
            low, high = spec
        else:
            raise TypeError("%s: (low, high) or {'low': ..., 'high': ..., "
                            "'log': ...}, got %r" % (where, spec))
        for name, v in (("low", low), ("high", high)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or \
                    not math.isfinite(v):
                raise TypeError("%s: %s must be a finite number, got %r"
                                % (where, name, v))
        if kind is None:
            both_int = all(isinstance(v, numbers.Integral)
                           for v in (low, high))
            kind = "int" if both_int else "float"
        kind = {int: "int", float: "float"}.get(kind, kind)
        if kind == "int" and (low != int(low) or high != int(high)):
            raise ValueError("%s: an int parameter needs whole bounds, got "
                             "(%r, %r)" % (where, low, high))
        if not low < high:
            raise ValueError("%s: low must be below high, got (%r, %r)"
                             % (where, low, high))
        if log and low <= 0:
            raise ValueError("%s: a log-scale parameter needs low > 0, got "
                             "%r" % (where, low))
        if step is not None:
            if isinstance(step, bool) or not isinstance(step, numbers.Real) \
                    or not step > 0 or log:
                raise ValueError("%s: step is a number > 0 (and not with "
                                 "log), got %r" % (where, step))
        self.kind = kind
        self.low = int(low) if kind == "int" else float(low)
        self.high = int(high) if kind == "int" else float(high)
        self.log = log
        self.step = step

    def suggest(self, trial):
        if self.kind == "int":
            return trial.suggest_int(self.key, self.low, self.high,
                                     step=int(self.step or 1), log=self.log)
        return trial.suggest_float(self.key, self.low, self.high,
                                   step=self.step, log=self.log)

    def __repr__(self):
        return "%s in [%r, %r]%s" % (self.key, self.low, self.high,
                                     " (log)" if self.log else "")


def _numeric(v):
    """v as a 1-D float array, or None when it is not numbers (a date
    column, say: kept out of the fit unless a component names it)."""
    try:
        return np.asarray(v, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return None


def _read_data(data):
    """data (a CSV path, a pandas DataFrame, a numpy structured array or a
    dict of sequences) as {column: float array, or None if not numeric}."""
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        if not os.path.isfile(path):
            raise ValueError("data: no such CSV file %r" % path)
        try:
            arr = Table.read_csv(path)
        except Exception as e:
            raise ValueError("data: cannot read %r as a CSV with a header "
                             "line: %s" % (path, e)) from e
        return {n: _numeric(arr[n]) for n in arr.dtype.names}
    if hasattr(data, "columns") and hasattr(data, "to_numpy"):  # pandas
        return {str(c): _numeric(data[c].to_numpy()) for c in data.columns}
    if isinstance(data, np.ndarray) and data.dtype.names:
        return {n: _numeric(data[n]) for n in data.dtype.names}
    if isinstance(data, dict):
        out = {str(k): _numeric(v) for k, v in data.items()}
        if len({len(v) for v in out.values() if v is not None}) > 1:
            raise ValueError("data: the columns differ in length")
        return out
    raise TypeError("data: a CSV path, a pandas DataFrame, a numpy "
                    "structured array or a dict of columns, got %s"
                    % type(data).__name__)


def _data_time(cols, time_col):
    if time_col is None:
        found = [c for c in _TIME_COLUMNS if c in cols]
        if not found:
            raise ValueError("data: no time column: expected one of %s "
                             "(or time=NAME), columns are %s"
                             % (", ".join(_TIME_COLUMNS), sorted(cols)))
        time_col = found[0]
    elif time_col not in cols:
        raise ValueError("data: no column %r (time=%r); columns are %s"
                         % (time_col, time_col, sorted(cols)))
    t = cols[time_col]
    if t is None:
        raise ValueError("data: column %r must hold whole numbers >= 0 "
                         "(the output table's %s), not text"
                         % (time_col, time_col))
    if len(t) == 0:
        raise ValueError("data: no rows")
    if not np.all(np.isfinite(t)) or np.any(t != np.round(t)) or \
            np.any(t < 0):
        raise ValueError("data: column %r must hold whole numbers >= 0 "
                         "(the output table's %s)" % (time_col, time_col))
    if len(np.unique(t)) != len(t):
        raise ValueError("data: column %r repeats a %s"
                         % (time_col, time_col))
    return time_col, t.astype(np.int64)


# ---- a trial ---------------------------------------------------------------

class _Objective:
    """Runs and scores one parameter set; picklable (a spawned worker
    process gets one)."""

    def __init__(self, config, params, data, time_col, times, components,
                 replicas, seed, overrides, backend, model, steps, combine,
                 table):
        self.config = config
        self.params = params
        self.data = data
        self.time_col = time_col
        self.times = times
        self.components = components
        self.replicas = replicas
        self.seed = seed
        self.overrides = overrides
        self.backend = backend
        self.model = model
        self.steps = steps
        self.combine = combine
        self.table = table
        self.rank = None    # under MPI ranks: this rank and the launch's
        self.launch = None  # id, set on every trial as user attributes

    def obs(self, comp):
        return tuple(self.data[c] for c in comp.data)

    def simulate(self, values):
        """Run the ensemble at values ({key: value}); return (per replica
        {column: values at the data's times}, list of failure messages)."""
        sets = dict(self.overrides)
        sets.update(values)
        sets["ensemble.keep_runs"] = "true"
        sets["output.plot"] = "none"
        out = tempfile.mkdtemp(prefix="weft-calibrate-")
        try:
            e = run_ensemble(self.config, overrides=sets,
                             backend=self.backend, model=self.model,
                             steps=self.steps, seed=self.seed,
                             runs=self.replicas, batch=self.replicas,
                             output=out)
            if len(e.scenarios) != 1:
                raise ValueError("config: calibration runs one scenario; "
                                 "this configuration has %d (%s)"
                                 % (len(e.scenarios),
                                    ", ".join(e.scenarios)))
            failed = [f.message for f in e.failed]
            if failed:
                return [], failed
            rdir = os.path.join(out, "runs", e.scenarios[0])
            seeds = sorted((s for s in os.listdir(rdir) if s.isdigit()),
                           key=int) if os.path.isdir(rdir) else []
            if len(seeds) != self.replicas:
                raise RuntimeError("weft.calibrate: expected %d runs' "
                                   "outputs in %s, found %d"
                                   % (self.replicas, rdir, len(seeds)))
            return [self._extract(os.path.join(rdir, s))
                    for s in seeds], []
        finally:
            shutil.rmtree(out, ignore_errors=True)

    def _extract(self, rundir):
        need = [self.time_col]
        for comp in self.components:
            need += [c for c in comp.columns if c not in need]
        csvs = sorted(f[:-4] for f in os.listdir(rundir)
                      if f.endswith(".csv"))
        if self.table is not None:
            if self.table not in csvs:
                raise ValueError("table=%r: the run wrote no %s.csv (its "
                                 "tables: %s)" % (self.table, self.table,
                                                  ", ".join(csvs)))
            order = [self.table]
        else:
            order = sorted(csvs, key=lambda n: (n != "daily", n))
        tabs = {}
        for name in order:
            tabs[name] = Table.read_csv(os.path.join(rundir, name + ".csv"))
            if all(c in tabs[name].dtype.names for c in need):
                return self._align(name, tabs[name], need)
        desc = "; ".join("%s.csv: %s" % (n, ", ".join(t.dtype.names))
                         for n, t in tabs.items())
        missing = [c for c in need
                   if not any(c in t.dtype.names for t in tabs.values())]
        raise ValueError("components: no output table has the columns %s "
                         "(not found: %s); the run wrote %s"
                         % (", ".join(need), ", ".join(missing) or
                            "none in one table", desc or "no CSV"))

    def _align(self, name, tab, need):
        t = np.asarray(tab[self.time_col]).astype(np.int64)
        cols = {c: np.asarray(tab[c], dtype=float) for c in need}
        rows = np.searchsorted(t, self.times)
        ok = (rows < len(t)) & (t[np.minimum(rows, len(t) - 1)] ==
                                self.times)
        if not np.all(ok):
            bad = self.times[~ok]
            raise ValueError(
                "data: %s %s not in the model's %s.csv, which has %s %s"
                " (its rows: [simulation] steps and [output] every)"
                % (self.time_col, ", ".join(str(b) for b in bad[:5]) +
                   (" ..." if len(bad) > 5 else ""), name, self.time_col,
                   _span(t)))
        out = {}
        for comp in self.components:
            for expr in comp.model:
                if expr.text not in out:
                    out[expr.text] = expr.evaluate(
                        {c: cols[c] for c in expr.columns}, len(t))[rows]
        return out

    def score(self, reps):
        """({component name: value}, total)."""
        per = {}
        for comp in self.components:
            sims = [tuple(r[e.text] for e in comp.model) for r in reps]
            per[comp.name] = comp.score(self.obs(comp), sims, self.combine)
        return per, float(sum(per.values()))

    def __call__(self, trial):
        if self.launch is not None:
            trial.set_user_attr("rank", self.rank)
            trial.set_user_attr("launch", self.launch)
        values = {p.key: p.suggest(trial) for p in self.params}
        reps, failed = self.simulate(values)
        if failed:
            trial.set_user_attr("failed", failed)
            warnings.warn("weft.calibrate: trial %d (%s): %d of %d runs "
                          "failed: %s" % (trial.number, values, len(failed),
                                          self.replicas, failed[0]))
            return math.inf
        per, total = self.score(reps)
        trial.set_user_attr("components", per)
        return total


def _span(t):
    if len(t) == 0:
        return "no rows"
    return "%d to %d" % (t[0], t[-1]) if len(t) > 1 else str(t[0])


def _make_sampler(optuna, sampler, seed):
    if isinstance(sampler, str):
        if sampler == "tpe":
            return optuna.samplers.TPESampler(seed=seed)
        if sampler == "cmaes":
            try:
                import cmaes  # noqa: F401  (optuna's CmaEsSampler needs it)
            except ImportError as e:
                raise ImportError("sampler='cmaes' needs the cmaes package: "
                                  "pip install cmaes (or pip install "
                                  "'weft[calibration]')") from e
            return optuna.samplers.CmaEsSampler(seed=seed)
        return optuna.samplers.RandomSampler(seed=seed)
    return sampler


def _worker(objective, storage, study_name, sampler, seed, trials, n_jobs):
    """A spawned process's share of the trials (processes > 1)."""
    optuna = _need_optuna()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.load_study(study_name=study_name,
                              storage=_open_storage(optuna, storage),
                              sampler=_make_sampler(optuna, sampler, seed))
    study.optimize(objective, n_trials=trials, n_jobs=n_jobs)


def _whole(name, v, low):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < low:
        raise ValueError("%s: a whole number >= %d, got %r" % (name, low, v))
    return int(v)


def calibrate(config=None, *, data, parameters, components, trials=20,
              replicas=1, sampler="tpe", storage=None, study_name=None,
              seed=None, n_jobs=1, processes=1, overrides=None,
              backend=None, model=None, steps=None, combine="replicas",
              time=None, table=None, verbose=False):
    """Fit parameters of any model to data with Optuna; returns a
    CalibrationResult.

    config: the INI file (as weft.run); overrides, backend, model, steps:
    as weft.run, applied to every trial. data: a CSV path, a pandas
    DataFrame, a numpy structured array or a dict of columns, with a time
    column (time=NAME, or the first of day, step, t), matched to the same
    column of the model's output table (table=NAME, or the first of
    daily.csv and the others, by name, holding every column used).
    parameters: {"section.key": (low, high)} (ints when both are ints)
    or {"section.key": {"low":, "high":, "log": bool, "step":, "type":
    "int"|"float"}}. components: weft.calib_components objects (Normal,
    Binomial, BetaBinomial, GammaPoisson, DirichletMultinomial).
    trials: how many trials this call runs (more are added to a stored
    study). replicas: runs per trial, one batched ensemble, seeds seed,
    seed + 1, ... (the configuration's seed when seed is None), the same
    in every trial. combine: "replicas" scores each replica and averages
    the NLLs (Starsim's default); "mean" scores the replicas' mean.
    sampler: "tpe", "cmaes", "random" (seeded with seed) or an Optuna
    sampler. storage: None (in memory) or an Optuna storage URL such as
    "sqlite:///calib.db": a study of that study_name (default
    "weft-calibration") is resumed when it exists, so a calibration can
    be stopped and continued, and several processes can share it.
    n_jobs: Optuna's threads per process; processes: worker processes
    (spawned; needs storage), trials split between them. verbose: leave
    Optuna's log at its own level (a line a trial); otherwise errors only.

    Under MPI (mpirun -n K python script.py, the script calling this on
    every rank; mpi_ranks() says how the rank and size are found) the
    ranks share the trials (trials // K each, the first trials % K ranks
    one more) on the one study in storage, which K > 1 needs; a rank's
    sampler is seeded with seed + rank; each trial gets the user
    attributes rank and launch. Rank 0 then waits for every rank's
    trials (RuntimeError when another rank fails, or gives no sign of
    life for $WEFT_CALIBRATE_WAIT seconds, 300 by default) and returns
    the whole study's result; the other ranks return at once, with their
    view of it (result.rank, result.ranks).

    Raises TypeError or ValueError for bad arguments (naming the argument
    or column), ImportError when optuna is not installed.
    """
    if not isinstance(parameters, dict) or not parameters:
        raise TypeError("parameters: a non-empty dict {'section.key': "
                        "(low, high)}, got %r" % (parameters,))
    params = [_Param(k, v) for k, v in parameters.items()]
    if isinstance(components, cc.Component):
        components = [components]
    if not isinstance(components, (list, tuple)) or not components:
        raise TypeError("components: a non-empty list of "
                        "weft.calib_components objects (Normal, Binomial, "
                        "...), got %r" % (components,))
    for c in components:
        if not isinstance(c, cc.Component):
            raise TypeError("components: %r is not a "
                            "weft.calib_components.Component" % (c,))
    names = [c.name for c in components]
    if len(set(names)) != len(names):
        raise ValueError("components: two share the name %r (name=...)"
                         % next(n for n in names if names.count(n) > 1))
    cols = _read_data(data)
    time_col, times = _data_time(cols, time)
    order = np.argsort(times)
    times = times[order]
    cols = {k: None if v is None else v[order] for k, v in cols.items()}
    for c in components:
        for col in c.data:
            if col not in cols:
                raise ValueError("data: no column %r (component %s %r); "
                                 "columns are %s" % (col, c.kind, c.name,
                                                     sorted(cols)))
            if cols[col] is None or len(cols[col]) != len(times):
                raise ValueError("data: column %r (component %s %r) must "
                                 "hold one number a row" % (col, c.kind,
                                                            c.name))
        c.check_data(tuple(cols[col] for col in c.data))
    trials = _whole("trials", trials, 0)
    replicas = _whole("replicas", replicas, 1)
    n_jobs = _whole("n_jobs", n_jobs, 1)
    processes = _whole("processes", processes, 1)
    if seed is not None:
        seed = _whole("seed", seed, 0)
    if combine not in _COMBINE:
        raise ValueError("combine: one of %s, got %r"
                         % (", ".join(_COMBINE), combine))
    if isinstance(sampler, str) and sampler not in _SAMPLERS:
        raise ValueError("sampler: one of %s or an optuna sampler, got %r"
                         % (", ".join(_SAMPLERS), sampler))
    if not isinstance(sampler, str) and \
            not hasattr(sampler, "sample_independent"):
        raise TypeError("sampler: one of %s or an optuna sampler, got %r"
                        % (", ".join(_SAMPLERS), sampler))
    if storage is not None and not isinstance(storage, str):
        raise TypeError("storage: None or a URL such as "
                        "'sqlite:///calib.db', got %r" % (storage,))
    if processes > 1 and storage is None:
        raise ValueError("processes=%d: worker processes share the study "
                         "through storage; give storage='sqlite:///FILE.db'"
                         % processes)
    if processes > 1 and not isinstance(sampler, str):
        raise ValueError("processes=%d: give sampler by name (tpe, cmaes, "
                         "random); each process makes its own" % processes)
    ranks = mpi_ranks()
    if ranks.size > 1 and storage is None:
        raise ValueError("%d MPI ranks (%s) share one study through "
                         "storage; give storage='sqlite:///FILE.db'"
                         % (ranks.size, ranks.where))
    if ranks.size > 1 and not isinstance(sampler, str):
        raise ValueError("%d MPI ranks: give sampler by name (tpe, cmaes, "
                         "random); each rank makes its own" % ranks.size)
    if ranks.size > 1 and storage.split("?")[0] in ("sqlite://",
                                                    "sqlite:///:memory:"):
        raise ValueError("%d MPI ranks: storage %r is in each rank's "
                         "memory; give a file: 'sqlite:///FILE.db'"
                         % (ranks.size, storage))
    if study_name is None:
        study_name = "weft-calibration"
    base = dict(_override_pairs(overrides))
    check(config, overrides=dict(base, **({} if model is None else
                                          {"simulation.model": model})))
    for p in params:
        if p.key in base:
            raise ValueError("parameters[%r]: also in overrides; calibrate "
                             "it or set it, not both" % p.key)
        for v in (p.low, p.high):
            sets = dict(base, **{p.key: v})
            if model is not None:
                sets["simulation.model"] = model
            try:
                check(config, overrides=sets)
            except WeftError as e:
                raise ValueError("parameters[%r]: %s" % (p.key, e)) from e

    optuna = _need_optuna()
    objective = _Objective(config, params, cols, time_col, times,
                           list(components), replicas, seed, base, backend,
                           model, steps, combine, table)
    if not verbose:
        optuna.logging.set_verbosity(optuna.logging.ERROR)
    if ranks.size > 1:
        return _calibrate_rank(optuna, objective, ranks, storage,
                               study_name, sampler, seed, trials,
                               processes, n_jobs)
    study = optuna.create_study(study_name=study_name,
                                storage=_open_storage(optuna, storage),
                                direction="minimize", load_if_exists=True,
                                sampler=_make_sampler(optuna, sampler, seed))
    t0 = _time.perf_counter()
    if processes > 1 and trials > 0:
        _run_processes(objective, storage, study_name, sampler, seed,
                       trials, processes, n_jobs)
        study = optuna.load_study(study_name=study_name,
                                  storage=_open_storage(optuna, storage),
                                  sampler=_make_sampler(optuna, sampler,
                                                        seed))
    elif trials > 0:
        study.optimize(objective, n_trials=trials, n_jobs=n_jobs)
    return CalibrationResult(study, objective, _time.perf_counter() - t0)


def _override_pairs(overrides):
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        return list(overrides.items())
    if isinstance(overrides, str):
        raise TypeError("overrides: a dict or a list of 'section.key=value'"
                        " strings, not one string")
    out = []
    for a in overrides:
        if not isinstance(a, str) or "=" not in a:
            raise TypeError("overrides: 'section.key=value' strings, got %r"
                            % (a,))
        k, v = a.split("=", 1)
        out.append((k.strip(), v))
    return out


def _run_processes(objective, storage, study_name, sampler, seed, trials,
                   processes, n_jobs):
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
    share = [trials // processes + (i < trials % processes)
             for i in range(processes)]
    procs = [ctx.Process(target=_worker,
                         args=(objective, storage, study_name, sampler,
                               None if seed is None else seed + 1000 * i,
                               n, n_jobs))
             for i, n in enumerate(share) if n > 0]
    for p in procs:
        p.start()
    try:
        for p in procs:
            p.join()
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
                p.join()
    bad = [p.exitcode for p in procs if p.exitcode != 0]
    if bad:
        raise RuntimeError("weft.calibrate: %d of %d worker processes "
                           "failed (exit status %s); the study keeps the "
                           "trials they finished" % (len(bad), len(procs),
                                                     bad[0]))


# ---- MPI ranks -------------------------------------------------------------
#
# `mpirun -n K python -m weft calibrate ...` (or weft calibrate, or a script
# calling weft.calibrate) starts K copies; each finds its rank and the
# number of ranks in its launcher's environment (no mpi4py), runs its share
# of the trials on the one study in storage, and rank 0 waits for the
# others' and returns the whole study. The ranks talk only through the
# storage: each trial carries user attributes rank and launch (an id of
# this launch), and each rank keeps a study system attribute
# "weft:mpi:LAUNCH:RANK" up to date (running, with a heartbeat; done;
# failed, with the error), from which rank 0 learns that a rank failed or
# stopped.

# The launchers' variables, in the order they are looked for: (rank,
# size, the variables holding an id of the launch, common to its ranks).
_LAUNCHERS = (
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     ("PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid")),   # Open MPI
    ("PMI_RANK", "PMI_SIZE", ()),                     # MPICH, Intel MPI
    ("SLURM_PROCID", "SLURM_STEP_NUM_TASKS",
     ("SLURM_JOB_ID", "SLURM_STEP_ID")),              # Slurm srun
)
_WAIT_DEFAULT = 300.0  # seconds without news of a rank before rank 0 stops


class MpiRanks:
    """This process's place among an MPI launch's: rank, size (1 when not
    launched by an MPI launcher), where (the variable that said so, e.g.
    "OMPI_COMM_WORLD_SIZE=2"), launch (an id common to the launch's ranks,
    or None when the launcher gives none)."""

    def __init__(self, rank=0, size=1, where=None, launch=None):
        self.rank, self.size, self.where, self.launch = \
            rank, size, where, launch

    def __repr__(self):
        return "MpiRanks(rank=%d, size=%d, where=%r)" % (
            self.rank, self.size, self.where)


def mpi_ranks(environ=None):
    """The rank and size an MPI launcher gave this process, from its
    environment: Open MPI's OMPI_COMM_WORLD_RANK and _SIZE, else PMI_RANK
    and PMI_SIZE (MPICH's Hydra, Intel MPI), else Slurm srun's
    SLURM_PROCID and SLURM_STEP_NUM_TASKS (SLURM_NTASKS when that is
    missing; only inside a job step, SLURM_STEP_ID set: an sbatch script
    itself is one process). An MpiRanks; size 1 without a launcher.
    ValueError when the variables are not whole numbers with 0 <= rank <
    size."""
    env = os.environ if environ is None else environ
    for rank_var, size_var, id_vars in _LAUNCHERS:
        if rank_var not in env:
            continue
        if rank_var == "SLURM_PROCID":
            if "SLURM_STEP_ID" not in env:
                continue
            if size_var not in env:
                size_var = "SLURM_NTASKS"
        try:
            rank, size = int(env[rank_var]), int(env.get(size_var, ""))
        except ValueError:
            raise ValueError("MPI: %s=%r and %s=%r are not whole numbers"
                             % (rank_var, env.get(rank_var), size_var,
                                env.get(size_var))) from None
        if not 0 <= rank < size:
            raise ValueError("MPI: %s=%d is not below %s=%d"
                             % (rank_var, rank, size_var, size))
        ids = list(dict.fromkeys(env[v] for v in id_vars if env.get(v)))
        launch = "%s:%s" % (size_var.split("_")[0].lower(),
                            ".".join(ids)) if ids else None
        return MpiRanks(rank, size, "%s=%d" % (size_var, size), launch)
    return MpiRanks()


def _wait_seconds():
    """How long rank 0 waits without news of another rank (and another
    rank for the study to appear): $WEFT_CALIBRATE_WAIT seconds, else
    300."""
    v = os.environ.get("WEFT_CALIBRATE_WAIT", "")
    if not v:
        return _WAIT_DEFAULT
    try:
        w = float(v)
    except ValueError:
        w = -1.0
    if not w > 0 or not math.isfinite(w):
        raise ValueError("WEFT_CALIBRATE_WAIT=%r: seconds, a number > 0"
                         % v)
    return w


def _open_storage(optuna, storage):
    """storage as create_study takes it: a SQLite URL becomes an
    RDBStorage that waits up to 60 s for a lock (several processes or
    ranks write the one file; SQLite's default gives up after 5 s) unless
    the URL says otherwise (?timeout=); another URL or None as it is."""
    if isinstance(storage, str) and storage.startswith("sqlite:") and \
            "timeout=" not in storage:
        return optuna.storages.RDBStorage(
            storage, engine_kwargs={"connect_args": {"timeout": 60}})
    return storage


def _transient():
    """The errors a rank retries while the study is made: it is missing
    (KeyError), or its storage is busy or half made by another rank (the
    database's errors, as SQLAlchemy and Optuna raise them)."""
    out = [KeyError]
    try:
        import sqlalchemy.exc
        out.append(sqlalchemy.exc.DBAPIError)
    except ImportError:
        pass
    try:
        import optuna.exceptions
        out.append(optuna.exceptions.StorageInternalError)
    except (ImportError, AttributeError):
        pass
    return tuple(out)


def _retry(what, wait, fn):
    """fn() until it returns, retrying _transient() errors for up to
    wait seconds; others at once."""
    t0 = _time.monotonic()
    pause = 0.05
    transient = _transient()
    while True:
        try:
            return fn()
        except transient as e:
            if _time.monotonic() - t0 > wait:
                raise RuntimeError("weft.calibrate: %s: gave up after %g "
                                   "s: %s" % (what, wait, e)) from e
        _time.sleep(pause)
        pause = min(pause * 2, 1.0)


def _rank_key(launch, rank):
    return "weft:mpi:%s:%d" % (launch, rank)


class _Heartbeat:
    """This rank's state in the study's system attributes, "running" with
    a beat count rewritten every few seconds from a thread, until done()
    or failed()."""

    def __init__(self, storage, study_id, launch, rank, share, every):
        import threading
        self.storage, self.study_id = storage, study_id
        self.key = _rank_key(launch, rank)
        self.share = share
        self.beat = 0
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.set("running")
        self.thread = threading.Thread(target=self._run, args=(every,),
                                       daemon=True)
        self.thread.start()

    def set(self, state, error=None):
        with self.lock:
            self.beat += 1
            value = {"state": state, "beat": self.beat,
                     "trials": self.share, "pid": os.getpid()}
            if error is not None:
                value["error"] = error
            self.storage.set_study_system_attr(self.study_id, self.key,
                                               value)

    def _run(self, every):
        while not self.stop.wait(every):
            try:
                self.set("running")
            except Exception:  # a busy storage: the next beat may pass
                pass

    def end(self, state, error=None):
        self.stop.set()
        self.thread.join()
        self.set(state, error)


def _launch_id(storage, study_id, ranks, wait):
    """The launch's id: the launcher's, else one rank 0 makes and
    publishes as the study's "weft:mpi:open" (the others wait for it)."""
    if ranks.launch is not None:
        return ranks.launch
    key = "weft:mpi:open"
    if ranks.rank == 0:
        import uuid
        launch = "weft:" + uuid.uuid4().hex
        storage.set_study_system_attr(study_id, key, {
            "launch": launch, "size": ranks.size})
        return launch

    def published():
        v = storage.get_study_system_attrs(study_id).get(key)
        if not v or v.get("size") != ranks.size:
            raise KeyError("rank 0 has not opened the launch")
        return v["launch"]
    return _retry("rank %d of %d: waiting for rank 0 to open the launch in "
                  "the study" % (ranks.rank, ranks.size), wait, published)


def _calibrate_rank(optuna, objective, ranks, storage, study_name, sampler,
                    seed, trials, processes, n_jobs):
    """This rank's share of the trials (trials // size, the first trials
    % size ranks one more), its sampler seeded with seed + rank; rank 0
    then waits for the others' and returns the whole study's result, the
    others their own view of it."""
    wait = _wait_seconds()
    rank, size = ranks.rank, ranks.size
    rseed = None if seed is None else seed + rank
    share = trials // size + (rank < trials % size)
    where = "rank %d of %d (%s)" % (rank, size, ranks.where)

    def open_study():
        st = _open_storage(optuna, storage)
        if isinstance(st, str):
            st = optuna.storages.RDBStorage(st)
        if rank == 0:
            s = optuna.create_study(
                study_name=study_name, storage=st, direction="minimize",
                load_if_exists=True,
                sampler=_make_sampler(optuna, sampler, rseed))
        else:
            s = optuna.load_study(
                study_name=study_name, storage=st,
                sampler=_make_sampler(optuna, sampler, rseed))
        return s, st
    study, st = _retry("%s: opening study %r in %s" % (
        where, study_name, storage), wait, open_study)
    sid = st.get_study_id_from_name(study_name)
    launch = _launch_id(st, sid, ranks, wait)
    objective.rank, objective.launch = rank, launch
    t0 = _time.perf_counter()
    beat = _Heartbeat(st, sid, launch, rank, share, min(10.0, wait / 4))
    try:
        if share > 0 and processes > 1:
            _run_processes(objective, storage, study_name, sampler, rseed,
                           share, processes, n_jobs)
        elif share > 0:
            study.optimize(objective, n_trials=share, n_jobs=n_jobs)
        if rank == 0:
            _wait_ranks(optuna, st, sid, launch, size, trials, wait,
                        storage)
    except BaseException as e:
        try:
            beat.end("failed", "%s: %s" % (type(e).__name__, e))
        except Exception:
            pass
        raise
    else:
        beat.end("done")
    finally:
        if rank == 0 and ranks.launch is None:
            try:
                st.set_study_system_attr(sid, "weft:mpi:open", None)
            except Exception:
                pass
    study = optuna.load_study(study_name=study_name,
                              storage=_open_storage(optuna, storage),
                              sampler=_make_sampler(optuna, sampler, rseed))
    res = CalibrationResult(study, objective, _time.perf_counter() - t0)
    res.rank, res.ranks = rank, size
    return res


def _wait_ranks(optuna, st, sid, launch, size, trials, wait, storage,
                poll=0.5):
    """Rank 0, its own trials done: poll the study until the launch's
    finished trials (complete, pruned or failed) number trials. A
    RuntimeError when another rank failed, or when one has given no sign
    of life (its state unchanged) for wait seconds."""
    states = (optuna.trial.TrialState.COMPLETE,
              optuna.trial.TrialState.PRUNED, optuna.trial.TrialState.FAIL)
    seen = {r: (None, _time.monotonic()) for r in range(1, size)}
    all_done = False
    while True:
        done = sum(1 for t in st.get_all_trials(sid, deepcopy=False,
                                                states=states)
                   if t.user_attrs.get("launch") == launch)
        if done >= trials:
            return
        attrs = st.get_study_system_attrs(sid)
        now = _time.monotonic()
        waiting = []
        for r in range(1, size):
            v = attrs.get(_rank_key(launch, r))
            if v and v.get("state") == "failed":
                raise RuntimeError(
                    "weft.calibrate: MPI rank %d of %d failed: %s; %d of "
                    "the %d trials finished (the study in %s keeps them)"
                    % (r, size, v.get("error"), done, trials, storage))
            if v != seen[r][0]:
                seen[r] = (v, now)
            if not (v and v.get("state") == "done"):
                waiting.append(r)
            if now - seen[r][1] > wait and r in waiting:
                raise RuntimeError(
                    "weft.calibrate: MPI rank %d of %d %s for %g s; %d of "
                    "the %d trials finished (the study in %s keeps them):"
                    " the rank died or cannot reach the storage "
                    "($WEFT_CALIBRATE_WAIT sets how long rank 0 waits)"
                    % (r, size, "has not started" if v is None else
                       "has given no sign of life", wait, done, trials,
                       storage))
        if not waiting and all_done:  # trials missing: do not hang
            warnings.warn("weft.calibrate: every rank is done, but only "
                          "%d of the %d trials finished" % (done, trials))
            return
        all_done = not waiting  # count once more: the last may just end
        _time.sleep(poll)
        poll = min(poll * 1.5, 5.0)  # a long wait reads the study less


# ---- the result ------------------------------------------------------------

class CalibrationResult:
    """What weft.calibrate found: best_params ({key: value}), best_value
    (the lowest objective), study (the optuna Study, every trial of the
    storage included), trials (a weft.Table, one row a finished trial:
    number, value, state, seconds, a column per parameter), elapsed (this
    call's seconds), components, parameters; fit() runs the model at a
    parameter set and returns the data beside the model; plot_fit() and
    plot_params() draw them (matplotlib). Under MPI, rank (this one) and
    ranks (how many); 0 and 1 otherwise."""

    def __init__(self, study, objective, elapsed):
        self.study = study
        self._obj = objective
        self.elapsed = elapsed
        self.rank, self.ranks = 0, 1  # MPI: this rank, how many
        self.components = list(objective.components)
        self.parameters = {p.key: (p.low, p.high) for p in objective.params}
        done = [t for t in study.trials if t.value is not None and
                t.state.name == "COMPLETE"]
        if done:
            best = study.best_trial
            self.best_params = dict(best.params)
            self.best_value = best.value
        else:
            self.best_params, self.best_value = None, None

    @property
    def trials(self):
        keys = [p.key for p in self._obj.params]
        rows = self.study.trials
        dtype = [("number", np.int64), ("value", np.float64),
                 ("state", "U8"), ("seconds", np.float64)] + [
            (p.key, np.int64 if p.kind == "int" else np.float64)
            for p in self._obj.params]
        out = np.zeros(len(rows), dtype=dtype)
        for i, t in enumerate(rows):
            dur = t.duration.total_seconds() if t.duration else np.nan
            out[i] = (t.number, np.nan if t.value is None else t.value,
                      t.state.name, dur, *[t.params.get(k, 0 if p.kind ==
                                                        "int" else np.nan)
                                           for k, p in zip(
                                               keys, self._obj.params)])
        return out.view(Table)

    def fit(self, params=None):
        """Run the model at params (default best_params) as a trial does;
        {component name: {"time", "data" (columns x rows), "model"
        (replicas x columns x rows), "nll"}} and the total under
        "total"."""
        values = dict(self.best_params if params is None else params)
        reps, failed = self._obj.simulate(values)
        if failed:
            raise RuntimeError("weft.calibrate: %d runs failed at %r: %s"
                               % (len(failed), values, failed[0]))
        per, total = self._obj.score(reps)
        out = {"total": total}
        for comp in self.components:
            out[comp.name] = {
                "time": self._obj.times,
                "data": np.array(self._obj.obs(comp)),
                "model": np.array([[r[e.text] for e in comp.model]
                                   for r in reps]),
                "nll": per[comp.name]}
        return out

    def plot_fit(self, path=None, params=None):
        """The data (points) against each replica (thin lines) and their
        mean at params (default best_params), a panel per data column;
        saved to path when given; returns the matplotlib Figure."""
        plt = _pyplot()
        fit = self.fit(params)
        panels = [(c, i) for c in self.components
                  for i in range(len(c.data))]
        fig, axes = plt.subplots(len(panels), 1, squeeze=False,
                                 figsize=(7, 2.6 * len(panels)))
        for ax, (c, i) in zip(axes[:, 0], panels):
            f = fit[c.name]
            for r in f["model"]:
                ax.plot(f["time"], r[i], color="C0", alpha=0.3, lw=0.8)
            ax.plot(f["time"], f["model"][:, i].mean(axis=0), color="C0",
                    label="model: %s" % c.model[i].text)
            ax.plot(f["time"], f["data"][i], "o", color="C3", ms=3,
                    label="data: %s" % c.data[i])
            ax.set_title("%s %s (NLL %.4g)" % (c.kind, c.name, f["nll"]),
                         fontsize=9)
            ax.legend(fontsize=8)
        axes[-1, 0].set_xlabel(self._obj.time_col)
        fig.tight_layout()
        if path is not None:
            fig.savefig(path)
        return fig

    def plot_params(self, path=None):
        """Each parameter's sampled values against the objective (the
        best marked); saved to path when given; returns the Figure."""
        plt = _pyplot()
        tab = self.trials
        ok = np.isfinite(tab["value"])
        keys = list(self.parameters)
        fig, axes = plt.subplots(1, len(keys), squeeze=False,
                                 figsize=(4 * len(keys), 3.2))
        for ax, k in zip(axes[0], keys):
            ax.scatter(tab[k][ok], tab["value"][ok], s=10, c=tab["number"][ok],
                       cmap="viridis")
            if self.best_params is not None:
                ax.axvline(self.best_params[k], color="C3", lw=1)
            ax.set_xlabel(k)
            ax.set_ylabel("objective (NLL)")
        fig.tight_layout()
        if path is not None:
            fig.savefig(path)
        return fig

    def __repr__(self):
        return "CalibrationResult(best_params=%r, best_value=%r, trials=%d)" \
            % (self.best_params, self.best_value, len(self.study.trials))


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("plots need matplotlib: pip install matplotlib "
                          "(or weft[plot])") from e
    return plt
