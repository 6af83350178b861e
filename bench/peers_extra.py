"""Peers for P6, P6b, P7, P10 and RNG, on the GPU machine: CuPy's cp.sum, cuBLAS SGEMM
(through cp.matmul) and a CUDA graph of 100 tiny launches, Numba running the documented shared-memory matmul algorithm (16 x 16
tiles) and the documented xoroshiro128+ compute_pi. Prints `name value` lines for bench.sh. Usage: python3 peers_extra.py cupy numba"""
import sys
import numpy as np


def cupy_peers():
    import cupy as cp
    n = 1 << 28
    x = cp.asarray((np.arange(n, dtype=np.int64) % 255 - 127).astype(np.float32) / 128)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(5):
        for _ in range(3):
            cp.sum(x)
        start.record()
        for _ in range(20):
            cp.sum(x)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 20)
    ms = sorted(times)[len(times) // 2]
    print(f"cupy_sum_gbps {4 * n / (ms * 1e-3) / 1e9:.0f}")
    del x
    s = 4096
    a = cp.random.standard_normal((s, s), dtype=cp.float32)
    b = cp.random.standard_normal((s, s), dtype=cp.float32)
    times = []
    for _ in range(3):
        cp.matmul(a, b)
        start.record()
        for _ in range(10):
            cp.matmul(a, b)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 10)
    ms = sorted(times)[len(times) // 2]
    print(f"cublas_sgemm_gflops {2 * s ** 3 / (ms * 1e-3) / 1e9:.0f}")
    del a, b
    cupy_graph()


def cupy_graph():
    """P10's peer: 100 dependent launches of the smallest kernel (one thread adds one), as
    `gpu-bench graph` runs ours, captured on a stream into a CUDA graph; the host's time
    from submission to completion of one replay and of the 100 launched one by one,
    interleaved, medians of 50."""
    import time
    import cupy as cp
    tiny = cp.RawKernel(r"""
    extern "C" __global__ void tiny(float* x, unsigned long long n) {
        if (threadIdx.x == 0 && n > 0) x[0] += 1.0f;
    }""", "tiny")
    x = cp.zeros(1, dtype=cp.float32)
    n = np.uint64(1)
    stream = cp.cuda.Stream(non_blocking=False)
    with stream:
        tiny((1,), (32,), (x, n))
        stream.synchronize()
        stream.begin_capture()
        for _ in range(100):
            tiny((1,), (32,), (x, n))
        graph = stream.end_capture()
        graph.launch(stream)
        stream.synchronize()
        one, replay = [], []
        for _ in range(50):
            t = time.perf_counter()
            for _ in range(100):
                tiny((1,), (32,), (x, n))
            stream.synchronize()
            one.append((time.perf_counter() - t) * 1e6)
            t = time.perf_counter()
            graph.launch(stream)
            stream.synchronize()
            replay.append((time.perf_counter() - t) * 1e6)
    want = 1 + 100 + 50 * 200
    got = float(x.get()[0])
    if got != want:
        raise RuntimeError(f"the launches added up to {got}, not {want}")
    print(f"cupy_graph_one_by_one_us {sorted(one)[len(one) // 2]:.1f}")
    print(f"cupy_graph_replay_us {sorted(replay)[len(replay) // 2]:.1f}")


def numba_peers():
    from numba import cuda, float32
    tile = 16

    @cuda.jit
    def tiled(a, b, c):
        sa = cuda.shared.array(shape=(tile, tile), dtype=float32)
        sb = cuda.shared.array(shape=(tile, tile), dtype=float32)
        x, y = cuda.grid(2)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        acc = float32(0.0)
        for t in range((a.shape[1] + tile - 1) // tile):
            sa[ty, tx] = 0
            sb[ty, tx] = 0
            if y < a.shape[0] and t * tile + tx < a.shape[1]:
                sa[ty, tx] = a[y, t * tile + tx]
            if x < b.shape[1] and t * tile + ty < b.shape[0]:
                sb[ty, tx] = b[t * tile + ty, x]
            cuda.syncthreads()
            for j in range(tile):
                acc += sa[ty, j] * sb[j, tx]
            cuda.syncthreads()
        if y < c.shape[0] and x < c.shape[1]:
            c[y, x] = acc

    s = 4096
    rng = np.random.default_rng(1)
    a = cuda.to_device(rng.standard_normal((s, s), dtype=np.float32))
    b = cuda.to_device(rng.standard_normal((s, s), dtype=np.float32))
    c = cuda.device_array((s, s), dtype=np.float32)
    grid = (s // tile, s // tile)
    tiled[grid, (tile, tile)](a, b, c)
    cuda.synchronize()
    times = []
    for _ in range(3):
        start, end = cuda.event(), cuda.event()
        start.record()
        for _ in range(3):
            tiled[grid, (tile, tile)](a, b, c)
        end.record()
        end.synchronize()
        times.append(cuda.event_elapsed_time(start, end) / 3)
    ms = sorted(times)[len(times) // 2]
    print(f"numba_fast_matmul_gflops {2 * s ** 3 / (ms * 1e-3) / 1e9:.0f}")
    numba_rng()


def numba_rng():
    """Numba's documented compute_pi: two xoroshiro128+ uniform draws per point, 2^20
    threads x 1024 points, as `gpu-bench rng` runs ours."""
    from numba import cuda
    from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

    @cuda.jit
    def compute_pi(rng_states, iterations, out):
        thread_id = cuda.grid(1)
        inside = 0
        for i in range(iterations):
            x = xoroshiro128p_uniform_float32(rng_states, thread_id)
            y = xoroshiro128p_uniform_float32(rng_states, thread_id)
            if x**2 + y**2 <= 1.0:
                inside += 1
        out[thread_id] = 4.0 * inside / iterations

    threads, iterations = 1 << 20, 1024
    states = create_xoroshiro128p_states(threads, seed=1)
    out = cuda.device_array(threads, dtype=np.float32)
    compute_pi[threads // 256, 256](states, iterations, out)
    cuda.synchronize()
    times = []
    for _ in range(5):
        start, end = cuda.event(), cuda.event()
        start.record()
        for _ in range(3):
            compute_pi[threads // 256, 256](states, iterations, out)
        end.record()
        end.synchronize()
        times.append(cuda.event_elapsed_time(start, end) / 3)
    ms = sorted(times)[len(times) // 2]
    print(f"numba_xoroshiro_pi_ms {ms:.3f}")
    print(f"numba_xoroshiro_gsamples {2 * threads * iterations / (ms * 1e-3) / 1e9:.1f}")


if __name__ == "__main__":
    for which in sys.argv[1:] or ["cupy", "numba"]:
        try:
            {"cupy": cupy_peers, "numba": numba_peers}[which]()
        except Exception as exc:  # report and go on: the other peer may still run
            print(which, "FAILED", type(exc).__name__, exc)
