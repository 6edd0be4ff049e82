"""weft.calibrate on MPI ranks (python/weft/calibrate.py, "MPI ranks";
docs/calibration.md): the rank and size read from each launcher's
environment, and K processes that an MPI launcher might have started,
played here by subprocesses given PMI_RANK and PMI_SIZE (no launch id in
the environment: rank 0 opens the launch in the study) or Open MPI's
variables: the trials split between them on one SQLite study, each tagged
with its rank, rank 0 returning the whole study; rank 0 stopping with a
message when another rank fails or never comes (no hang); storage
required. `mpirun -n 2 weft calibrate` itself is tests/cli/
test-calibrate-mpi.sh's."""
import json
import os
import subprocess
import sys

import pytest

from weft.calibrate import mpi_ranks

from conftest import need

RANK = r"""
import json, sys, warnings
import weft
from weft.calib_components import Normal
a = json.loads(sys.argv[1])
try:
    r = weft.calibrate(a["config"], data={"day": [2, 4, 6],
                                          "infected": [20, 26, 31]},
                       parameters={"seir.beta": (0.004, 0.03)},
                       components=[Normal("infected", "cumulative")],
                       trials=a["trials"], storage=a["storage"], seed=1,
                       table=a.get("table"))
except Exception as e:
    print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}))
    sys.exit(1)
print(json.dumps({"rank": r.rank, "ranks": r.ranks,
                  "trials": len(r.study.trials),
                  "tags": sorted(t.user_attrs.get("rank", -1)
                                 for t in r.study.trials)}))
"""


def test_mpi_ranks_from_the_environment():
    r = mpi_ranks({})
    assert (r.rank, r.size, r.launch) == (0, 1, None)
    r = mpi_ranks({"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "3",
                   "PMIX_NAMESPACE": "77", "OMPI_MCA_ess_base_jobid": "77",
                   "PMI_RANK": "0", "PMI_SIZE": "9"})
    assert (r.rank, r.size, r.where, r.launch) == \
        (1, 3, "OMPI_COMM_WORLD_SIZE=3", "ompi:77")
    r = mpi_ranks({"PMI_RANK": "2", "PMI_SIZE": "4"})
    assert (r.rank, r.size, r.where, r.launch) == (2, 4, "PMI_SIZE=4", None)
    srun = {"SLURM_PROCID": "1", "SLURM_NTASKS": "8", "SLURM_JOB_ID": "5",
            "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "2"}
    r = mpi_ranks(srun)
    assert (r.rank, r.size, r.launch) == (1, 2, "slurm:5.0")
    del srun["SLURM_STEP_NUM_TASKS"]
    assert mpi_ranks(srun).size == 8
    # An sbatch script (no job step) is one process.
    assert mpi_ranks({"SLURM_PROCID": "0", "SLURM_NTASKS": "8",
                      "SLURM_JOB_ID": "5"}).size == 1
    with pytest.raises(ValueError, match="PMI_RANK=4 is not below "
                       "PMI_SIZE=4"):
        mpi_ranks({"PMI_RANK": "4", "PMI_SIZE": "4"})
    with pytest.raises(ValueError, match="not whole numbers"):
        mpi_ranks({"PMI_RANK": "0", "PMI_SIZE": "x"})


@pytest.fixture
def config(tmp_path):
    need("optuna", "weft.calibrate runs Optuna studies")
    p = tmp_path / "tiny.ini"
    p.write_text("[simulation]\nmodel = seir\nsteps = 10\n[output]\n"
                 "plot = none\n[seir]\nagents = 300\n")
    return str(p)


def start(rank, size, env_extra=None, **args):
    env = dict(os.environ, PMI_RANK=str(rank), PMI_SIZE=str(size),
               OMP_NUM_THREADS="1", **(env_extra or {}))
    for k in ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"):
        env.pop(k, None)
    return subprocess.Popen([sys.executable, "-c", RANK, json.dumps(args)],
                            env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def result(p):
    out, err = p.communicate(timeout=300)
    lines = out.strip().splitlines()
    return p.returncode, json.loads(lines[-1]) if lines else {}, err


def test_two_ranks_share_the_trials(config, tmp_path):
    db = "sqlite:///%s" % (tmp_path / "mpi.db")
    procs = [start(r, 2, config=config, trials=5, storage=db)
             for r in (1, 0)]
    (rc1, r1, e1), (rc0, r0, e0) = [result(p) for p in procs]
    assert rc0 == 0 and rc1 == 0, (e0, e1)
    assert (r0["rank"], r0["ranks"], r1["rank"]) == (0, 2, 1)
    assert r0["trials"] == 5
    assert r0["tags"] == [0, 0, 0, 1, 1]      # 3 and 2 trials
    # A second launch adds 5 more to the study, and waits for its own.
    procs = [start(r, 2, config=config, trials=5, storage=db)
             for r in (0, 1)]
    (rc0, r0, e0), (rc1, r1, e1) = [result(p) for p in procs]
    assert rc0 == 0 and rc1 == 0, (e0, e1)
    assert r0["trials"] == 10


def test_storage_is_required(config):
    rc, r, err = result(start(0, 2, config=config, trials=2, storage=None))
    assert rc == 1
    assert "2 MPI ranks (PMI_SIZE=2) share one study through storage; " \
        "give storage='sqlite:///FILE.db'" in r["error"]


def test_rank_zero_does_not_wait_forever(config, tmp_path):
    """Rank 1 never starts: rank 0 runs its share, then gives up after
    $WEFT_CALIBRATE_WAIT seconds, saying which rank."""
    db = "sqlite:///%s" % (tmp_path / "alone.db")
    rc, r, err = result(start(0, 2, {"WEFT_CALIBRATE_WAIT": "2"},
                              config=config, trials=2, storage=db))
    assert rc == 1
    assert "MPI rank 1 of 2 has not started for 2 s; 1 of the 2 trials " \
        "finished" in r["error"], r


def test_a_failed_rank_is_named(config, tmp_path):
    """Rank 1's trials fail (no table of that name): rank 0 says so."""
    db = "sqlite:///%s" % (tmp_path / "fail.db")
    procs = [start(0, 2, config=config, trials=4, storage=db),
             start(1, 2, config=config, trials=4, storage=db,
                   table="nosuch")]
    (rc0, r0, e0), (rc1, r1, e1) = [result(p) for p in procs]
    assert rc1 == 1 and "table='nosuch'" in r1["error"]
    assert rc0 == 1
    assert "MPI rank 1 of 2 failed: ValueError: table='nosuch'" \
        in r0["error"], r0
