//! Hand-written CUDA C, compiled through the same NVRTC path as our kernels: the
//! baselines of P2, P3 and P8.

use std::sync::atomic::AtomicU32;

use gpu_runtime::__private::KernelParts;
use gpu_runtime::def::{KernelDef, KernelOptions, ParamDef};

const OPTIONS: KernelOptions = KernelOptions {
    fast_math: false,
    max_registers: None,
    launch_bounds: None,
    line_info: false,
    debug: false,
    fmad: true,
    overflow_checks: false,
    unchecked: true,
};

macro_rules! hand_kernel {
    ($name:ident, $c_name:literal, $source:expr) => {
        pub static $name: KernelDef = {
            static SLOTS: [AtomicU32; 1] = [AtomicU32::new(0)];
            static PARAMS: [ParamDef; 0] = [];
            // SAFETY: these definitions are only compiled, and launched through
            // `cuLaunchKernel` with the C parameters of their own source (no launcher
            // reads `params`).
            unsafe {
                KernelDef::__from_parts(KernelParts {
                    name: $c_name,
                    c_name: $c_name,
                    source: $source,
                    checked_at: $source.len(),
                    check_names: &[],
                    generics: &[],
                    params: &PARAMS,
                    options: OPTIONS,
                    signatures: &[],
                    device_fns: &[],
                    waits: false,
                    cooperative: false,
                    tensor_cores: false,
                    fast_path: &[],
                    fast_path_fn: None,
                    vector_params: &[],
                    signature_slots: &SLOTS,
                    constants: &[],
                    structs: &[],
                    const_params: &[],
                    const_args: &[],
                    instances: None,
                    local_bytes: 0,
                    trait_impls: &[],
                })
            }
        };
    };
}

// The peers' kernel (CuPy RawKernel in peers.py): no __restrict__.
hand_kernel!(
    VEC_ADD,
    "hand_vec_add",
    r#"
extern "C" __global__ void hand_vec_add(const float* a, const float* b, float* c, unsigned long long n) {
unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
if (i < n) { c[i] = a[i] + b[i]; }
}
"#
);
// What a CUDA programmer who knows the arrays do not alias writes.
hand_kernel!(
    VEC_ADD_RESTRICT,
    "hand_vec_add_restrict",
    r#"
extern "C" __global__ void hand_vec_add_restrict(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, unsigned long long n) {
unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
if (i < n) { c[i] = a[i] + b[i]; }
}
"#
);
// The float4 vec_add of ../shared/PERFORMANCE.md (4378 GB/s there).
hand_kernel!(
    VEC_ADD4,
    "hand_vec_add4",
    r#"
extern "C" __global__ void hand_vec_add4(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ c, unsigned long long n4) {
unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
if (i < n4) { float4 x = a[i]; float4 y = b[i]; c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }
}
"#
);
hand_kernel!(
    SAXPY_RESTRICT,
    "hand_saxpy_restrict",
    r#"
extern "C" __global__ void hand_saxpy_restrict(float alpha, const float* __restrict__ x, float* __restrict__ y, unsigned long long n) {
unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
if (i < n) { y[i] = alpha * x[i] + y[i]; }
}
"#
);
// Numba's compute_pi with xoroshiro128+ unchecked, the draw as ours computes it (the
// uniform f32 from the top 53 bits, one conversion): what the RNG row's kernel would be
// without its state check (a ceiling for it).
hand_kernel!(
    COMPUTE_PI,
    "hand_compute_pi",
    r#"
extern "C" __global__ void hand_compute_pi(unsigned long long* __restrict__ states, unsigned int iterations, float* __restrict__ out) {
unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
unsigned long long* s = states + 2 * t;
unsigned int inside = 0;
for (unsigned int k = 0; k < iterations; ++k) {
  float xy[2];
  for (int d = 0; d < 2; ++d) {
    const unsigned long long s0 = s[0], s1 = s[1] ^ s0, r = s0 + s[1];
    s[0] = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14);
    s[1] = (s1 << 36) | (s1 >> 28);
    xy[d] = (float)(r >> 11) * 1.1102230246251565e-16f;
  }
  if (xy[0] * xy[0] + xy[1] * xy[1] <= 1.0f) inside += 1;
}
out[t] = 4.0f * (float)inside / (float)iterations;
}
"#
);
