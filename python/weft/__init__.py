"""weft - simulations on interchangeable compute backends, from Python.

    import weft
    r = weft.run("examples/astoria.ini", overrides={"seir.agents": 5000})
    r.summary["attack rate"]; r.tables["daily"].to_pandas()
    e = weft.run_ensemble("examples/astoria.ini", runs=20, batch=20)
    e.tables["base"]["I_sym_mean"]              # mean over the 20 seeds

    import weft.envs
    env = weft.envs.make("Pendulum-v1", 1024)   # a gymnasium.vector.VectorEnv
    obs, info = env.reset(seed=0)               # any id of weft.envs.ids()

weft.run, weft.run_ensemble, weft.check, weft.backends and weft.models
wrap libweft's API (weft/weft.h) through the C extension weft._weft;
weft.calibrate fits a model's parameters to data (Optuna, optional);
failures raise the classes of weft.errors with the C library's message.
docs/python.md is the guide.
"""
from . import _paths  # noqa: F401  (plugins of a build tree)
from ._weft import version as _c_version
from .errors import (WeftError, InvalidArgumentError, OutOfMemoryError,
                     FileError, ConfigError, PluginError, BackendError,
                     DeviceError, ModelError, UnsupportedError,
                     InternalError)
from .run import (run, run_ensemble, check, backends, models, RunResult,
                  EnsembleResult, FailedRun, Table, BackendInfo, ModelInfo)
from .calibrate import calibrate

__version__ = "0.1.0"
__all__ = ["run", "run_ensemble", "check", "backends", "models",
           "RunResult", "EnsembleResult", "FailedRun", "Table",
           "BackendInfo", "ModelInfo", "library_version", "WeftError",
           "InvalidArgumentError", "OutOfMemoryError", "FileError",
           "ConfigError", "PluginError", "BackendError", "DeviceError",
           "ModelError", "UnsupportedError", "InternalError", "calibrate"]


def library_version():
    """The version of the libweft this package runs on."""
    return _c_version()
