"""P12's peers: all_reduce bus bandwidth of 256 MB of f32 with torch.distributed (NCCL),
one process per GPU (run it with `torchrun --nproc_per_node N peers_allreduce.py torch`),
and the peer-copy bandwidth of CuPy's cudaMemcpyPeer between GPUs 0 and 1
(`python3 peers_allreduce.py cupy`). Prints `name value` lines, as gpu-bench does.

Bus bandwidth as nccl-tests defines it: bytes * 2 (n - 1) / n / time, the median of 20
timed calls after 5 warm-up calls.
"""
import os
import statistics
import sys
import time

BYTES = 256 << 20


def torch_all_reduce():
    import torch
    import torch.distributed as dist

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    x = torch.ones(BYTES // 4, dtype=torch.float32, device="cuda")
    for _ in range(5):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        dist.barrier()
        torch.cuda.synchronize()
        t = time.perf_counter()
        dist.all_reduce(x)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    s = statistics.median(times)
    if rank == 0:
        busbw = BYTES * 2 * (world - 1) / world / s / 1e9
        print(f"torch_all_reduce_busbw_gbps {busbw:.1f}")
        print(f"torch_all_reduce_ms {s * 1e3:.3f}")
    dist.destroy_process_group()


def cupy_peer_copy():
    import cupy as cp

    with cp.cuda.Device(0):
        a = cp.ones(BYTES // 4, dtype=cp.float32)
    with cp.cuda.Device(1):
        b = cp.zeros(BYTES // 4, dtype=cp.float32)
    times = []
    for i in range(25):
        cp.cuda.Device(0).synchronize()
        cp.cuda.Device(1).synchronize()
        t = time.perf_counter()
        cp.cuda.runtime.memcpyPeer(b.data.ptr, 1, a.data.ptr, 0, BYTES)
        cp.cuda.Device(1).synchronize()
        if i >= 5:
            times.append(time.perf_counter() - t)
    print(f"cupy_peer_copy_gbps {BYTES / statistics.median(times) / 1e9:.1f}")


if __name__ == "__main__":
    {"torch": torch_all_reduce, "cupy": cupy_peer_copy}[sys.argv[1]]()
