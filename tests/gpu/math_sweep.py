#!/usr/bin/env python3
"""The math sweep's reference (see math_sweep.rs): for each function and type in DIR's
manifest, the error of the GPU's and of the host's results in units in the last place
(ulps), against the exact result computed with numpy's long double (x86's 64-bit mantissa:
11 bits more than f64, so the reference's own error is below 1/1000 ulp of f64).

Prints one line per function and type, then a summary line; exits 1 if a GPU result is
past the bound the contract states, 2 if the reference cannot be computed here."""

import sys

try:
    import numpy as np
except ImportError:
    print("math sweep: numpy is not installed; the reference needs it")
    sys.exit(2)

LD = np.longdouble
if np.finfo(LD).nmant < 63:
    print(f"math sweep: long double here has {np.finfo(LD).nmant} mantissa bits; "
          "the reference needs x86's 64-bit long double")
    sys.exit(2)

REFERENCE = {
    "cbrt": np.cbrt, "exp": np.exp, "exp2": np.exp2, "ln": np.log, "log2": np.log2,
    "log10": np.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "atan2": np.arctan2, "powf": np.power, "hypot": np.hypot,
    "exp_m1": np.expm1, "ln_1p": np.log1p, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh,
}
TYPES = {"f32": (np.float32, 24, -149), "f64": (np.float64, 53, -1074)}


def ulp_errors(got, ref, dtype, digits, min_exp):
    """Two errors of `got` against the exact `ref`, inf where they disagree on a NaN or an
    infinity: its distance in ulps from ref's rounding to dtype (an integer: the count of
    floats between them, CUDA's measure of its bounds), and |got - ref| in ulps of ref
    (what a correctly rounded function keeps at or below 0.5)."""
    with np.errstate(all="ignore"):
        rounded = ref.astype(dtype)
        ints = np.int32 if dtype == np.float32 else np.int64
        def key(v):
            i = v.view(ints).astype(LD)
            return np.where(i < 0, -(i + LD(2) ** (8 * v.itemsize - 1)), i)
        steps = np.abs(key(got) - key(rounded))
        _, e = np.frexp(np.abs(ref))
        e = np.where(ref == 0, min_exp + digits, e.astype(np.int64))
        ulp = np.ldexp(LD(1), np.maximum(e - digits, min_exp))
        err = np.abs(got.astype(LD) - ref) / ulp
    nan_g, nan_r = np.isnan(got), np.isnan(rounded)
    same = (got == rounded) | (nan_g & nan_r)
    broken = ~same & (nan_g | nan_r | np.isinf(got) | np.isinf(rounded))
    steps = np.where(same, LD(0), np.where(broken, LD(np.inf), steps))
    err = np.where(same, LD(0), np.where(broken, LD(np.inf), err))
    return steps, err


def main(folder):
    rows = [line.split() for line in open(f"{folder}/manifest.txt") if line.strip()]
    failed = 0
    worst_margin = None
    print(f"{'function':<8} {'type':<4} {'bound':>5} {'gpu ulps':>8} {'gpu err':>8} "
          f"{'gpu >0.5':>8} {'host ulps':>9} {'host err':>8}  worst GPU input")
    for name, ty, arity, bound, stem in rows:
        dtype, digits, min_exp = TYPES[ty]
        x = np.fromfile(f"{folder}/{stem}.x", dtype=dtype)
        args = [x.astype(LD)]
        if arity == "2":
            z = np.fromfile(f"{folder}/{stem}.z", dtype=dtype)
            args.append(z.astype(LD))
        with np.errstate(all="ignore"):
            ref = REFERENCE[name](*args)
        gpu = np.fromfile(f"{folder}/{stem}.gpu", dtype=dtype)
        host = np.fromfile(f"{folder}/{stem}.host", dtype=dtype)
        sg, eg = ulp_errors(gpu, ref, dtype, digits, min_exp)
        sh, eh = ulp_errors(host, ref, dtype, digits, min_exp)
        k = int(np.argmax(sg))
        g_steps, g_err = float(sg[k]), float(np.max(eg))
        off = float(np.mean(eg > 0.5)) * 100
        where = f"x={x[k]!r}" + (f", y={z[k]!r}" if arity == "2" else "")
        ok = g_steps <= float(bound)
        failed += not ok
        margin = float(bound) - g_steps
        if worst_margin is None or margin < worst_margin[0]:
            worst_margin = (margin, f"{name} {ty} {g_steps:.0f} of {bound}")
        print(f"{name:<8} {ty:<4} {bound:>5} {g_steps:>8.0f} {g_err:>8.3f} {off:>7.2f}% "
              f"{float(np.max(sh)):>9.0f} {float(np.max(eh)):>8.3f}  "
              f"{where}{'' if ok else '  PAST THE BOUND'}")
    print(f"{len(rows) - failed} of {len(rows)} within the contract's bound; closest: "
          f"{worst_margin[1] if worst_margin else '-'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
