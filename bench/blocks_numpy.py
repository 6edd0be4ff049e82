"""bench/blocks_numpy.py - numpy's counterparts of weft's building blocks,
timed for bench/blocks.sh, printed as "key=value" lines.

    python blocks_numpy.py N REPEATS

On N random u32 elements (and u8 flags, each set with probability 1/2):
np.cumsum(x, dtype=np.uint32) (the exclusive scan's work: a running sum
modulo 2^32), np.argsort(x, kind="stable") and the gather x[order] (the
stable permutation and the sorted keys, what weft's sort_u32 gives with
values 0..N-1), x[flags] (stable compaction), and np.copyto of the same
4 N bytes (numpy's copy bandwidth). One run of each is not timed; each
time is the median of REPEATS. Run with OMP_NUM_THREADS=1 (and the BLAS
thread variables) so that numpy uses one core, as weft does here.
"""

import statistics
import sys
import time
from typing import Callable

import numpy as np


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    """The median wall time of fn() in milliseconds, after one untimed run."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: blocks_numpy.py N REPEATS", file=sys.stderr)
        return 2
    n, repeats = int(argv[1]), int(argv[2])
    rng = np.random.default_rng(12345)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    flags = rng.integers(0, 2, n, dtype=np.uint8).astype(bool)
    dst = np.empty_like(x)

    def sort() -> np.ndarray:
        order = np.argsort(x, kind="stable")
        return x[order]

    print(f"numpy={np.__version__}")
    print(f"ms_cumsum={median_ms(lambda: np.cumsum(x, dtype=np.uint32), repeats):.3f}")
    print(f"ms_argsort={median_ms(sort, repeats):.3f}")
    print(f"ms_mask={median_ms(lambda: x[flags], repeats):.3f}")
    copy_ms = median_ms(lambda: np.copyto(dst, x), repeats)
    print(f"ms_copy={copy_ms:.3f}")
    print(f"copy_gbs={8.0 * n / copy_ms / 1e6:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
