// Tensor cores (sm_80 and later): mma.sync m16n8k16 on 16-bit operands with f32
// accumulators, fed from shared tiles by ldmatrix, and copy_tile's block-wide masked copies
// into shared tiles. Inline PTX only: NVRTC ships no mma.h. The accumulator's layout over
// warps and lanes is gpu_contract::mma's (WM x WN warps, 16 x 8 fragments, four floats a
// lane); operand tiles are row-major with LD elements a row (their width plus padding).
static __device__ __forceinline__ unsigned gt_block_thread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
static __device__ __forceinline__ unsigned gt_smem(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
static __device__ __forceinline__ void gt_ldsm_x4(unsigned* r, unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
static __device__ __forceinline__ void gt_ldsm_x4_trans(unsigned* r, unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
static __device__ __forceinline__ void gt_mma_16816(float* d, const unsigned* a, const unsigned* b, gt_bf16) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
static __device__ __forceinline__ void gt_mma_16816(float* d, const unsigned* a, const unsigned* b, gt_f16) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// acc += sa (BM x BK, row stride LDA) * sb (BK x BN, row stride LDB): every warp of the
// block computes its WM x WN part, k16 step by k16 step. Needs the block's WM * WN warps
// whole (the launch checks the block size) and the tiles 16-byte aligned.
template <class T, int BM, int BN, int BK, int WM, int WN, int LDA, int LDB>
static __device__ __forceinline__ void gt_mma(float* acc, const T* sa, const T* sb) {
  constexpr int TM = BM / WM, TN = BN / WN, FM = TM / 16, FN = TN / 8;
  static_assert(BK % 16 == 0, "mma: the operands' depth is a multiple of 16");
  const unsigned tid = gt_block_thread();
  const unsigned lane = tid % 32u, warp = tid / 32u;
  const unsigned wm = warp / WN, wn = warp % WN;
  const unsigned a0 = gt_smem(sa), b0 = gt_smem(sb);
#pragma unroll
  for (int kk = 0; kk < BK; kk += 16) {
    unsigned a[FM][4];
    unsigned b[FN][2];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
      const unsigned r = wm * TM + i * 16 + (lane & 15u), c = kk + (lane >> 4) * 8u;
      gt_ldsm_x4(a[i], a0 + (r * LDA + c) * 2u);
    }
#pragma unroll
    for (int j = 0; j < FN; j += 2) {
      const unsigned r = kk + (lane & 15u), c = wn * TN + j * 8 + (lane >> 4) * 8u;
      unsigned q[4];
      gt_ldsm_x4_trans(q, b0 + (r * LDB + c) * 2u);
      b[j][0] = q[0]; b[j][1] = q[1]; b[j + 1][0] = q[2]; b[j + 1][1] = q[3];
    }
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j) gt_mma_16816(acc + (i * FN + j) * 4, a[i], b[j], T());
  }
}
// f32 operands through tf32 (m16n8k8): each value rounded to tf32 (to nearest, ties away
// from zero), as cvt.rna does. A's fragments come by ldmatrix (each 16-byte row piece is
// four f32s, so its b16 layout is the tf32 one), B's element by element.
static __device__ __forceinline__ unsigned gt_tf32(unsigned bits) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(__uint_as_float(bits)));
  return r;
}
static __device__ __forceinline__ void gt_mma_1688(float* d, const unsigned* a, const unsigned* b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <class T, int BM, int BN, int BK, int WM, int WN, int LDA, int LDB>
static __device__ __forceinline__ void gt_mma_tf32(float* acc, const float* sa, const float* sb) {
  constexpr int TM = BM / WM, TN = BN / WN, FM = TM / 16, FN = TN / 8;
  static_assert(BK % 8 == 0, "mma_tf32: the operands' depth is a multiple of 8");
  const unsigned tid = gt_block_thread();
  const unsigned lane = tid % 32u, warp = tid / 32u;
  const unsigned wm = warp / WN, wn = warp % WN, g = lane >> 2, t = lane & 3u;
  const unsigned a0 = gt_smem(sa);
#pragma unroll
  for (int kk = 0; kk < BK; kk += 8) {
    unsigned a[FM][4];
    unsigned b[FN][2];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
      const unsigned r = wm * TM + i * 16 + (lane & 15u), c = kk + (lane >> 4) * 4u;
      gt_ldsm_x4(a[i], a0 + (r * LDA + c) * 4u);
#pragma unroll
      for (int q = 0; q < 4; ++q) a[i][q] = gt_tf32(a[i][q]);
    }
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      const unsigned n = wn * TN + j * 8 + g;
      b[j][0] = gt_tf32(__float_as_uint(sb[(kk + t) * LDB + n]));
      b[j][1] = gt_tf32(__float_as_uint(sb[(kk + t + 4) * LDB + n]));
    }
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j) gt_mma_1688(acc + (i * FN + j) * 4, a[i], b[j]);
  }
}
// The row and column of element e of this thread's part of a BM x BN accumulator.
template <int BM, int BN, int WM, int WN>
static __device__ __forceinline__ unsigned long long gt_mma_row(unsigned long long e) {
  constexpr int FN = BN / WN / 8;
  const unsigned tid = gt_block_thread(), lane = tid % 32u, wm = (tid / 32u) / WN;
  return wm * (BM / WM) + (e / 4 / FN) * 16 + lane / 4 + ((e % 4) / 2) * 8;
}
template <int BM, int BN, int WM, int WN>
static __device__ __forceinline__ unsigned long long gt_mma_col(unsigned long long e) {
  constexpr int FN = BN / WN / 8;
  const unsigned tid = gt_block_thread(), lane = tid % 32u, wn = (tid / 32u) % WN;
  return wn * (BN / WN) + (e / 4 % FN) * 8 + 2 * (lane % 4) + e % 2;
}
// One 16-byte piece: copied now, or (ASYNC) by cp.async, whose bytes arrive by the
// thread's next cp.async.wait_group; a piece wholly past the matrix's edge is zero-filled
// by the copy reading no byte (src-size 0).
template <bool ASYNC>
static __device__ __forceinline__ void gt_copy16(void* d, const void* s, bool inside) {
#if __CUDA_ARCH__ >= 800
  if (ASYNC) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(gt_smem(d)), "l"(s),
                 "r"(inside ? 16 : 0)
                 : "memory");
    return;
  }
#endif
  // Before sm_80 (no cp.async) an asynchronous copy is made at once.
  *(uint4*)d = inside ? *(const uint4*)s : make_uint4(0u, 0u, 0u, 0u);
}
// dst (R x C, row stride LD) = src[r0.., c0..] of a rows x cols row-major array, elements
// past its edge zero; the block's threads share the work. 16-byte pieces go whole where
// they are inside the array and aligned (or wholly outside it), else element by element.
// ASYNC: the whole pieces by cp.async, committed as one group of this thread's.
template <class T, int R, int C, int LD, bool ASYNC = false>
static __device__ __forceinline__ void gt_copy_tile(T* dst, const T* src, unsigned long long rows,
                                                    unsigned long long cols, unsigned long long r0,
                                                    unsigned long long c0) {
  const unsigned tid = gt_block_thread(), threads = blockDim.x * blockDim.y * blockDim.z;
  // Rows and columns left from (r0, c0); 0 past the edge (no wrap-around).
  const unsigned long long rows_left = r0 < rows ? rows - r0 : 0ull;
  const unsigned long long cols_left = c0 < cols ? cols - c0 : 0ull;
  constexpr int V = 16 / sizeof(T);
  if (C % V == 0) {
    const bool aligned = (((unsigned long long)src | (cols * sizeof(T))) & 15ull) == 0ull &&
                         (c0 % V) == 0ull;
    for (unsigned idx = tid; idx < (unsigned)(R * (C / V)); idx += threads) {
      const unsigned r = idx / (C / V), c = (idx % (C / V)) * V;
      T* d = dst + r * LD + c;
      if (aligned && r < rows_left && c + V <= cols_left) {
        gt_copy16<ASYNC>(d, src + (r0 + r) * cols + c0 + c, true);
      } else if (r >= rows_left || c >= cols_left) {
        gt_copy16<ASYNC>(d, src, false);
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v)
          d[v] = (r < rows_left && c + v < cols_left) ? src[(r0 + r) * cols + c0 + c + v] : T(0);
      }
    }
  } else {
    for (unsigned idx = tid; idx < (unsigned)(R * C); idx += threads) {
      const unsigned r = idx / C, c = idx % C;
      dst[r * LD + c] = (r < rows_left && c < cols_left) ? src[(r0 + r) * cols + c0 + c] : T(0);
    }
  }
#if __CUDA_ARCH__ >= 800
  if (ASYNC) asm volatile("cp.async.commit_group;");
#endif
}
// Wait until at most N of this thread's asynchronous tile copies are still in flight.
template <int N>
static __device__ __forceinline__ void gt_wait_tiles() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}
