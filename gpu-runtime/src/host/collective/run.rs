//! A collective call checked and run: on the simulated communicator (each rank posts its
//! data and, at once or at its group's end, computes the result from every rank's) or
//! through NCCL (the pointers, count and type of one NCCL call, matched against the other
//! ranks of the process by the ledger first, and submitted to the CUDA backend).

use std::sync::{Arc, Mutex};

use super::forms::OnStream;
use super::group::{in_group, run_or_defer};
use super::reduce::{ReduceOp, Reducible};
use super::{Backend, Ledger};
use crate::backend::cuda::handles::OwnedStream;
use crate::backend::cuda::nccl::{self, NcclCall, NcclOp};
use crate::backend::cuda::nccl_comm::NcclComm;
use crate::backend::cuda::nccl_group;
use crate::backend::sim::comm::{Counters, SimComm};
use crate::backend::sim::memory::SimWriter;
use crate::dtype::Element;
use crate::error::Result;
use crate::host::array::{DeviceArray, Storage};
use crate::host::device::DeviceInner;
use crate::keep_alive::Kept;

/// What a collective is, for the checks and the simulator.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    AllReduce(ReduceOp),
    Broadcast(usize),
    Reduce(ReduceOp, usize),
    AllGather,
    ReduceScatter(ReduceOp),
}

impl Kind {
    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::AllReduce(_) => "all_reduce",
            Kind::Broadcast(_) => "broadcast",
            Kind::Reduce(..) => "reduce",
            Kind::AllGather => "all_gather",
            Kind::ReduceScatter(_) => "reduce_scatter",
        }
    }

    fn root(self) -> Option<usize> {
        match self {
            Kind::Broadcast(r) | Kind::Reduce(_, r) => Some(r),
            _ => None,
        }
    }
}

/// Where a collective reads: another array, or the one it writes (`offset` elements in).
pub(super) enum Source<'s, T: Element> {
    Array(&'s DeviceArray<T>),
    InPlace { offset: usize },
}

/// A collective's arrays: where it reads (`src_len` elements) and the array it writes
/// (`dst_len` of them).
pub(super) struct Arrays<'s, 'd, T: Element> {
    pub src: Source<'s, T>,
    pub src_len: usize,
    pub dst: &'d mut DeviceArray<T>,
    pub dst_len: usize,
}

/// A collective that passed its checks: what it is, where it reads, its lengths, the
/// count every rank must call alike, and its signature as the ranks compare it.
struct Checked<'s, T: Element> {
    kind: Kind,
    src: Source<'s, T>,
    src_len: usize,
    dst_len: usize,
    count: usize,
    signature: String,
}

impl OnStream<'_> {
    pub(super) fn times_world(&self, n: usize, operation: &str) -> Result<usize> {
        n.checked_mul(self.comm.world_size()).ok_or_else(|| {
            self.comm
                .error(operation, format!("{n} elements times the ranks overflow"))
        })
    }

    /// The part of each rank in `total` elements, which must divide evenly.
    pub(super) fn part(&self, total: usize, operation: &str) -> Result<usize> {
        let world = self.comm.world_size();
        if !total.is_multiple_of(world) {
            return Err(self.comm.error(
                operation,
                format!("the array's {total} elements do not split into {world} equal parts"),
            ));
        }
        Ok(total / world)
    }

    pub(super) fn reducing<T: Reducible>(
        &self,
        kind: Kind,
        arrays: Arrays<'_, '_, T>,
    ) -> Result<()> {
        let op = match kind {
            Kind::AllReduce(op) | Kind::Reduce(op, _) | Kind::ReduceScatter(op) => op,
            _ => unreachable!("a reducing collective has an operation"),
        };
        let combine = move |parts: &[Vec<T>]| T::combine(op, parts);
        self.collective(kind, arrays, (T::NCCL_TYPE, 1), Some(op), combine)
    }

    pub(super) fn moving<T: Element>(&self, kind: Kind, arrays: Arrays<'_, '_, T>) -> Result<()> {
        let bytes = (nccl::dtype::UINT8, std::mem::size_of::<T>());
        self.collective(kind, arrays, bytes, None, |parts| parts.concat())
    }

    /// Check, then run on the communicator's backend. `(nccl_type, scale)`: the NCCL type
    /// and how many of it one element is; `combine`: the simulator's result from the
    /// ranks' parts (for reductions; concatenation otherwise).
    fn collective<T: Element>(
        &self,
        kind: Kind,
        arrays: Arrays<'_, '_, T>,
        nccl_type: (i32, usize),
        op: Option<ReduceOp>,
        combine: impl FnOnce(&[Vec<T>]) -> Vec<T> + Send + 'static,
    ) -> Result<()> {
        let Arrays {
            src,
            src_len,
            dst,
            dst_len,
        } = arrays;
        self.check_collective(kind, &src, src_len, dst, dst_len)?;
        let world = self.comm.world_size();
        // What every rank must call alike: NCCL matches calls by order alone.
        let count = match kind {
            Kind::AllGather => src_len,
            Kind::ReduceScatter(_) => src_len / world,
            _ => dst_len,
        };
        let signature = format!(
            "{}<{}>(count {count}{}{})",
            kind.name(),
            elem_name::<T>(),
            op.map_or(String::new(), |o| format!(", {}", o.name())),
            kind.root().map_or(String::new(), |r| format!(", root {r}")),
        );
        let call = Checked {
            kind,
            src,
            src_len,
            dst_len,
            count,
            signature,
        };
        match &self.comm.inner.backend {
            Backend::Sim(sim) => self.simulate(sim, call, dst, combine),
            Backend::Nccl {
                comm,
                ledger,
                counters,
            } => self.through_nccl(
                comm,
                (ledger.as_deref(), counters),
                call,
                dst,
                nccl_type,
                op,
            ),
        }
    }

    /// What every collective checks: the stream, the root, the arrays' devices and
    /// lengths.
    fn check_collective<T: Element>(
        &self,
        kind: Kind,
        src: &Source<'_, T>,
        src_len: usize,
        dst: &DeviceArray<T>,
        dst_len: usize,
    ) -> Result<()> {
        let name = kind.name();
        let comm = self.comm;
        let fail = |r: String| comm.error(name, r);
        crate::host::graph::forbid(&format!("`{name}`"))?;
        self.check_stream(name)?;
        let world = comm.world_size();
        if let Some(root) = kind.root() {
            if root >= world {
                return Err(fail(format!(
                    "root {root} is not a rank (there are {world})"
                )));
            }
        }
        self.check_device(dst, name)?;
        if dst.len() != dst_len {
            return Err(fail(format!(
                "the receiving array has {} elements; this call needs {dst_len}",
                dst.len()
            )));
        }
        if let Source::Array(s) = src {
            self.check_device(s, name)?;
            if s.len() != src_len {
                return Err(fail(format!(
                    "the sending array has {} elements; this call needs {src_len}",
                    s.len()
                )));
            }
        }
        Ok(())
    }

    /// A collective on the simulated communicator: this rank's data posted now, the result
    /// written when every rank's has come (at once, or at the end of the open group).
    fn simulate<T: Element>(
        &self,
        sim: &Arc<SimComm>,
        call: Checked<'_, T>,
        dst: &mut DeviceArray<T>,
        combine: impl FnOnce(&[Vec<T>]) -> Vec<T> + Send + 'static,
    ) -> Result<()> {
        let comm = self.comm;
        let (kind, name) = (call.kind, call.kind.name());
        let (rank, world) = (comm.rank(), comm.world_size());
        let reads = match kind {
            Kind::Broadcast(root) => rank == root,
            _ => true,
        };
        let data = match (&call.src, reads) {
            (_, false) => Vec::new(),
            (Source::Array(s), true) => read_bytes(s, 0, call.src_len),
            (Source::InPlace { offset }, true) => read_bytes(dst, *offset, call.src_len),
        };
        let pending = sim
            .post_collective(call.signature, &data)
            .map_err(|r| comm.error(name, r))?;
        let writer = sim_writer(dst);
        let (per, dst_len) = (call.src_len, call.dst_len);
        let finish = move || -> std::result::Result<(), String> {
            let all = pending.wait()?;
            let parts: Vec<Vec<T>> = match kind {
                Kind::Broadcast(root) => vec![from_bytes(&all[root], per)?],
                _ => all
                    .iter()
                    .map(|b| from_bytes(b, per))
                    .collect::<std::result::Result<_, _>>()?,
            };
            match kind {
                Kind::AllReduce(_) | Kind::AllGather => writer.store(0, &combine(&parts)),
                Kind::Broadcast(_) => writer.store(0, &parts[0]),
                Kind::Reduce(_, root) => {
                    if rank == root {
                        writer.store(0, &combine(&parts));
                    }
                }
                Kind::ReduceScatter(_) => {
                    let n = per / world;
                    let chunks: Vec<Vec<T>> = parts
                        .iter()
                        .map(|p| p[rank * n..(rank + 1) * n].to_vec())
                        .collect();
                    let at = if dst_len == n { 0 } else { rank * n };
                    writer.store(at, &combine(&chunks));
                }
            }
            Ok(())
        };
        run_or_defer(comm, name, Box::new(finish))
    }

    /// A collective through NCCL, once the ledger has matched it with the other ranks of
    /// the process.
    fn through_nccl<T: Element>(
        &self,
        nc: &Arc<NcclComm>,
        (ledger, counters): (Option<&Ledger>, &Mutex<Counters>),
        call: Checked<'_, T>,
        dst: &mut DeviceArray<T>,
        (nccl_type, scale): (i32, usize),
        op: Option<ReduceOp>,
    ) -> Result<()> {
        let comm = self.comm;
        let (kind, name, count) = (call.kind, call.kind.name(), call.count);
        let (rank, world) = (comm.rank(), comm.world_size());
        let signature = call.signature;
        let matched = || match ledger {
            Some(ledger) => {
                let seq = counters
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .next_collective();
                ledger.check(format!("c{seq}"), &signature, world, rank)
            }
            None => Ok(()),
        };
        let size = std::mem::size_of::<T>() as u64;
        let base = device_ptr(dst);
        let (src_ptr, dst_ptr) = match (&call.src, kind) {
            (Source::Array(s), _) => (device_ptr(s), base),
            // NCCL's in-place reduce-scatter: this rank's part of the buffer is
            // where its result goes.
            (Source::InPlace { .. }, Kind::ReduceScatter(_)) => {
                (base, base + (rank * count) as u64 * size)
            }
            (Source::InPlace { offset }, _) => (base + *offset as u64 * size, base),
        };
        let mut kept = vec![dst.storage.owner().keep_alive()];
        if let Source::Array(s) = &call.src {
            kept.push(s.storage.owner().keep_alive());
        }
        let op_code = op.map_or(0, ReduceOp::nccl);
        let nccl_op = match kind {
            Kind::AllReduce(_) => NcclOp::AllReduce { op: op_code },
            Kind::Broadcast(root) => NcclOp::Broadcast { root: root as i32 },
            Kind::Reduce(_, root) => NcclOp::Reduce {
                op: op_code,
                root: root as i32,
            },
            Kind::AllGather => NcclOp::AllGather,
            Kind::ReduceScatter(_) => NcclOp::ReduceScatter { op: op_code },
        };
        let call = NcclCall {
            op: nccl_op,
            send: src_ptr as *const std::ffi::c_void,
            recv: dst_ptr as *mut std::ffi::c_void,
            count: count * scale,
            dtype: nccl_type,
            stream: self.cuda_stream(),
        };
        // SAFETY: the buffers are live allocations of this rank's device (their owners
        // are in `kept`, held until the work is queued, and frees are ordered after it on
        // the device's streams), with the element counts checked above: `count * scale`
        // NCCL elements at the source (`src_len` elements) and at the destination
        // (`dst_len`), `world` times that for the gathered or scattered side; within one
        // process the ledger makes sure every rank called alike before NCCL runs it.
        unsafe { self.submit(nc, name, kept, matched, call) }.map_err(|r| comm.error(name, r))
    }

    pub(super) fn point_to_point<T: Element>(
        &self,
        send: Option<&DeviceArray<T>>,
        recv: Option<&mut DeviceArray<T>>,
        peer: usize,
    ) -> Result<()> {
        let comm = self.comm;
        let name = if send.is_some() { "send" } else { "recv" };
        let fail = |r: String| comm.error(name, r);
        crate::host::graph::forbid(&format!("`{name}`"))?;
        self.check_stream(name)?;
        let (rank, world) = (comm.rank(), comm.world_size());
        if peer >= world {
            return Err(fail(format!(
                "peer {peer} is not a rank (there are {world})"
            )));
        }
        if peer == rank {
            return Err(fail(
                "a rank cannot send to or receive from itself; copy the array".into(),
            ));
        }
        let len = send
            .map(|a| a.len())
            .or(recv.as_ref().map(|a| a.len()))
            .unwrap_or(0);
        if let Some(a) = send {
            self.check_device(a, name)?;
        }
        if let Some(a) = &recv {
            self.check_device(a, name)?;
        }
        let (from, to) = if send.is_some() {
            (rank, peer)
        } else {
            (peer, rank)
        };
        let signature = format!(
            "send/recv<{}>(count {len}, {from} to {to})",
            elem_name::<T>()
        );
        match &comm.inner.backend {
            Backend::Sim(sim) => match (send, recv) {
                (Some(a), _) => sim
                    .post_send(peer, signature, &read_bytes(a, 0, len))
                    .map_err(&fail),
                (None, Some(a)) => {
                    let pending = sim.post_recv(peer, signature).map_err(&fail)?;
                    let writer = sim_writer(a);
                    let finish = move || -> std::result::Result<(), String> {
                        let all = pending.wait()?;
                        writer.store(0, &from_bytes::<T>(&all[0], len)?);
                        Ok(())
                    };
                    run_or_defer(comm, name, Box::new(finish))
                }
                (None, None) => unreachable!("a send or a receive"),
            },
            Backend::Nccl {
                comm: nc,
                ledger,
                counters,
            } => {
                let matched = || match ledger {
                    Some(ledger) => {
                        let seq = counters
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .next_p2p(send.is_some(), peer);
                        ledger.check(format!("p{from}>{to}/{seq}"), &signature, 2, rank)
                    }
                    None => Ok(()),
                };
                self.p2p_through_nccl(nc, send, recv, peer, len, matched)
                    .map_err(&fail)
            }
        }
    }

    /// A send or a receive of `len` elements through NCCL, once `matched`.
    fn p2p_through_nccl<T: Element>(
        &self,
        nc: &Arc<NcclComm>,
        send: Option<&DeviceArray<T>>,
        recv: Option<&mut DeviceArray<T>>,
        peer: usize,
        len: usize,
        matched: impl FnOnce() -> std::result::Result<(), String>,
    ) -> std::result::Result<(), String> {
        let name = if send.is_some() { "send" } else { "recv" };
        let (op, send_ptr, recv_ptr, owner) = match (send, recv) {
            (Some(a), _) => (
                NcclOp::Send { peer: peer as i32 },
                device_ptr(a) as *const std::ffi::c_void,
                std::ptr::null_mut(),
                a.storage.owner().keep_alive(),
            ),
            (None, Some(a)) => (
                NcclOp::Recv { peer: peer as i32 },
                std::ptr::null(),
                device_ptr(a) as *mut std::ffi::c_void,
                a.storage.owner().keep_alive(),
            ),
            (None, None) => unreachable!("a send or a receive"),
        };
        let call = NcclCall {
            op,
            send: send_ptr,
            recv: recv_ptr,
            count: len * std::mem::size_of::<T>(),
            dtype: nccl::dtype::UINT8,
            stream: self.cuda_stream(),
        };
        let kept: Vec<Kept> = vec![owner];
        // SAFETY: the bytes at the array's address are a live allocation of this device
        // (its owner is kept until the work is queued; frees are ordered after the work);
        // a received array is borrowed mutably, so nothing else of ours writes it
        // meanwhile.
        unsafe { self.submit(nc, name, kept, matched, call) }
    }

    /// Submit `call` to `nc` on this call's stream, inside the group if one is open.
    ///
    /// # Safety
    ///
    /// As for `nccl_group::submit`.
    unsafe fn submit(
        &self,
        nc: &Arc<NcclComm>,
        name: &str,
        kept: Vec<Kept>,
        matched: impl FnOnce() -> std::result::Result<(), String>,
        call: NcclCall,
    ) -> std::result::Result<(), String> {
        let keep = (self.kept_stream(), kept);
        // SAFETY: the caller's contract.
        unsafe { nccl_group::submit(nc, name, in_group(), keep, matched, call) }
    }

    fn check_device<T: Element>(&self, a: &DeviceArray<T>, operation: &str) -> Result<()> {
        if a.device() != self.comm.device() {
            return Err(self.comm.error(
                operation,
                format!(
                    "an array lives on {}, but this rank's device is {}",
                    a.device().describe(),
                    self.comm.device().describe()
                ),
            ));
        }
        Ok(())
    }

    /// The stream of the call, to keep alive while a group holds its operation.
    fn kept_stream(&self) -> Option<Arc<OwnedStream>> {
        self.stream.and_then(|s| s.cuda.clone())
    }

    /// Refuse a stream of another device or a capture's, on either backend.
    fn check_stream(&self, operation: &str) -> Result<()> {
        if let Some(s) = self.stream {
            if s.device() != self.comm.device() {
                return Err(self
                    .comm
                    .error(operation, "the stream belongs to another device".into()));
            }
            s.not_capturing(operation)?;
        }
        Ok(())
    }

    /// The CUDA stream the call is queued on (`check_stream` checked a given one).
    fn cuda_stream(&self) -> cudarc::driver::sys::CUstream {
        let DeviceInner::Cuda(c) = &*self.comm.device().inner else {
            unreachable!("an NCCL communicator's device is a CUDA device");
        };
        match self.stream.and_then(|s| s.cuda.as_ref()) {
            Some(s) => s.raw,
            None => c.stream.cu_stream(),
        }
    }
}

/// The device address of an NCCL rank's array (a CUDA array: the device was checked).
fn device_ptr<T: Element>(a: &DeviceArray<T>) -> u64 {
    a.device_ptr()
        .unwrap_or_else(|| unreachable!("an NCCL rank's arrays are CUDA arrays"))
}

fn elem_name<T: Element>() -> String {
    match T::ELEM {
        crate::dtype::ElemKind::Dtype(d) => format!("{d:?}").to_lowercase(),
        crate::dtype::ElemKind::Struct(s) => {
            format!("{} ({} bytes)", s.rust_name, std::mem::size_of::<T>())
        }
    }
}

fn read_bytes<T: Element>(a: &DeviceArray<T>, start: usize, len: usize) -> Vec<u8> {
    match &a.storage {
        Storage::Sim(b) => {
            b.read(|v| crate::dtype::bytes::bytes_of(&v[start..start + len]).to_vec())
        }
        Storage::Cuda(_) => unreachable!("a simulated rank's arrays are simulator arrays"),
    }
}

fn sim_writer<T: Element>(a: &DeviceArray<T>) -> SimWriter<T> {
    match &a.storage {
        Storage::Sim(b) => b.writer(),
        Storage::Cuda(_) => unreachable!("a simulated rank's arrays are simulator arrays"),
    }
}

/// `len` elements of `T` from the bytes another rank sent, or why they are not.
fn from_bytes<T: Element>(bytes: &[u8], len: usize) -> std::result::Result<Vec<T>, String> {
    if Some(bytes.len()) != len.checked_mul(std::mem::size_of::<T>()) {
        return Err(format!(
            "a rank sent {} bytes where {len} elements were due",
            bytes.len()
        ));
    }
    let mut out = vec![crate::dtype::zeroed::<T>(); len];
    // As a copy from device memory: the bytes of `T`s, with any `bool` part made 0 or 1
    // whatever the peer sent.
    let raw = crate::dtype::bytes::bytes_of_mut(&mut out);
    raw.copy_from_slice(bytes);
    crate::dtype::bytes::settle_invalid_parts::<T>(raw);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::from_bytes;

    #[test]
    fn bytes_from_a_peer_become_valid_elements_or_an_error() {
        // A byte that is no bool (a corrupt or hostile peer) is made `true`, as in C.
        assert_eq!(
            from_bytes::<bool>(&[2, 0, 1], 3).unwrap(),
            vec![true, false, true]
        );
        assert_eq!(
            from_bytes::<u16>(&[1, 0, 0, 1], 2).unwrap(),
            vec![1, u16::from_le_bytes([0, 1])]
        );
        let err = from_bytes::<u32>(&[0; 7], 2).unwrap_err();
        assert!(err.contains("7 bytes where 2 elements"), "{err}");
    }
}
