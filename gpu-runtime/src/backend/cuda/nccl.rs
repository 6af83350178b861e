//! NCCL, loaded by path with our own bindings: every symbol we call is looked up when the
//! library is opened, and its version is asked for first, so an absent, old or incomplete
//! `libnccl` is a [`GpuError::NcclNotFound`] rather than a panic at the first call.
//!
//! We do not use cudarc's `nccl` feature: it binds a newer NCCL than the 2.28 some
//! machines have, and it panics on a missing library or symbol. What we call exists in
//! every NCCL from [`MIN_VERSION`] on (non-blocking communicators, `ncclCommFinalize`,
//! the configuration struct up to `splitShare`).
//!
//! The library is looked for as for NVRTC: the file `GPU_RUNTIME_NCCL` names (and nothing
//! else when it is set), then `libnccl.so.2` in the folders of the library path, the
//! system, a CUDA toolkit and the `nvidia-nccl-cu12`/`cu13` pip wheels, then the dynamic
//! loader's own search.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::PathBuf;
use std::sync::OnceLock;

use cudarc::driver::sys::CUstream;

use crate::error::GpuError;

use crate::env::NCCL_ENV;

/// The oldest NCCL we accept: 2.18.
pub(crate) const MIN_VERSION: (u32, u32) = (2, 18);

/// `ncclResult_t`.
pub(crate) type NcclResult = c_int;
pub(crate) const SUCCESS: NcclResult = 0;
pub(crate) const IN_PROGRESS: NcclResult = 7;

/// `ncclComm_t`.
pub(crate) type RawComm = *mut c_void;

/// `ncclUniqueId`: 128 opaque bytes rank 0 makes and every rank passes to its init.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct RawUniqueId {
    pub internal: [u8; 128],
}

/// The prefix of `ncclConfig_t` that NCCL 2.18 defined. NCCL copies `size` bytes of it
/// and trusts the fields its `version` had, filling the rest with their defaults.
#[repr(C)]
struct RawConfig {
    size: usize,
    magic: u32,
    version: u32,
    blocking: c_int,
    cga_cluster_size: c_int,
    min_ctas: c_int,
    max_ctas: c_int,
    net_name: *const c_char,
    split_share: c_int,
}

const UNDEF_INT: c_int = c_int::MIN;

/// `ncclRedOp_t` values.
pub(crate) mod op {
    pub const SUM: i32 = 0;
    pub const PROD: i32 = 1;
    pub const MAX: i32 = 2;
    pub const MIN: i32 = 3;
    pub const AVG: i32 = 4;
}

/// `ncclDataType_t` values.
pub(crate) mod dtype {
    pub const INT8: i32 = 0;
    pub const UINT8: i32 = 1;
    pub const INT32: i32 = 2;
    pub const UINT32: i32 = 3;
    pub const INT64: i32 = 4;
    pub const UINT64: i32 = 5;
    pub const FLOAT16: i32 = 6;
    pub const FLOAT32: i32 = 7;
    pub const FLOAT64: i32 = 8;
    pub const BFLOAT16: i32 = 9;
}

type Buf = *const c_void;
type BufMut = *mut c_void;

/// The functions we call, resolved when the library was opened.
#[allow(clippy::type_complexity)]
pub(crate) struct Nccl {
    pub version: (u32, u32, u32),
    get_unique_id: unsafe extern "C" fn(*mut RawUniqueId) -> NcclResult,
    init_rank_config:
        unsafe extern "C" fn(*mut RawComm, c_int, RawUniqueId, c_int, *mut RawConfig) -> NcclResult,
    get_async_error: unsafe extern "C" fn(RawComm, *mut NcclResult) -> NcclResult,
    abort: unsafe extern "C" fn(RawComm) -> NcclResult,
    finalize: unsafe extern "C" fn(RawComm) -> NcclResult,
    destroy: unsafe extern "C" fn(RawComm) -> NcclResult,
    error_string: unsafe extern "C" fn(NcclResult) -> *const c_char,
    last_error: unsafe extern "C" fn(RawComm) -> *const c_char,
    all_reduce:
        unsafe extern "C" fn(Buf, BufMut, usize, c_int, c_int, RawComm, CUstream) -> NcclResult,
    broadcast:
        unsafe extern "C" fn(Buf, BufMut, usize, c_int, c_int, RawComm, CUstream) -> NcclResult,
    reduce: unsafe extern "C" fn(
        Buf,
        BufMut,
        usize,
        c_int,
        c_int,
        c_int,
        RawComm,
        CUstream,
    ) -> NcclResult,
    all_gather: unsafe extern "C" fn(Buf, BufMut, usize, c_int, RawComm, CUstream) -> NcclResult,
    reduce_scatter:
        unsafe extern "C" fn(Buf, BufMut, usize, c_int, c_int, RawComm, CUstream) -> NcclResult,
    send: unsafe extern "C" fn(Buf, usize, c_int, c_int, RawComm, CUstream) -> NcclResult,
    recv: unsafe extern "C" fn(BufMut, usize, c_int, c_int, RawComm, CUstream) -> NcclResult,
    group_start: unsafe extern "C" fn() -> NcclResult,
    group_end: unsafe extern "C" fn() -> NcclResult,
}

/// NCCL, opened once per process; the error says what was tried and why it failed.
pub(crate) fn nccl() -> Result<&'static Nccl, GpuError> {
    static NCCL: OnceLock<Result<Nccl, (String, Vec<PathBuf>)>> = OnceLock::new();
    NCCL.get_or_init(open)
        .as_ref()
        .map_err(|(detail, searched)| GpuError::NcclNotFound {
            detail: detail.clone(),
            searched: searched.clone(),
        })
}

fn open() -> Result<Nccl, (String, Vec<PathBuf>)> {
    let (candidates, forced) = match std::env::var_os(NCCL_ENV).filter(|p| !p.is_empty()) {
        Some(path) => (vec![PathBuf::from(path)], true),
        None => (
            super::libraries::library_candidates(
                &["libnccl.so.2", "libnccl.so"],
                &["nvidia/nccl/lib"],
            ),
            false,
        ),
    };
    let found = candidates.iter().find(|p| p.is_file()).cloned();
    let (lib, file) = match (found, forced) {
        (Some(path), _) => {
            // SAFETY: loading NCCL runs only its (trusted, vendor) initialisers.
            let lib = unsafe { libloading::Library::new(&path) }
                .map_err(|e| (format!("{}: {e}", path.display()), candidates.clone()))?;
            (lib, path.display().to_string())
        }
        (None, true) => {
            return Err((
                format!("{NCCL_ENV}={}: no such file", candidates[0].display()),
                candidates,
            ))
        }
        // SAFETY: as above, by soname through the dynamic loader's search.
        (None, false) => match unsafe { libloading::Library::new("libnccl.so.2") } {
            Ok(lib) => (lib, "libnccl.so.2".to_owned()),
            Err(_) => return Err(("no candidate file exists".to_owned(), candidates)),
        },
    };
    let searched = candidates;
    let fail = |detail: String| (format!("{file}: {detail}"), searched.clone());
    // The library stays loaded for the life of the process: the function pointers below
    // and NCCL's own threads need it.
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: each symbol is declared with the signature of NCCL's `nccl.h` for
            // every version from `MIN_VERSION` on.
            *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                .map_err(|_| fail(format!("it has no `{}`; is it NCCL?", $name)))?
        };
    }
    let get_version: unsafe extern "C" fn(*mut c_int) -> NcclResult = sym!("ncclGetVersion");
    let mut code: c_int = 0;
    // SAFETY: writes one int.
    if unsafe { get_version(&mut code) } != SUCCESS {
        return Err(fail("ncclGetVersion failed".to_owned()));
    }
    let code = code.max(0) as u32;
    let version = (code / 10000, code / 100 % 100, code % 100);
    if (version.0, version.1) < MIN_VERSION {
        return Err(fail(format!(
            "NCCL {}.{}.{} is older than {}.{}, the first with non-blocking communicators as we \
             use them",
            version.0, version.1, version.2, MIN_VERSION.0, MIN_VERSION.1
        )));
    }
    log::info!("NCCL {}.{}.{} from {file}", version.0, version.1, version.2);
    Ok(Nccl {
        version,
        get_unique_id: sym!("ncclGetUniqueId"),
        init_rank_config: sym!("ncclCommInitRankConfig"),
        get_async_error: sym!("ncclCommGetAsyncError"),
        abort: sym!("ncclCommAbort"),
        finalize: sym!("ncclCommFinalize"),
        destroy: sym!("ncclCommDestroy"),
        error_string: sym!("ncclGetErrorString"),
        last_error: sym!("ncclGetLastError"),
        all_reduce: sym!("ncclAllReduce"),
        broadcast: sym!("ncclBroadcast"),
        reduce: sym!("ncclReduce"),
        all_gather: sym!("ncclAllGather"),
        reduce_scatter: sym!("ncclReduceScatter"),
        send: sym!("ncclSend"),
        recv: sym!("ncclRecv"),
        group_start: sym!("ncclGroupStart"),
        group_end: sym!("ncclGroupEnd"),
    })
}

impl Nccl {
    /// What `code` means, with NCCL's last message for `comm` where there is one.
    pub(crate) fn describe(&self, code: NcclResult, comm: Option<RawComm>) -> String {
        // SAFETY: NCCL returns a static, NUL-terminated string for every code.
        let what = unsafe { cstr((self.error_string)(code)) };
        // SAFETY: `comm` is live (or null, which NCCL accepts), and the string it returns
        // is NUL-terminated and lives until the next NCCL call on this thread; it is
        // copied at once.
        let last = unsafe { cstr((self.last_error)(comm.unwrap_or(std::ptr::null_mut()))) };
        if last.is_empty() {
            format!("{what} (NCCL error {code})")
        } else {
            format!("{what} (NCCL error {code}): {last}")
        }
    }

    /// A fresh unique id (rank 0 makes it; the others receive it).
    pub(crate) fn unique_id(&self) -> Result<RawUniqueId, String> {
        let mut id = RawUniqueId { internal: [0; 128] };
        // SAFETY: writes the 128-byte id.
        match unsafe { (self.get_unique_id)(&mut id) } {
            SUCCESS => Ok(id),
            code => Err(self.describe(code, None)),
        }
    }

    /// Start initialising rank `rank` of `ranks` as a non-blocking communicator on the
    /// current context's device: the result may be in progress (poll
    /// [`Nccl::async_error`]).
    ///
    /// # Safety
    ///
    /// The context of the device the communicator is for must be current on this thread.
    pub(crate) unsafe fn init_rank(
        &self,
        ranks: usize,
        id: &RawUniqueId,
        rank: usize,
    ) -> Result<RawComm, String> {
        let mut config = RawConfig {
            size: std::mem::size_of::<RawConfig>(),
            magic: 0xcafe_beef,
            version: 2_18_00,
            blocking: 0,
            cga_cluster_size: UNDEF_INT,
            min_ctas: UNDEF_INT,
            max_ctas: UNDEF_INT,
            net_name: std::ptr::null(),
            split_share: UNDEF_INT,
        };
        let mut comm: RawComm = std::ptr::null_mut();
        let (n, r) = (to_int(ranks)?, to_int(rank)?);
        // SAFETY: `comm` and `config` are valid for the call (NCCL copies the config);
        // the caller made the device's context current.
        match unsafe { (self.init_rank_config)(&mut comm, n, *id, r, &mut config) } {
            SUCCESS | IN_PROGRESS if !comm.is_null() => Ok(comm),
            SUCCESS | IN_PROGRESS => Err("ncclCommInitRankConfig gave no communicator".into()),
            code => {
                let why = self.describe(code, (!comm.is_null()).then_some(comm));
                if !comm.is_null() {
                    // SAFETY: the half-made communicator is ours alone.
                    unsafe { (self.abort)(comm) };
                }
                Err(why)
            }
        }
    }

    /// The communicator's state: `SUCCESS`, `IN_PROGRESS`, or the error it met.
    ///
    /// # Safety
    ///
    /// `comm` is live and no other thread calls NCCL with it now.
    pub(crate) unsafe fn async_error(&self, comm: RawComm) -> NcclResult {
        let mut state = SUCCESS;
        // SAFETY: the caller's contract; writes one int.
        match unsafe { (self.get_async_error)(comm, &mut state) } {
            SUCCESS => state,
            code => code,
        }
    }

    /// Abort `comm`: its queued and running operations end, and it is freed.
    ///
    /// # Safety
    ///
    /// `comm` is live, no other thread calls NCCL with it now, and it is not used again.
    pub(crate) unsafe fn abort(&self, comm: RawComm) {
        // SAFETY: the caller's contract.
        unsafe { (self.abort)(comm) };
    }

    /// Start finishing `comm`'s operations (`ncclCommFinalize`; non-blocking: poll).
    ///
    /// # Safety
    ///
    /// As for [`Nccl::async_error`].
    pub(crate) unsafe fn finalize(&self, comm: RawComm) -> NcclResult {
        // SAFETY: the caller's contract.
        unsafe { (self.finalize)(comm) }
    }

    /// Free a finalised `comm`.
    ///
    /// # Safety
    ///
    /// As for [`Nccl::abort`], after [`Nccl::finalize`] completed.
    pub(crate) unsafe fn destroy(&self, comm: RawComm) -> NcclResult {
        // SAFETY: the caller's contract.
        unsafe { (self.destroy)(comm) }
    }

    /// `ncclGroupStart`.
    pub(crate) fn group_start(&self) -> NcclResult {
        // SAFETY: only changes this thread's grouping state.
        unsafe { (self.group_start)() }
    }

    /// `ncclGroupEnd`: queue what the group holds. With non-blocking communicators the
    /// result may be in progress (poll each communicator).
    ///
    /// # Safety
    ///
    /// Every communicator an operation of the group used is live, and no other thread calls
    /// NCCL with it now.
    pub(crate) unsafe fn group_end(&self) -> NcclResult {
        // SAFETY: the caller's contract.
        unsafe { (self.group_end)() }
    }
}

/// One NCCL operation of a rank, as plain data: which collective (with its reduction
/// `ncclRedOp_t` and root) or which point-to-point call (with its peer), its buffers, how
/// many elements of which `ncclDataType_t`, and the stream it is queued on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NcclCall {
    pub op: NcclOp,
    pub send: Buf,
    pub recv: BufMut,
    pub count: usize,
    pub dtype: c_int,
    pub stream: CUstream,
}

/// Which NCCL operation an [`NcclCall`] is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum NcclOp {
    AllReduce {
        op: c_int,
    },
    Broadcast {
        root: c_int,
    },
    Reduce {
        op: c_int,
        root: c_int,
    },
    AllGather,
    ReduceScatter {
        op: c_int,
    },
    /// Sends `count` elements at `send`.
    Send {
        peer: c_int,
    },
    /// Receives `count` elements into `recv`.
    Recv {
        peer: c_int,
    },
}

impl Nccl {
    /// Queue `call` on communicator `comm`.
    ///
    /// # Safety
    ///
    /// `comm` is live and no other thread calls NCCL with it now; the call's buffers are
    /// live allocations of the communicator's device, of `count` elements of `dtype` (times
    /// the ranks for the gathered or scattered side), that stay allocated until the work is
    /// done; within one process every rank's matching call names the same operation, count,
    /// type and root (NCCL reads and writes a peer's buffers directly).
    pub(crate) unsafe fn run(&self, call: &NcclCall, comm: RawComm) -> NcclResult {
        let NcclCall {
            op,
            send: s,
            recv: d,
            count: n,
            dtype: ty,
            stream,
        } = *call;
        // SAFETY: the caller's contract, with NCCL's signatures of each operation.
        unsafe {
            match op {
                NcclOp::AllReduce { op } => (self.all_reduce)(s, d, n, ty, op, comm, stream),
                NcclOp::Broadcast { root } => (self.broadcast)(s, d, n, ty, root, comm, stream),
                NcclOp::Reduce { op, root } => (self.reduce)(s, d, n, ty, op, root, comm, stream),
                NcclOp::AllGather => (self.all_gather)(s, d, n, ty, comm, stream),
                NcclOp::ReduceScatter { op } => {
                    (self.reduce_scatter)(s, d, n, ty, op, comm, stream)
                }
                NcclOp::Send { peer } => (self.send)(s, n, ty, peer, comm, stream),
                NcclOp::Recv { peer } => (self.recv)(d, n, ty, peer, comm, stream),
            }
        }
    }
}

/// `n` as an `int`, or why not.
pub(crate) fn to_int(n: usize) -> Result<c_int, String> {
    c_int::try_from(n).map_err(|_| format!("{n} does not fit NCCL's int"))
}

/// A C string as an owned `String` (empty for null).
///
/// # Safety
///
/// `p` is null or points to a NUL-terminated string live for the call.
unsafe fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}
