"""Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) on the kernel `sim-bench` compares
with: the matmul example's kernel (Numba's `fast_matmul` algorithm for any shape) at
100x77x55, line for line, inputs made the same way, checked against NumPy. Prints
`name value` lines (seconds per launch, the median of `--repeat` runs). The reduce
example's sum is ours alone: Numba's simulator has no warp shuffles."""

import os
import statistics
import sys
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402
from numba import cuda, float32  # noqa: E402

TILE = 16


@cuda.jit
def matmul(a, b, c, m, k, n):
    sa = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    sb = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    col, row = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        ka = t * TILE + tx
        kb = t * TILE + ty
        sa[ty, tx] = a[row * k + ka] if row < m and ka < k else 0.0
        sb[ty, tx] = b[kb * n + col] if kb < k and col < n else 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sa[ty, j] * sb[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        c[row * n + col] = acc


def pattern(length, mul, modulo):
    i = np.arange(length, dtype=np.int64)
    half = modulo // 2
    return (((i * mul) % modulo).astype(np.float32) - half) / np.float32(half)


def matmul_seconds(m, k, n):
    a, b = pattern(m * k, 37, 101), pattern(k * n, 53, 97)
    c = np.full(m * n, np.nan, dtype=np.float32)
    grid = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE)
    t = time.perf_counter()
    matmul[grid, (TILE, TILE)](a, b, c, m, k, n)
    cuda.synchronize()
    seconds = time.perf_counter() - t
    want = a.reshape(m, k).astype(np.float64) @ b.reshape(k, n).astype(np.float64)
    assert np.allclose(c.reshape(m, n), want, rtol=1e-4, atol=1e-4), "numba matmul is off"
    return seconds


def main():
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
    mm = statistics.median(matmul_seconds(100, 77, 55) for _ in range(repeat))
    print(f"numba_cudasim_matmul_100x77x55_s {mm:.3f}", flush=True)


if __name__ == "__main__":
    main()
