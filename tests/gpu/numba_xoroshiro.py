"""Numba's side of the xoroshiro128+ parity check (tests/gpu/numba_xoroshiro.rs).

Usage: python3 numba_xoroshiro.py SEED N K DIR. Makes N states with Numba's
create_xoroshiro128p_states(N, seed=SEED), then per thread K draws of each of
xoroshiro128p_uniform_float32, _uniform_float64, _normal_float32, _normal_float64 (in that
order), and writes DIR/{states,uf32,uf64,nf32,nf64,after}.bin (little-endian, raw)."""
import os
import sys

import numpy as np
from numba import cuda
from numba.cuda.random import (
    create_xoroshiro128p_states,
    xoroshiro128p_normal_float32,
    xoroshiro128p_normal_float64,
    xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64,
)


@cuda.jit
def draws(states, k, uf, ud, nf, nd):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for j in range(k):
            uf[i * k + j] = xoroshiro128p_uniform_float32(states, i)
        for j in range(k):
            ud[i * k + j] = xoroshiro128p_uniform_float64(states, i)
        for j in range(k):
            nf[i * k + j] = xoroshiro128p_normal_float32(states, i)
        for j in range(k):
            nd[i * k + j] = xoroshiro128p_normal_float64(states, i)


def main():
    seed, n, k, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    states = create_xoroshiro128p_states(n, seed=seed)
    states.copy_to_host().view(np.uint64).tofile(os.path.join(out, "states.bin"))
    uf = cuda.device_array(n * k, dtype=np.float32)
    ud = cuda.device_array(n * k, dtype=np.float64)
    nf = cuda.device_array(n * k, dtype=np.float32)
    nd = cuda.device_array(n * k, dtype=np.float64)
    draws[(n + 127) // 128, 128](states, k, uf, ud, nf, nd)
    for name, a in [("uf32", uf), ("uf64", ud), ("nf32", nf), ("nf64", nd)]:
        a.copy_to_host().tofile(os.path.join(out, name + ".bin"))
    states.copy_to_host().view(np.uint64).tofile(os.path.join(out, "after.bin"))
    print(f"numba {cuda.__name__}: {n} states, {k} draws of each kind")


if __name__ == "__main__":
    main()
