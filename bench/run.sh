#!/usr/bin/env bash
# Benchmarks on the GPU machine (copied into target/gpu-bundle by scripts/gpu-bundle).
# Prints `name value` lines, then a table of the targets. Order within the run is fixed
# and stated, since the first NVRTC call in a process depends on the page cache.
cd "$(dirname "$0")"
set -u
out=${OUT:-/tmp}/bench-raw.txt
: > "$out"
note() { echo "$*" | tee -a "$out"; }

cold1=$(mktemp -d); cold2=$(mktemp -d)
# On a freshly started machine the first process to load NVRTC (about 100 MB) pays for
# reading it from disk; read every copy once first, so neither side pays it.
for f in /usr/local/cuda/lib64/libnvrtc*.so* $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null | xargs -n1 -I{} sh -c 'ls {}/nvidia/cu13/lib/libnvrtc*.so* 2>/dev/null'); do
  cat "$f" > /dev/null 2>&1
done
note "# order: NVRTC files read into the page cache -> gpu-bench cold (empty cache) -> CuPy first call -> gpu-bench cold again -> gpu-bench warm x3"
GPU_RUNTIME_CACHE_DIR=$cold1 ./gpu-bench first-launch | sed 's/^/ours_cold1_/' | tee -a "$out"
if [ -f peers.py ]; then
  PYTHONUNBUFFERED=1 python3 peers.py cupy 2>&1 | tee -a "$out"
fi
GPU_RUNTIME_CACHE_DIR=$cold2 ./gpu-bench first-launch | sed 's/^/ours_cold2_/' | tee -a "$out"
for i in 1 2 3; do
  GPU_RUNTIME_CACHE_DIR=$cold1 ./gpu-bench first-launch | sed "s/^/ours_warm${i}_/" | tee -a "$out"
done
GPU_RUNTIME_CACHE_DIR=$cold1 ./gpu-bench first-launch-phases | tee -a "$out"
./gpu-bench launch-overhead | tee -a "$out"
./gpu-bench bandwidth | tee -a "$out"
./gpu-bench matmul | tee -a "$out"
./gpu-bench tc-gemm | tee -a "$out"
if [ -f peers_tc.py ]; then
  PYTHONUNBUFFERED=1 python3 peers_tc.py 2>&1 | grep -E '^torch_' | tee -a "$out"
fi
./gpu-bench reduce | tee -a "$out"
./gpu-bench check-cost | tee -a "$out"
./gpu-bench rng | tee -a "$out"
./gpu-bench graph | tee -a "$out"
./gpu-bench allreduce | tee -a "$out"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -ge 2 ] && [ -f peers_allreduce.py ]; then
  NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
    torchrun --nproc_per_node "$gpus" peers_allreduce.py torch 2>&1 | grep -E '^torch_' | tee -a "$out"
  python3 peers_allreduce.py cupy 2>&1 | tee -a "$out"
fi
if [ -f peers_extra.py ]; then
  PYTHONUNBUFFERED=1 python3 peers_extra.py cupy 2>&1 | tee -a "$out"
  # Numba 0.68 needs numpy < 2.5: a numpy 2.4 wheel travels in ../../.whl when present.
  if ls ../../.whl/numpy-2.4*.whl > /dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/np24 ../../.whl/numpy-2.4*.whl > /dev/null 2>&1
    PYTHONPATH=/tmp/np24 PYTHONUNBUFFERED=1 python3 peers_extra.py numba 2>&1 | tee -a "$out"
    PYTHONPATH=/tmp/np24 PYTHONUNBUFFERED=1 python3 peers.py numba 2>&1 | tee -a "$out"
  fi
fi
cub=$(mktemp -d)
./gpu-bench cubins "$cub" > /dev/null
# Instructions of one function of a CUBIN, NOPs left out.
sass_count() { cuobjdump -sass -fun "$2" "$1" | grep -E '^\s+/\*[0-9a-f]{4}\*/' | grep -vc 'NOP'; }
for k in vec_add saxpy; do
  # Ours: the main entry (its fast path's checks left out), the fully checked entry,
  # and the same kernel declared `unchecked`; the hand-written CUDA C.
  note "sass_ours_$k $(sass_count "$cub/ours_$k.cubin" "$k")"
  note "sass_ours_checked_$k $(sass_count "$cub/ours_$k.cubin" "gt_checked_$k")"
  note "sass_ours_unchecked_$k $(sass_count "$cub/ours_unchecked_$k.cubin" "${k}_unchecked")"
  note "sass_hand_$k $(sass_count "$cub/hand_$k.cubin" "hand_${k}_restrict")"
done
if [ -n "${OUT:-}" ]; then
  for f in "$cub"/*.cubin; do echo "### $(basename "$f")"; cuobjdump -sass "$f"; done > "$OUT/sass.txt" 2>&1
fi

get() { awk -v k="$1" '$1 == k { print $2 }' "$out" | tail -n1; }
cupy_first=$(grep -o 'cupy_rawkernel_first_call_ms [0-9.]*' "$out" | awk '{print $2}' | tail -n1)
c1=$(get ours_cold1_first_launch_ms); c2=$(get ours_cold2_first_launch_ms)
w=$(for i in 1 2 3; do get ours_warm${i}_first_launch_ms; done | sort -n | sed -n 2p)
r1=$(get launch_ratio_1arg); r3=$(get launch_ratio_3arrays)
echo
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
echo "=== benchmark summary (${gpu_name:-no GPU found by nvidia-smi}; ratios measured in this run)"
printf '%-4s %-58s %-12s %s\n' id what target measured
printf '%-4s %-58s %-12s %s\n' P1 "typed launch / cuLaunchKernel, 1 array" "<= 1.05" "$r1 ($(get launch_us_typed_1arg) vs $(get launch_us_raw_1arg) us)"
printf '%-4s %-58s %-12s %s\n' P1 "typed launch / cuLaunchKernel, 3 arrays" "<= 1.05" "$r3 ($(get launch_us_typed_3arrays) vs $(get launch_us_raw_3arrays) us)"
cupy_second=$(grep -o 'cupy_rawkernel_second_kernel_first_call_ms [0-9.]*' "$out" | awk '{print $2}' | tail -n1)
s1=$(get ours_cold1_second_kernel_first_launch_ms); s2=$(get ours_cold2_second_kernel_first_launch_ms)
if [ -n "$cupy_first" ]; then
  printf '%-4s %-58s %-12s %s\n' P4a "first launch, empty cache / CuPy RawKernel first call" "<= 0.3" \
    "$(awk -v a="$c1" -v c="$c2" -v b="$cupy_first" 'BEGIN{printf "%.2f", (a + c) / 2 / b}') (mean of $c1 ms before CuPy and $c2 ms after; CuPy $cupy_first ms)"
fi
if [ -n "$cupy_second" ]; then
  printf '%-4s %-58s %-12s %s\n' P4b "a second kernel's first launch / CuPy's second kernel" "<= 0.4" \
    "$(awk -v a="$s1" -v c="$s2" -v b="$cupy_second" 'BEGIN{printf "%.2f", (a + c) / 2 / b}') (mean of $s1 and $s2 ms; CuPy $cupy_second ms)"
fi
printf '%-4s %-58s %-12s %s\n' P2 "vec_add 2^28 f32, forall / hand-written CUDA C (same NVRTC)" ">= 0.99" "$(get vec_add_forall_vs_hand) ($(get vec_add_forall_gbps) vs $(get vec_add_hand_gbps) GB/s; explicit 256: $(get vec_add_256_gbps); hand __restrict__: $(get vec_add_hand_restrict_gbps))"
nm=$(get numba_fast_matmul_gflops); cb=$(get cublas_sgemm_gflops); cs=$(get cupy_sum_gbps)
tm=$(get matmul_tiled_gflops); rg=$(get sgemm_registers_gflops); rd=$(get reduce_gbps)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
printf '%-4s %-58s %-12s %s\n' P6 "tiled matmul 4096^3 f32 / Numba fast_matmul" ">= 1.1" "$(ratio "$tm" "$nm") ($tm vs ${nm:-n/a} GFLOP/s)"
vg=$(get sgemm_vectors_gflops)
printf '%-4s %-58s %-12s %s\n' P6b "SGEMM in our language (shared load4, 2 buffers) / cuBLAS" ">= 0.75" "$(ratio "$vg" "$cb") ($vg vs ${cb:-n/a} GFLOP/s; scalar shared reads, 1 buffer: $rg)"
for s in 4096 8192; do
  for d in bf16 f16 tf32; do
    ot=$(get tc_gemm_piped_${d}_${s}_tflops); tt=$(get torch_${d}_${s}_tflops)
    printf '%-4s %-58s %-12s %s\n' P13 "mma.sync GEMM ${s}^3 $d, 2 buffers (ours) / torch.matmul" "-" "$(ratio "$ot" "$tt") ($ot vs ${tt:-n/a} TFLOP/s; 1 buffer: $(get tc_gemm_${d}_${s}_tflops))"
  done
done
printf '%-4s %-58s %-12s %s\n' P7 "sum 2^28 f32 / cp.sum" ">= 1.0" "$(ratio "$rd" "$cs") ($rd vs ${cs:-n/a} GB/s)"
gr=$(get gpu_reduce_gbps)
printf '%-4s %-58s %-12s %s\n' P7b "#[gpu_reduce] sum 2^28 f32 (reduce_into) / cp.sum" ">= 1.0" "$(ratio "$gr" "$cs") ($gr vs ${cs:-n/a} GB/s; its two kernels without reduce_into's allocation: $(get gpu_reduce_kept_partials_gbps))"
xs=$(get rng_xoroshiro_gsamples); ps=$(get rng_philox_gsamples); ns=$(get numba_xoroshiro_gsamples)
printf '%-4s %-58s %-12s %s\n' RNG "compute_pi xoroshiro128+ samples/s / Numba's same kernel" ">= 1.0" "$(ratio "$xs" "$ns") ($xs vs ${ns:-n/a} Gsamples/s; Philox form: $ps; unchecked hand-written C: $(get rng_hand_unchecked_gsamples))"
go=$(get graph_one_by_one_us); gr10=$(get graph_replay_us); cg=$(get cupy_graph_replay_us)
printf '%-4s %-58s %-12s %s\n' P10 "100 tiny launches: one by one / one graph replay" ">= 3" "$(get graph_speedup) ($go vs $gr10 us)"
printf '%-4s %-58s %-12s %s\n' P10 "graph replay: CuPy's / ours (100 tiny launches)" ">= 1.0" "$(ratio "$cg" "$gr10") (${cg:-n/a} vs $gr10 us; CuPy one by one $(get cupy_graph_one_by_one_us) us)"
if [ -n "$(get p12_skipped)" ]; then
  printf '%-4s %-58s %-12s %s\n' P12 "all_reduce 256 MB f32 busbw / torch.distributed (NCCL)" ">= 0.95" "not measured: $(grep '^p12_skipped' "$out" | cut -d' ' -f2-)"
else
  ab=$(get all_reduce_busbw_gbps); tb=$(get torch_all_reduce_busbw_gbps)
  pc=$(get peer_copy_gbps); cpc=$(get cupy_peer_copy_gbps)
  printf '%-4s %-58s %-12s %s\n' P12 "all_reduce 256 MB f32 busbw / torch.distributed (NCCL)" ">= 0.95" "$(ratio "$ab" "$tb") ($ab vs ${tb:-n/a} GB/s, $(get gpus) GPUs)"
  printf '%-4s %-58s %-12s %s\n' P12 "peer copy 256 MB GPU0->GPU1 / CuPy cudaMemcpyPeer" ">= 0.95" "$(ratio "$pc" "$cpc") ($pc vs ${cpc:-n/a} GB/s; peer access $(get peer_access))"
fi
printf '%-4s %-58s %-12s %s\n' P3 "vec_add with load4/store4 / hand-written float4 CUDA C" ">= 0.97" "$(get vec_add4_vs_hand) ($(get vec_add4_gbps) vs $(get vec_add4_hand_gbps) GB/s)"
printf '%-4s %-58s %-12s %s\n' P5 "first launch, fresh process, warm cache (median of 3)" "<= 0.3 ms" "$w ms (context $(get ours_warm1_context_ms) ms, not counted; apart: cache read $(get phase_cache_read_ms), again $(get phase_cache_read_again_ms), load $(get phase_load_ms), launch $(get phase_launch_ms) ms)"
printf '%-4s %-58s %-12s %s\n' P8 "SASS instructions (no NOP), vec_add ours / hand" "equal" "$(get sass_ours_vec_add) / $(get sass_hand_vec_add)"
printf '%-4s %-58s %-12s %s\n' P8 "SASS instructions (no NOP), saxpy ours / hand" "equal" "$(get sass_ours_saxpy) / $(get sass_hand_saxpy)"
for k in vec_add saxpy vec_add4 reduce matmul_tiled sgemm; do
  ms=$(awk -v k="check_cost_${k}_ms" '$1 == k { print $2 " vs " $3 " ms" }' "$out" | tail -n1)
  printf '%-4s %-58s %-12s %s\n' P11 "$k checked / unchecked (speed)" ">= 0.98" "$(get check_cost_$k) ($ms)"
done
for k in vec_add saxpy; do
  printf '%-4s %-58s %-12s %s\n' P11 "SASS $k: main entry / checked entry / unchecked" "-" "$(get sass_ours_$k) / $(get sass_ours_checked_$k) / $(get sass_ours_unchecked_$k)"
done
