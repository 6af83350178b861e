#!/usr/bin/env bash
# P1's host side without a GPU: the instructions one typed launch executes in our code,
# counted by valgrind's callgrind against fake_libcuda.c, a stand-in for libcuda.so.1 that
# accepts every call and runs nothing. Counts are exact and repeatable, unlike timings on
# a lent machine, so a change to the launch path can be measured here before the H200.
#
#   bench/host_cost/run.sh            # prints instructions per launch, 1 array and 3
#   bench/host_cost/run.sh annotate   # and the hot instructions of the launch path
#
# Needs valgrind, a C compiler, and NVRTC (scripts/test installs one into target/nvrtc).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=target/host_cost
mkdir -p "$work/lib"
cc -O2 -shared -fPIC -o "$work/lib/libcuda.so.1" bench/host_cost/fake_libcuda.c
ln -sf libcuda.so.1 "$work/lib/libcuda.so"
CARGO_PROFILE_RELEASE_DEBUG=line-tables-only CARGO_PROFILE_RELEASE_STRIP=false \
  CARGO_TARGET_DIR="$work/build" cargo build --release -p gpu-bench --quiet
bin="$work/build/release/gpu-bench"
nvrtc_lib=${GPU_RUNTIME_NVRTC:-$PWD/target/nvrtc/nvidia/cu13/lib/libnvrtc.so.13}
[ -f "$nvrtc_lib" ] || { echo "host_cost: no NVRTC at $nvrtc_lib (run scripts/test once)" >&2; exit 1; }
export GPU_RUNTIME_NVRTC="$nvrtc_lib" GPU_RUNTIME_CACHE_DIR="$work/cache"
export LD_LIBRARY_PATH="$PWD/$work/lib:$(dirname "$nvrtc_lib")"
# Once outside valgrind, so the counted first launches read the disk cache, not NVRTC.
"$bin" launch-overhead >/dev/null
# The benchmark launches each kernel 400 x 200 times, and once before.
launches=80001
for k in tiny vec_add; do
  out="$work/callgrind.$k"
  valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$out" \
    --toggle-collect="gpu_bench::kernels::$k" "$bin" launch-overhead >/dev/null 2>&1
  total=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  echo "host_instructions_per_launch_$k $((total / launches))"
  if [ "${1:-}" = annotate ]; then
    python3 bench/host_cost/annotate.py "$out" "$bin" "gpu_runtime::private::launch_cuda" "$launches"
  fi
done
