"""torch.matmul at 4096^3 and 8192^3 in bf16 and f16 (f16/bf16 out, f32 accumulate inside
cuBLAS) and f32 with TF32 allowed, the peer of `gpu-bench tc-gemm`: random inputs, median of 5 interleaved repetitions of
event-timed batches. Prints `torch_<dtype>_<size>_tflops <value>` lines."""
import statistics

import torch


def main():
    print("device", torch.cuda.get_device_name(0))
    for s in (4096, 8192):
        flops = 2.0 * s ** 3
        mats = {}
        torch.backends.cuda.matmul.allow_tf32 = True
        for name, dt in (("bf16", torch.bfloat16), ("f16", torch.float16), ("tf32", torch.float32)):
            a = torch.randn(s, s, device="cuda").to(dt)
            b = torch.randn(s, s, device="cuda").to(dt)
            ref = a.double() @ b.double()
            got = (a @ b).double()
            assert (got - ref).abs().max().item() < 0.05 * ref.abs().max().item(), name
            mats[name] = (a, b)
        times = {name: [] for name in mats}
        for _ in range(5):
            for name, (a, b) in mats.items():
                for _ in range(3):
                    torch.matmul(a, b)
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(10):
                    torch.matmul(a, b)
                end.record()
                end.synchronize()
                times[name].append(start.elapsed_time(end) / 10)
        for name, t in times.items():
            ms = statistics.median(t)
            print(f"torch_{name}_{s}_tflops {flops / (ms * 1e-3) / 1e12:.1f}")


if __name__ == "__main__":
    main()
