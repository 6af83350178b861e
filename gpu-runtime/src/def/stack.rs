//! Each kernel's local memory per thread, bounded at compile time: the bytes of its own
//! locals plus those of the deepest chain of device functions it calls (the call graph
//! has no recursion: `#[gpu_device]` refuses a cycle). The attribute computes each
//! function's own bytes with `size_of` of every local and array (a dtype parameter's
//! elements at the largest dtype its bound allows; a kernel with const parameters per
//! instance), and asserts the kernel's bound against the GPU's limit in a `const`, so a
//! kernel over it is a compile error naming the chain. The simulator sizes its stacks by
//! the bound (`backend/sim/stack.rs`).

use super::device_fn::DeviceFnDef;

/// The local memory a GPU thread may have: 512 KB (every compute capability from 2.0).
pub const LOCAL_BYTES_PER_THREAD: u64 = 512 * 1024;

/// The most device-function levels walked below a kernel: a deeper chain (or a cycle,
/// which `#[gpu_device]` reports itself) makes the bound incomplete, a compile error.
const MAX_DEPTH: usize = 64;

/// The most paths through device functions one bound walks (a graph whose functions
/// share callees level after level has exponentially many): past it the kernel does not
/// compile, with a message saying so.
const MAX_VISITS: u32 = 100_000;

/// The bytes of arrays of these element sizes and extents, saturating.
pub const fn array_bytes(arrays: &[(u64, &[u64])]) -> u64 {
    let mut total: u64 = 0;
    let mut i = 0;
    while i < arrays.len() {
        let (elem, dims) = arrays[i];
        let mut bytes = elem;
        let mut j = 0;
        while j < dims.len() {
            bytes = bytes.saturating_mul(dims[j]);
            j += 1;
        }
        total = total.saturating_add(bytes);
        i += 1;
    }
    total
}

/// The largest result of the functions `deps`: what a value one of them returns, which
/// nothing types in the caller, is counted at.
pub const fn largest_return(deps: &[&'static DeviceFnDef]) -> u64 {
    let mut most = 0;
    let mut i = 0;
    while i < deps.len() {
        if deps[i].ret_bytes > most {
            most = deps[i].ret_bytes;
        }
        i += 1;
    }
    most
}

/// The local bytes of the deepest chain through `deps` (0 with none), and whether it was
/// computed in full.
pub const fn chain_bytes(deps: &[&'static DeviceFnDef]) -> (u64, bool) {
    let mut walk = Walk {
        visits: 0,
        complete: true,
    };
    let bytes = deepest(deps, 0, &mut walk);
    (bytes, walk.complete && walk.visits <= MAX_VISITS)
}

/// How far a walk of the call graph went.
struct Walk {
    visits: u32,
    complete: bool,
}

const fn deepest(deps: &[&'static DeviceFnDef], depth: usize, walk: &mut Walk) -> u64 {
    if deps.is_empty() {
        return 0;
    }
    if depth >= MAX_DEPTH || walk.visits > MAX_VISITS {
        walk.complete = false;
        return 0;
    }
    let mut most = 0;
    let mut i = 0;
    while i < deps.len() {
        walk.visits += 1;
        let d = deps[i];
        let b = d
            .local_bytes
            .saturating_add(deepest(d.deps, depth + 1, walk));
        if b > most {
            most = b;
        }
        i += 1;
    }
    most
}

/// A kernel's bound: its own locals' bytes plus its deepest chain's (`u64::MAX` for a
/// graph of calls too large to walk).
pub const fn kernel_bytes(own: u64, deps: &[&'static DeviceFnDef]) -> u64 {
    match chain_bytes(deps) {
        (chain, true) => own.saturating_add(chain),
        (_, false) => u64::MAX,
    }
}

/// Fails const evaluation (a compile error at the kernel) when kernel `name`, whose own
/// local arrays take `arrays` bytes and `#[gpu_struct]` locals `structs`, needs more
/// local memory per thread than a GPU thread has, with a message naming the deepest
/// chain and each function's bytes. Arrays alone over the limit are left to the check
/// that names the array (the translator's, or the one for arrays sized by constants).
pub const fn check_kernel(name: &str, arrays: u64, structs: u64, deps: &[&'static DeviceFnDef]) {
    let own = arrays.saturating_add(structs);
    let total = kernel_bytes(own, deps);
    if total <= LOCAL_BYTES_PER_THREAD || arrays > LOCAL_BYTES_PER_THREAD {
        return;
    }
    let mut m = Message::new();
    if total == u64::MAX && !chain_bytes(deps).1 {
        m.push("kernel `");
        m.push(name);
        m.push(
            "` calls device functions along more than 100000 paths, too many to bound its \
                local memory at compile time: let fewer functions call the same callees",
        );
        panic!("{}", m.as_str());
    }
    m.push("kernel `");
    m.push(name);
    m.push("` needs ");
    m.number(total);
    m.push(" bytes of local memory per thread, more than the ");
    m.number(LOCAL_BYTES_PER_THREAD);
    m.push(" (512 KB) a GPU thread has; its locals and those of the functions it calls: `");
    m.push(name);
    m.push("` ");
    m.number(own);
    let mut level = deps;
    let mut depth = 0;
    while !level.is_empty() && depth < MAX_DEPTH {
        // The callee on the deepest chain.
        let mut best = level[0];
        let mut best_bytes = 0;
        let mut i = 0;
        while i < level.len() {
            let d = level[i];
            let b = d.local_bytes.saturating_add(chain_bytes(d.deps).0);
            if b > best_bytes {
                best = d;
                best_bytes = b;
            }
            i += 1;
        }
        m.push(" -> `");
        m.push(best.name);
        m.push("` ");
        m.number(best.local_bytes);
        level = best.deps;
        depth += 1;
    }
    m.push(
        ". Make the local arrays smaller, or keep the data in an array parameter or in \
            shared memory",
    );
    panic!("{}", m.as_str());
}

/// A message built in const evaluation, cut at its capacity.
struct Message {
    bytes: [u8; 1024],
    len: usize,
}

impl Message {
    const fn new() -> Message {
        Message {
            bytes: [0; 1024],
            len: 0,
        }
    }

    const fn push(&mut self, s: &str) {
        let s = s.as_bytes();
        let mut i = 0;
        // Whole characters only: a name cut inside one would not be UTF-8. Room is kept
        // for a number after it.
        while i < s.len() && self.len + 24 < self.bytes.len() {
            self.bytes[self.len] = s[i];
            self.len += 1;
            i += 1;
        }
        while self.len > 0 && i < s.len() && (s[i] & 0xC0) == 0x80 {
            self.len -= 1;
            i -= 1;
        }
    }

    const fn number(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut k = 0;
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            k += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while k > 0 && self.len < self.bytes.len() {
            k -= 1;
            self.bytes[self.len] = digits[k];
            self.len += 1;
        }
    }

    const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.bytes.split_at(self.len).0) {
            Ok(s) => s,
            Err(_) => "a kernel needs more local memory per thread than a GPU thread has",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(name: &'static str, bytes: u64, deps: &'static [&'static DeviceFnDef]) -> DeviceFnDef {
        // SAFETY: never compiled or launched: only its bytes and callees are read.
        unsafe { DeviceFnDef::from_parts(name, name, "", &[], deps, false, false, &[]) }
            .with_local_bytes(bytes)
    }

    #[test]
    fn the_deepest_chain_counts_not_the_sum_of_callees() {
        let g: &'static DeviceFnDef = Box::leak(Box::new(leaf("g", 400, &[])));
        let h: &'static DeviceFnDef = Box::leak(Box::new(leaf("h", 100, &[])));
        let deps: &'static [&'static DeviceFnDef] = Box::leak(Box::new([g, h]));
        let f: &'static DeviceFnDef = Box::leak(Box::new(leaf("f", 50, deps)));
        assert_eq!(chain_bytes(&[f]), (450, true));
        assert_eq!(chain_bytes(&[h, f]), (450, true));
        assert_eq!(kernel_bytes(7, &[f, h]), 457);
        assert_eq!(kernel_bytes(7, &[]), 7);
    }

    #[test]
    fn a_chain_deeper_than_the_walk_is_incomplete_not_zero() {
        let mut below: &'static [&'static DeviceFnDef] = &[];
        for _ in 0..70 {
            let d: &'static DeviceFnDef = Box::leak(Box::new(leaf("d", 1000, below)));
            below = Box::leak(Box::new([d]));
        }
        let (_, complete) = chain_bytes(below);
        assert!(!complete);
        assert_eq!(kernel_bytes(0, below), u64::MAX);
        let (bytes, complete) = chain_bytes(below[0].deps[0].deps[0].deps);
        assert!(!complete && bytes > 0);
    }

    #[test]
    fn array_bytes_saturate_instead_of_wrapping() {
        assert_eq!(array_bytes(&[(4, &[16, 16]), (8, &[3])]), 1048);
        assert_eq!(array_bytes(&[(8, &[u64::MAX, 2])]), u64::MAX);
        assert_eq!(array_bytes(&[(8, &[u64::MAX]), (8, &[1])]), u64::MAX);
    }

    #[test]
    fn a_message_counts_in_decimal_and_keeps_whole_characters() {
        let mut m = Message::new();
        m.push("k ");
        m.number(0);
        m.push(" ");
        m.number(524_288);
        m.push(" ");
        m.number(u64::MAX);
        assert_eq!(m.as_str(), "k 0 524288 18446744073709551615");
        let mut long = Message::new();
        long.push("a");
        long.push(&"€".repeat(400));
        let s = long.as_str();
        assert!(s.starts_with('a') && s[1..].chars().all(|c| c == '€'));
        assert!(s.len() > 990, "{}", s.len());
    }
}
