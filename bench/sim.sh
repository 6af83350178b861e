#!/usr/bin/env bash
# P9, the CPU simulator's speed, on this machine (no GPU needed): `sim-bench` (ours) and
# Numba's CUDA simulator on the same kernel in one run, then a table. Needs numba
# (`pip install numba`) for the comparison; without it only our figures are printed.
# Usage: bench/sim.sh  (from the repository root; builds sim-bench in release mode)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p gpu-bench --bin sim-bench
out=$(mktemp)
echo "# $(nproc) cores; order: ours small -> Numba CUDASIM small -> ours small -> ours large"
target/release/sim-bench small | sed 's/^/run1_/' | tee -a "$out"
if python3 -c 'import numba' 2> /dev/null; then
  python3 bench/sim_peer.py --repeat 3 | tee -a "$out"
else
  echo "# numba is not installed: no comparison (pip install numba)"
fi
target/release/sim-bench small | sed 's/^/run2_/' | tee -a "$out"
target/release/sim-bench large | tee -a "$out"
python3 - "$out" <<'PY'
import sys
v = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 2:
        v[parts[0]] = float(parts[1])
ours = sorted([v["run1_ours_sim_matmul_100x77x55_s"], v["run2_ours_sim_matmul_100x77x55_s"]])[0]
large = v["ours_sim_matmul_1000x777x555_s"]
print()
print("| row | figure | target | met |")
print("|---|---|---|---|")
print(f"| P9 matmul 1000x777x555 | {large:.2f} s | <= 20 s | {'yes' if large <= 20 else 'NO'} |")
numba = v.get("numba_cudasim_matmul_100x77x55_s")
if numba:
    r = numba / ours
    print(f"| P9 matmul 100x77x55 vs Numba CUDASIM | {ours*1e3:.1f} ms vs {numba:.2f} s = {r:.0f}x | >= 300x | {'yes' if r >= 300 else 'NO'} |")
s = max(v["run1_ours_sim_sum_70000_s"], v["run2_ours_sim_sum_70000_s"])
print(f"| sum of 70,000 (two passes, shuffles) | {s*1e3:.1f} ms | (12.5 s before) | |")
PY
