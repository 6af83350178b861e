//! Every example, run in CI (where `Device::gpu_or_simulator()` is the simulator): each checks its
//! own result against the host and exits non-zero if it is wrong.

macro_rules! example {
    ($module:ident, $file:literal) => {
        #[allow(dead_code)]
        #[path = $file]
        mod $module;

        #[test]
        fn $module() {
            $module::run().unwrap_or_else(|e| panic!("{e}"));
        }
    };
}

example!(vec_add, "../examples/vec_add.rs");
example!(saxpy, "../examples/saxpy.rs");
example!(matmul, "../examples/matmul.rs");
example!(fast_matmul, "../examples/fast_matmul.rs");
example!(tc_gemm, "../examples/tc_gemm.rs");
example!(monte_carlo_pi, "../examples/monte_carlo_pi.rs");
example!(debug_print, "../examples/debug_print.rs");
example!(reduce, "../examples/reduce.rs");
example!(reductions, "../examples/reductions.rs");
example!(grayscale, "../examples/grayscale.rs");
example!(mandelbrot, "../examples/mandelbrot.rs");
example!(particles, "../examples/particles.rs");
example!(histogram, "../examples/histogram.rs");
example!(device_fn, "../examples/device_fn.rs");
example!(stencil, "../examples/stencil.rs");
example!(elementwise, "../examples/elementwise.rs");
example!(timing, "../examples/timing.rs");
example!(vec_add_three_ways, "../examples/vec_add_three_ways.rs");
example!(scale_in_place, "../examples/scale_in_place.rs");
example!(streams, "../examples/streams.rs");
example!(graphs, "../examples/graphs.rs");
example!(multi_gpu_pi, "../examples/multi_gpu_pi.rs");
example!(data_parallel, "../examples/data_parallel.rs");
example!(errors, "../examples/errors.rs");
example!(profiling, "../examples/profiling.rs");
example!(ndarray_interop, "../examples/ndarray_interop.rs");
