// A #[gpu_enum] in kernels: compared and cast, not computed with; a variant it lacks; no
// integer becomes an enum; not in shared memory (which starts uninitialised).
use gpu_runtime::prelude::*;

#[gpu_enum]
#[derive(Clone, Copy, PartialEq)]
pub enum Op {
    Add,
    Mul,
}

#[gpu_kernel]
fn arithmetic(ops: &mut [Op], out: &mut [i32]) {
    let i = grid_1d();
    if i < ops.len() {
        let next = ops[i] + Op::Mul;
        let bigger = ops[i] < Op::Mul;
        out[i] = if bigger { 1 } else { 0 };
    }
}

#[gpu_kernel]
fn atomics(ops: &mut [Op]) {
    let i = grid_1d();
    if i < ops.len() {
        atomic_exch(ops, i, Op::Mul);
    }
}

#[gpu_kernel]
fn across_lanes(ops: &mut [Op]) {
    let i = grid_1d();
    if i < ops.len() {
        ops[i] = shfl_sync(0xffff_ffff, ops[i], 0);
    }
}

#[gpu_kernel]
fn missing_variant(ops: &[Op], out: &mut [i32]) {
    let i = grid_1d();
    if i < ops.len() {
        out[i] = match ops[i] {
            Op::Add => 1,
        };
    }
}

#[gpu_kernel]
fn no_such_variant(ops: &mut [Op]) {
    let i = grid_1d();
    if i < ops.len() {
        ops[i] = Op::Div;
    }
}

#[gpu_kernel]
fn from_integer(codes: &[i32], ops: &mut [Op]) {
    let i = grid_1d();
    if i < ops.len() {
        ops[i] = codes[i] as Op;
    }
}

#[gpu_kernel]
fn shared(ops: &mut [Op]) {
    let mut tile = shared_array::<Op, 64>();
    let i = grid_1d();
    if i < ops.len() {
        tile[0] = ops[i];
        ops[i] = tile[0];
    }
}

fn main() {}
