"""weft imports and runs without the optional packages (pandas, torch,
gymnasium), checked in a child Python in which they cannot be imported."""
import subprocess
import sys

SCRIPT = r"""
import sys
for m in ("pandas", "torch", "gymnasium", "matplotlib"):
    sys.modules[m] = None  # import fails as if not installed
import weft
from weft.envs import CartPoleVectorEnv
env = CartPoleVectorEnv(4, backend="openmp")
assert type(env).__mro__[-2:] == (weft.envs.WeftVectorEnv, object)
obs, info = env.reset(seed=0)
o, r, t, u, i = env.step([1, 0, 1, 0])
assert env.metadata["autoreset_mode"] == "SameStep"
env.close()
r = weft.run(model="cartpole", backend="openmp", output=sys.argv[1],
             overrides={"cartpole.envs": 64, "simulation.steps": 50,
                        "output.plot": "none", "output.every": 10})
t = r.tables["episodes"]
try:
    t.to_pandas()
except ImportError as e:
    assert "pip install pandas" in str(e)
else:
    raise SystemExit("to_pandas without pandas")
print("ok", len(t))
"""


def test_without_optional_packages(tmp_path):
    p = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["ok", "5"]
