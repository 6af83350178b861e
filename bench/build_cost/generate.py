#!/usr/bin/env python3
"""Writes a crate of 200 kernels for measuring the translator's build cost.

    python3 bench/build_cost/generate.py OUT_DIR PATH_TO_GPU_RUNTIME [COUNT]

The kernels use what every version of the language since the first round accepts
(indexing, loops over ranges, `if`, `while`, locals, math, a device function), so one
crate compiles before and after a change to the translator; `cargo check` of it, with its
dependencies built, times the attributes' expansion (the command is in bench/RESULTS.md).
"""
import os
import sys

TEMPLATE = '''
#[gpu_kernel]
pub fn k{n}(x: &[f32], w: &[f32], out: &mut [f32], scale: f32) {{
    let i = grid_1d();
    if i >= out.len() {{
        return;
    }}
    let mut acc = 0.0f32;
    for k in 0..w.len() {{
        let j = (i + k) % x.len();
        acc += x[j] * w[k] + {n}.0;
    }}
    let mut t = acc;
    let mut steps = 0u32;
    while t > 1.0 && steps < 8 {{
        t = t * 0.5;
        steps += 1;
    }}
    let v = if acc > 0.0 {{ acc.sqrt() }} else {{ -acc }};
    out[i] = helper{m}(v, scale) + t + steps as f32;
}}
'''

HELPER = '''
#[gpu_device]
pub fn helper{m}(v: f32, s: f32) -> f32 {{
    v * s + {m}.0
}}
'''


def main():
    out, runtime = sys.argv[1], os.path.abspath(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    os.makedirs(os.path.join(out, "src"), exist_ok=True)
    with open(os.path.join(out, "Cargo.toml"), "w") as f:
        f.write(
            '[package]\nname = "build-cost"\nversion = "0.0.0"\nedition = "2021"\n'
            'publish = false\n\n[dependencies]\n'
            f'gpu-runtime = {{ path = "{runtime}" }}\n\n[workspace]\n'
        )
    body = ["use gpu_runtime::prelude::*;\n"]
    for m in range(10):
        body.append(HELPER.format(m=m))
    for n in range(count):
        body.append(TEMPLATE.format(n=n, m=n % 10))
    with open(os.path.join(out, "src", "lib.rs"), "w") as f:
        f.write("".join(body))


if __name__ == "__main__":
    main()
