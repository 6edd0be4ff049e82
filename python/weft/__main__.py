"""python -m weft calibrate [--set SECTION.KEY=VALUE]... < SETTINGS.json

The Python half of `weft calibrate CONFIG` (cli/weft-calibrate.c): the
weft command reads and checks CONFIG's [calibration] section, then runs
this with the section's settings as one JSON object on standard input
(core/config/calib.h lists its fields) and the command's --set overrides
as arguments. It runs weft.calibrate, prints Optuna's line per trial and
the best parameters, and writes into [output] directory, under weft's
lock on it, these files and nothing else (each replacing only an earlier
calibration's file of that name; a run's outputs there stay): best.ini
(the best values, as an INI file to --set or paste), trials.csv (one row
a trial), calibration.txt, and fit.png and params.png when matplotlib is
installed. Exit status 0, 1
when the calibration failed (the message on standard error), 2 for a bad
command line, 130 when interrupted (a storage keeps the finished trials).
Under MPI (`mpirun -n K weft calibrate CONFIG`: weft.calibrate's
mpi_ranks() finds the rank and size in the launcher's environment) every
rank runs its share of the trials on the study in [calibration] storage,
which K > 1 needs, and rank 0 alone prints the summary and writes the
files, after every rank's trials; the others write nothing.
docs/calibration.md, "INI: weft calibrate", is the guide.
"""
import json
import math
import os
import shutil
import sys
import tempfile

USAGE = ("usage: python -m weft calibrate [--set SECTION.KEY=VALUE]... "
         "< SETTINGS.json (what `weft calibrate CONFIG` runs)")


def _say(msg):
    sys.stderr.write("weft calibrate: %s\n" % msg)


def _parse(argv):
    """The --set overrides, or None for a bad command line."""
    if not argv or argv[0] != "calibrate":
        return None
    sets, i = [], 1
    while i < len(argv):
        a = argv[i]
        if a == "--set" and i + 1 < len(argv):
            sets.append(argv[i + 1])
            i += 2
        elif a.startswith("--set="):
            sets.append(a[6:])
            i += 1
        else:
            return None
    return sets


def _components(settings):
    from . import calib_components as cc
    out = []
    for c in settings["components"]:
        cls = getattr(cc, c["kind"])
        data = c["data"][0] if len(c["data"]) == 1 else tuple(c["data"])
        model = c["model"][0] if len(c["model"]) == 1 else tuple(c["model"])
        kw = {"weight": c["weight"], "name": c["name"]}
        if c.get("sigma2") is not None:
            kw["sigma2"] = c["sigma2"]
        out.append(cls(data, model, **kw))
    return out


def _parameters(settings):
    out = {}
    for p in settings["parameters"]:
        low, high = p["low"], p["high"]
        if p["type"] == "int":
            low, high = int(low), int(high)
        out[p["key"]] = {"low": low, "high": high, "log": p["log"],
                         "type": p["type"]}
    return out


def _fmt(v):
    return str(v) if isinstance(v, int) else "%.10g" % v


def _best_ini(res, settings):
    lines = ["; weft calibrate %s: the best of %d trials, objective %s"
             % (settings["config"], len(res.study.trials),
                _fmt(res.best_value)),
             "; (weft run %s --set SECTION.KEY=VALUE ..., or paste)"
             % settings["config"]]
    sections = {}
    for key, v in res.best_params.items():
        sec, k = key.split(".", 1)
        sections.setdefault(sec, []).append("%s = %s" % (k, _fmt(v)))
    for sec, keys in sections.items():
        lines += ["", "[%s]" % sec] + keys
    return "\n".join(lines) + "\n"


def _trials_csv(res):
    tab = res.trials
    names = list(tab.dtype.names)
    rows = [",".join(names)]
    for r in tab:
        rows.append(",".join(
            ("" if isinstance(v, float) and math.isnan(v) else _fmt(v))
            if isinstance(v, (int, float)) else str(v)
            for v in (r[n].item() for n in names)))
    return "\n".join(rows) + "\n"


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _plots(res, tmp):
    """The plot files written, or why none was."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], "no plots: matplotlib is not installed"
    fig = res.plot_fit(os.path.join(tmp, "fit.png"))
    plt.close(fig)
    fig = res.plot_params(os.path.join(tmp, "params.png"))
    plt.close(fig)
    return ["fit.png", "params.png"], None


def _put(tmp, out, files):
    """Each of files moved from tmp into out, replacing a file of that name
    (an earlier calibration's) and nothing else: whatever else out holds
    (a run's outputs, the user's files) stays."""
    for f in files:
        dst = os.path.join(out, f)
        if os.path.isdir(dst) and not os.path.islink(dst):
            raise ValueError("[output] directory %s: %s is a directory; "
                             "weft calibrate writes a file of that name"
                             % (out, f))
    for f in files:
        os.replace(os.path.join(tmp, f), os.path.join(out, f))


def _output_dir(settings):
    """[output] directory, made if missing and held for the whole
    calibration as `weft run` holds it for a run (weft_dir_lock_take:
    neither writes under the other; a directory in use raises the
    library's error naming the process): (path, the lock, whether it was
    made)."""
    out = os.path.abspath(settings["output"])
    if os.path.lexists(out) and not os.path.isdir(out):
        raise ValueError("[output] directory %s is not a directory" % out)
    made = not os.path.lexists(out)
    os.makedirs(out, exist_ok=True)
    try:
        from . import _weft
        return out, _weft.lock_dir(out), made
    except BaseException:
        if made:
            os.rmdir(out)
        raise


def _outputs(res, settings, out):
    tmp = tempfile.mkdtemp(prefix="." + os.path.basename(out) +
                           ".calibrate-", dir=os.path.dirname(out))
    try:
        files = ["best.ini", "trials.csv"]
        _write(os.path.join(tmp, "best.ini"), _best_ini(res, settings))
        _write(os.path.join(tmp, "trials.csv"), _trials_csv(res))
        plots, why = _plots(res, tmp)
        files += plots
        summary = ["config: %s" % settings["config"],
                   "data: %s" % settings["data"],
                   "trials: %d (this call: %d, %.1f s)"
                   % (len(res.study.trials), settings["trials"],
                      res.elapsed),
                   "replicas: %d" % settings["replicas"],
                   "objective: %s" % _fmt(res.best_value)]
        summary += ["best %s: %s" % (k, _fmt(v))
                    for k, v in res.best_params.items()]
        if why:
            summary.append(why)
        _write(os.path.join(tmp, "calibration.txt"),
               "\n".join(summary) + "\n")
        files.append("calibration.txt")
        for f in files:
            os.chmod(os.path.join(tmp, f), 0o644)
        _put(tmp, out, files)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return [os.path.join(out, f) for f in files]


def _overrides(sets):
    """The --set overrides a trial's run takes ([calibration] is this
    command's own)."""
    return [s for s in sets
            if not s.strip().startswith("calibration.")]


def _ranks():
    """The MPI launch this process is a rank of (weft.calibrate's
    mpi_ranks(): size 1 without one)."""
    from .calibrate import mpi_ranks
    return mpi_ranks()


def calibrate_main(settings, sets, ranks=None):
    """Run the calibration the settings describe; the exit status. Under
    MPI (ranks.size > 1) every rank runs its share of the trials on the
    study in [calibration] storage, which it needs; rank 0 alone writes
    the outputs, once every rank's trials are done."""
    import weft
    ranks = ranks or _ranks()
    if ranks.size > 1 and not settings.get("storage"):
        if ranks.rank > 0:
            return 1  # rank 0 says why
        raise ValueError(
            "[calibration] storage is not set: the %d MPI ranks (%s) share "
            "one study through it: set storage = sqlite:///calib.db (or "
            "--storage sqlite:///calib.db)" % (ranks.size, ranks.where))
    params = _parameters(settings)
    if ranks.rank > 0:
        return _calibrate_rank(weft, settings, sets, params, ranks)
    print("weft calibrate: %s: %d trials x %d replicas, %s%s"
          % (settings["config"], settings["trials"], settings["replicas"],
             ", ".join("%s in [%s, %s]%s" % (k, _fmt(p["low"]),
                                             _fmt(p["high"]),
                                             " (log)" if p["log"] else "")
                       for k, p in params.items()),
             "; %d MPI ranks (%s)" % (ranks.size, ranks.where)
             if ranks.size > 1 else ""), flush=True)
    out, lock, made = _output_dir(settings)
    rc = 1
    try:
        rc = _calibrate_into(weft, settings, sets, params, out)
        return rc
    finally:
        if made and rc != 0:  # a failed calibration leaves nothing
            try:
                os.rmdir(out)
            except OSError:
                pass
        from . import _weft
        _weft.unlock_dir(lock)


def _run(weft, settings, sets, params):
    """weft.calibrate with the settings (under MPI, this rank's share,
    and on rank 0 the whole study's result)."""
    return weft.calibrate(
        settings["config"], data=settings["data"], parameters=params,
        components=_components(settings), trials=settings["trials"],
        replicas=settings["replicas"], sampler=settings["sampler"],
        storage=settings["storage"], study_name=settings["study_name"],
        seed=settings["seed"], combine=settings["combine"],
        time=settings["time"], table=settings["table"],
        overrides=_overrides(sets), verbose=True)


def _calibrate_rank(weft, settings, sets, params, ranks):
    """An MPI rank other than 0: its share of the trials, and nothing
    written."""
    res = _run(weft, settings, sets, params)
    print("weft calibrate: rank %d of %d: its trials done (%.1f s); rank 0 "
          "writes the outputs" % (ranks.rank, ranks.size, res.elapsed),
          flush=True)
    return 0


def _calibrate_into(weft, settings, sets, params, out):
    """The calibration, its results written into out (locked)."""
    res = _run(weft, settings, sets, params)
    if res.best_params is None:
        _say("%s: no trial completed; the last ones failed (see the "
             "warnings above)" % settings["config"])
        return 1
    print("best: %s (objective %s, %d trials, %.1f s)"
          % (", ".join("%s = %s" % (k, _fmt(v))
                       for k, v in res.best_params.items()),
             _fmt(res.best_value), len(res.study.trials), res.elapsed))
    for f in _outputs(res, settings, out):
        print("  %s" % f)
    return 0


def _stdin_hint():
    """Why an MPI rank other than 0 may have read nothing."""
    try:
        ranks = _ranks()
    except ValueError:
        return ""
    if ranks.rank == 0:
        return ""
    return (" (rank %d of %d: mpirun passes standard input to rank 0 only;"
            " mpirun --stdin all passes it to every rank, or run weft "
            "calibrate CONFIG)" % (ranks.rank, ranks.size))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    sets = _parse(argv)
    if sets is None:
        sys.stderr.write(USAGE + "\n")
        return 2
    try:
        settings = json.load(sys.stdin)
    except ValueError as e:
        _say("standard input is not the settings' JSON: %s%s"
             % (e, _stdin_hint()))
        return 2
    from .errors import WeftError
    who = ""
    try:
        ranks = _ranks()
        if ranks.size > 1:
            who = "rank %d of %d: " % (ranks.rank, ranks.size)
        return calibrate_main(settings, sets, ranks)
    except KeyboardInterrupt:
        _say("%sinterrupted%s" % (
            who, "; %s keeps the finished trials" % settings["storage"]
            if settings.get("storage") else ""))
        return 130
    except (ValueError, TypeError, ImportError, RuntimeError, OSError,
            WeftError) as e:
        _say("%s%s: %s" % (who, settings.get("config"), e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
