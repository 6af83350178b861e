//! xoroshiro128+ parity with Numba: for one seed, the states `create_xoroshiro128p_states`
//! makes, and each thread's uniform draws and the states after them, bit for bit, on the
//! GPU and on the simulator; the normal draws within the math functions' bounds (reported
//! as the largest difference in ulp). Numba's side is `numba_xoroshiro.py`, run with the
//! machine's Python (Numba needs numpy < 2.5: `run.sh` puts a numpy 2.4 first on
//! `PYTHONPATH` when the bundle carries its wheel).

use std::path::{Path, PathBuf};

use gpu_runtime::prelude::*;
use gpu_runtime::random::xoroshiro128p_states;

use crate::cases::CaseResult;

/// The draws `numba_xoroshiro.py` makes, in its order: `k` of each kind per thread.
#[gpu_kernel]
pub fn numba_sequence(
    states: &mut [u64],
    k: usize,
    uf: &mut [f32],
    ud: &mut [f64],
    nf: &mut [f32],
    nd: &mut [f64],
) {
    let i = grid_1d();
    if i < states.len() / 2 {
        for j in 0..k {
            let v: f32 = xoroshiro128p_uniform_f32(states, i);
            uf[i * k + j] = v;
        }
        for j in 0..k {
            let v: f64 = xoroshiro128p_uniform_f64(states, i);
            ud[i * k + j] = v;
        }
        for j in 0..k {
            let v: f32 = xoroshiro128p_normal_f32(states, i);
            nf[i * k + j] = v;
        }
        for j in 0..k {
            let v: f64 = xoroshiro128p_normal_f64(states, i);
            nd[i * k + j] = v;
        }
    }
}

fn script() -> CaseResult<PathBuf> {
    let p = std::env::current_exe()?.with_file_name("numba_xoroshiro.py");
    if p.exists() {
        Ok(p)
    } else {
        Err(format!(
            "{} not found (scripts/gpu-bundle copies tests/gpu/numba_xoroshiro.py beside the suite)",
            p.display()
        )
        .into())
    }
}

fn read<T: Copy>(
    dir: &Path,
    name: &str,
    from: fn([u8; 8]) -> T,
    size: usize,
) -> CaseResult<Vec<T>> {
    let bytes = std::fs::read(dir.join(name))?;
    Ok(bytes
        .chunks_exact(size)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(c);
            from(b)
        })
        .collect())
}

/// Units in the last place between two floats of one type, by their ordered bits.
fn ulps(a: u64, b: u64, sign: u64) -> u64 {
    let ordered = |x: u64| {
        if x & sign != 0 {
            sign.wrapping_sub(x & !sign)
        } else {
            x | sign
        }
    };
    ordered(a).abs_diff(ordered(b))
}

/// Runs Numba's side, then ours on `gpu` and `sim`, and compares.
pub fn run(gpu: &Device, sim: &Device, seed: u64) -> CaseResult<String> {
    let script = script()?;
    let (n, k) = (2048usize, 16usize);
    let numba_seed = seed % (1 << 48);
    let dir = std::env::temp_dir().join(format!("gpu-numba-xoroshiro-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args([numba_seed.to_string(), n.to_string(), k.to_string()])
        .arg(&dir)
        .output()
        .map_err(|e| format!("could not run python3 {}: {e}", script.display()))?;
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(format!(
            "Numba's side failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )
        .into());
    }
    let u64s = |name: &str| read(&dir, name, u64::from_le_bytes, 8);
    let numba_states = u64s("states.bin")?;
    let numba_after = u64s("after.bin")?;
    let numba_uf = read(
        &dir,
        "uf32.bin",
        |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        4,
    )?;
    let numba_ud = read(&dir, "uf64.bin", f64::from_le_bytes, 8)?;
    let numba_nf = read(
        &dir,
        "nf32.bin",
        |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        4,
    )?;
    let numba_nd = read(&dir, "nf64.bin", f64::from_le_bytes, 8)?;
    let _ = std::fs::remove_dir_all(&dir);

    let ours = xoroshiro128p_states(n, numba_seed, 0)?;
    if ours != numba_states {
        let i = (0..ours.len())
            .find(|&i| ours[i] != numba_states[i])
            .unwrap_or(0);
        return Err(format!(
            "seed {numba_seed}: state word {i} is {:#x}, Numba's {:#x}",
            ours[i], numba_states[i]
        )
        .into());
    }
    let mut worst = (0u64, 0u64);
    for dev in [gpu, sim] {
        let mut states = dev.to_device(&ours)?;
        let mut uf = dev.to_device(&vec![f32::NAN; n * k])?;
        let mut ud = dev.to_device(&vec![f64::NAN; n * k])?;
        let mut nf = dev.to_device(&vec![f32::NAN; n * k])?;
        let mut nd = dev.to_device(&vec![f64::NAN; n * k])?;
        launch!(numba_sequence[n / 128, 128](&mut states, k, &mut uf, &mut ud, &mut nf, &mut nd))?;
        let backend = dev.backend();
        let (uf, ud) = (uf.to_host()?, ud.to_host()?);
        let bits32 = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let bits64 = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        if bits32(&uf) != bits32(&numba_uf) || bits64(&ud) != bits64(&numba_ud) {
            return Err(format!("{backend}: uniform draws differ from Numba's").into());
        }
        if states.to_host()? != numba_after {
            return Err(format!("{backend}: states after the draws differ from Numba's").into());
        }
        let (nf, nd) = (nf.to_host()?, nd.to_host()?);
        let d32 = nf
            .iter()
            .zip(&numba_nf)
            .map(|(a, b)| ulps(u64::from(a.to_bits()), u64::from(b.to_bits()), 1 << 31))
            .max()
            .unwrap_or(0);
        let d64 = nd
            .iter()
            .zip(&numba_nd)
            .map(|(a, b)| ulps(a.to_bits(), b.to_bits(), 1 << 63))
            .max()
            .unwrap_or(0);
        if dev == gpu {
            worst = (d32, d64);
        }
        // The bound: Box-Muller through ln (1 ulp), sqrt, cos (2 ulp) in f32, and an f32
        // logarithm in the f64 normal; near cos's zeros the relative error grows, so the
        // ulp of the result is bounded loosely.
        if d32 > 64 || d64 > (1 << 32) {
            return Err(format!(
                "{backend}: normal draws {d32} ulp (f32) and {d64} ulp (f64) from Numba's"
            )
            .into());
        }
    }
    Ok(format!(
        "seed {numba_seed}: {n} states and {} uniform draws = Numba's, bit for bit, GPU and \
         simulator; normals on the GPU within {} ulp (f32) and {} ulp (f64) of Numba's",
        2 * n * k,
        worst.0,
        worst.1
    ))
}
