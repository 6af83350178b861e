# The design of sgemm_vectors (bench/src/kernels.rs) as hand-written CUDA C, before it was
# written in the language: variants A (scalar shared reads) to D (16-deep tiles), each
# timed against cuBLAS (CuPy's matmul) at 4096^3 f32 in one run. On the H200 (2026-12-04):
# cuBLAS 51, A 28, B 37, C 47, D 32 TFLOP/s. Run where CuPy is: python3 bench/sgemm_prototype.py
import cupy as cp, numpy as np, sys
S = 4096
common = r'''
extern "C" __global__ void __launch_bounds__(256) VARIANT(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, unsigned long long m, unsigned long long k, unsigned long long n) {
'''
# A: scalar LDS, one buffer (today's kernel)
A = r'''
  __shared__ __align__(16) float sa[8*128]; __shared__ __align__(16) float sb[8*128];
  int tid = threadIdx.x; size_t row0 = blockIdx.y*128, col0 = blockIdx.x*128;
  int ty = tid/16, tx = tid%16; float acc[8][8] = {}; float ra[8], rb[8];
  int a_row = tid/2, a_col = (tid%2)*4, b_row = tid/32, b_col = (tid%32)*4;
  for (size_t k0 = 0; k0 < k; k0 += 8) {
    for (int q = 0; q < 4; q++) { sa[(a_col+q)*128 + a_row] = a[(row0+a_row)*k + k0+a_col+q]; sb[b_row*128 + b_col+q] = b[(k0+b_row)*n + col0+b_col+q]; }
    __syncthreads();
    #pragma unroll
    for (int kk = 0; kk < 8; kk++) {
      for (int i = 0; i < 8; i++) ra[i] = sa[kk*128 + ty + 16*i];
      for (int j = 0; j < 8; j++) rb[j] = sb[kk*128 + tx + 16*j];
      for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) acc[i][j] += ra[i]*rb[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) c[(row0+ty+16*i)*n + col0+tx+16*j] = acc[i][j];
}'''
# B: float4 global loads and float4 LDS, one buffer
B = r'''
  __shared__ __align__(16) float sa[8*128]; __shared__ __align__(16) float sb[8*128];
  int tid = threadIdx.x; size_t row0 = blockIdx.y*128, col0 = blockIdx.x*128;
  int ty = tid/16, tx = tid%16; float acc[8][8] = {}; float ra[8], rb[8];
  int a_row = tid/2, a_col = (tid%2)*4, b_row = tid/32, b_col = (tid%32)*4;
  for (size_t k0 = 0; k0 < k; k0 += 8) {
    float4 va = *(const float4*)&a[(row0+a_row)*k + k0+a_col];
    float4 vb = *(const float4*)&b[(k0+b_row)*n + col0+b_col];
    sa[(a_col+0)*128 + a_row] = va.x; sa[(a_col+1)*128 + a_row] = va.y; sa[(a_col+2)*128 + a_row] = va.z; sa[(a_col+3)*128 + a_row] = va.w;
    *(float4*)&sb[b_row*128 + b_col] = vb;
    __syncthreads();
    #pragma unroll
    for (int kk = 0; kk < 8; kk++) {
      float4 x0 = *(float4*)&sa[kk*128 + ty*4], x1 = *(float4*)&sa[kk*128 + 64 + ty*4];
      float4 y0 = *(float4*)&sb[kk*128 + tx*4], y1 = *(float4*)&sb[kk*128 + 64 + tx*4];
      ra[0]=x0.x;ra[1]=x0.y;ra[2]=x0.z;ra[3]=x0.w;ra[4]=x1.x;ra[5]=x1.y;ra[6]=x1.z;ra[7]=x1.w;
      rb[0]=y0.x;rb[1]=y0.y;rb[2]=y0.z;rb[3]=y0.w;rb[4]=y1.x;rb[5]=y1.y;rb[6]=y1.z;rb[7]=y1.w;
      for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) acc[i][j] += ra[i]*rb[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 8; i++) { size_t r = row0 + (i<4 ? ty*4+i : 64+ty*4+i-4);
    *(float4*)&c[r*n + col0 + tx*4] = make_float4(acc[i][0],acc[i][1],acc[i][2],acc[i][3]);
    *(float4*)&c[r*n + col0 + 64 + tx*4] = make_float4(acc[i][4],acc[i][5],acc[i][6],acc[i][7]); }
}'''
# C: B + double buffering through registers
C = r'''
  __shared__ __align__(16) float sa[2*8*128]; __shared__ __align__(16) float sb[2*8*128];
  int tid = threadIdx.x; size_t row0 = blockIdx.y*128, col0 = blockIdx.x*128;
  int ty = tid/16, tx = tid%16; float acc[8][8] = {}; float ra[8], rb[8];
  int a_row = tid/2, a_col = (tid%2)*4, b_row = tid/32, b_col = (tid%32)*4;
  float4 va = *(const float4*)&a[(row0+a_row)*k + a_col];
  float4 vb = *(const float4*)&b[(b_row)*n + col0+b_col];
  sa[(a_col+0)*128 + a_row] = va.x; sa[(a_col+1)*128 + a_row] = va.y; sa[(a_col+2)*128 + a_row] = va.z; sa[(a_col+3)*128 + a_row] = va.w;
  *(float4*)&sb[b_row*128 + b_col] = vb;
  __syncthreads();
  int cur = 0;
  for (size_t k0 = 0; k0 < k; k0 += 8) {
    bool more = k0 + 8 < k;
    if (more) { va = *(const float4*)&a[(row0+a_row)*k + k0+8+a_col]; vb = *(const float4*)&b[(k0+8+b_row)*n + col0+b_col]; }
    #pragma unroll
    for (int kk = 0; kk < 8; kk++) {
      float4 x0 = *(float4*)&sa[cur*1024 + kk*128 + ty*4], x1 = *(float4*)&sa[cur*1024 + kk*128 + 64 + ty*4];
      float4 y0 = *(float4*)&sb[cur*1024 + kk*128 + tx*4], y1 = *(float4*)&sb[cur*1024 + kk*128 + 64 + tx*4];
      ra[0]=x0.x;ra[1]=x0.y;ra[2]=x0.z;ra[3]=x0.w;ra[4]=x1.x;ra[5]=x1.y;ra[6]=x1.z;ra[7]=x1.w;
      rb[0]=y0.x;rb[1]=y0.y;rb[2]=y0.z;rb[3]=y0.w;rb[4]=y1.x;rb[5]=y1.y;rb[6]=y1.z;rb[7]=y1.w;
      for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) acc[i][j] += ra[i]*rb[j];
    }
    if (more) { int nx = 1 - cur;
      sa[nx*1024 + (a_col+0)*128 + a_row] = va.x; sa[nx*1024 + (a_col+1)*128 + a_row] = va.y; sa[nx*1024 + (a_col+2)*128 + a_row] = va.z; sa[nx*1024 + (a_col+3)*128 + a_row] = va.w;
      *(float4*)&sb[nx*1024 + b_row*128 + b_col] = vb; }
    __syncthreads();
    cur = 1 - cur;
  }
  for (int i = 0; i < 8; i++) { size_t r = row0 + (i<4 ? ty*4+i : 64+ty*4+i-4);
    *(float4*)&c[r*n + col0 + tx*4] = make_float4(acc[i][0],acc[i][1],acc[i][2],acc[i][3]);
    *(float4*)&c[r*n + col0 + 64 + tx*4] = make_float4(acc[i][4],acc[i][5],acc[i][6],acc[i][7]); }
}'''
# D: C with BK = 16 (each thread 2 float4 of A and of B per tile)
D = r'''
  __shared__ __align__(16) float sa[2*16*128]; __shared__ __align__(16) float sb[2*16*128];
  int tid = threadIdx.x; size_t row0 = blockIdx.y*128, col0 = blockIdx.x*128;
  int ty = tid/16, tx = tid%16; float acc[8][8] = {}; float ra[8], rb[8];
  int a_row = tid/4, a_col = (tid%4)*4, b_row = tid/32, b_col = (tid%32)*4;
  float4 va0, va1, vb0, vb1;
  va0 = *(const float4*)&a[(row0+a_row)*k + a_col]; va1 = *(const float4*)&a[(row0+a_row+64)*k + a_col];
  vb0 = *(const float4*)&b[(b_row)*n + col0+b_col]; vb1 = *(const float4*)&b[(b_row+8)*n + col0+b_col];
  #define STORE(nx) { float* s = sa + (nx)*2048; s[(a_col+0)*128+a_row]=va0.x; s[(a_col+1)*128+a_row]=va0.y; s[(a_col+2)*128+a_row]=va0.z; s[(a_col+3)*128+a_row]=va0.w; \
     s[(a_col+0)*128+a_row+64]=va1.x; s[(a_col+1)*128+a_row+64]=va1.y; s[(a_col+2)*128+a_row+64]=va1.z; s[(a_col+3)*128+a_row+64]=va1.w; \
     *(float4*)&sb[(nx)*2048 + b_row*128 + b_col] = vb0; *(float4*)&sb[(nx)*2048 + (b_row+8)*128 + b_col] = vb1; }
  STORE(0)
  __syncthreads();
  int cur = 0;
  for (size_t k0 = 0; k0 < k; k0 += 16) {
    bool more = k0 + 16 < k;
    if (more) { va0 = *(const float4*)&a[(row0+a_row)*k + k0+16+a_col]; va1 = *(const float4*)&a[(row0+a_row+64)*k + k0+16+a_col];
      vb0 = *(const float4*)&b[(k0+16+b_row)*n + col0+b_col]; vb1 = *(const float4*)&b[(k0+16+b_row+8)*n + col0+b_col]; }
    #pragma unroll
    for (int kk = 0; kk < 16; kk++) {
      float4 x0 = *(float4*)&sa[cur*2048 + kk*128 + ty*4], x1 = *(float4*)&sa[cur*2048 + kk*128 + 64 + ty*4];
      float4 y0 = *(float4*)&sb[cur*2048 + kk*128 + tx*4], y1 = *(float4*)&sb[cur*2048 + kk*128 + 64 + tx*4];
      ra[0]=x0.x;ra[1]=x0.y;ra[2]=x0.z;ra[3]=x0.w;ra[4]=x1.x;ra[5]=x1.y;ra[6]=x1.z;ra[7]=x1.w;
      rb[0]=y0.x;rb[1]=y0.y;rb[2]=y0.z;rb[3]=y0.w;rb[4]=y1.x;rb[5]=y1.y;rb[6]=y1.z;rb[7]=y1.w;
      for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) acc[i][j] += ra[i]*rb[j];
    }
    if (more) { STORE(1 - cur) }
    __syncthreads();
    cur = 1 - cur;
  }
  for (int i = 0; i < 8; i++) { size_t r = row0 + (i<4 ? ty*4+i : 64+ty*4+i-4);
    *(float4*)&c[r*n + col0 + tx*4] = make_float4(acc[i][0],acc[i][1],acc[i][2],acc[i][3]);
    *(float4*)&c[r*n + col0 + 64 + tx*4] = make_float4(acc[i][4],acc[i][5],acc[i][6],acc[i][7]); }
}'''
a = cp.random.rand(S, S, dtype=cp.float32) - 0.5
b = cp.random.rand(S, S, dtype=cp.float32) - 0.5
ref = a @ b
def timeit(f, reps=10):
    f(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); f(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    ts.sort(); return ts[len(ts)//2]
flop = 2.0 * S**3
for rep in range(2):
    t = timeit(lambda: a @ b); print(f"rep{rep} cublas {flop/t/1e9:.0f} TFLOP/s", flush=True)
    for name, body in [("A", A), ("B", B), ("C", C), ("D", D)]:
        k = cp.RawKernel(common.replace("VARIANT", "sg" + name) + body, "sg" + name, options=("-arch=sm_90",))
        c = cp.full((S, S), cp.nan, dtype=cp.float32)
        f = lambda: k((S // 128, S // 128), (256,), (a, b, c, np.uint64(S), np.uint64(S), np.uint64(S)))
        t = timeit(f)
        err = float(cp.max(cp.abs(c - ref)))
        print(f"rep{rep} {name} {flop/t/1e9:.0f} TFLOP/s regs={k.num_regs} maxerr={err:.2e}", flush=True)
