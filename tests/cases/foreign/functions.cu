// Foreign CUDA C device functions the `foreign` cases declare in a #[gpu_extern] block:
// Numba's `cuda.declare_device` example (`mul_f32_f32`, here returning its value), a
// function of `long` parameters declared with Rust's `i64`, one that returns nothing, and
// one with no Rust function for the simulator.

extern "C" __device__ float mul_f32_f32(float x, float y) {
    return x * y;
}

__device__ long clamp_add(long a, long b, long limit) {
    long s = a + b;
    return s > limit ? limit : (s < -limit ? -limit : s);
}

__device__ void bump(unsigned int* counter) {
    atomicAdd(counter, 1u);
}

__device__ int gpu_only(int x) {
    return x * 3 + 1;
}
