//! The simulated communicator: ranks exchange their data through a rendezvous store (in
//! one process, or over TCP between processes), and each computes the result itself, in
//! rank order, so every rank gets the same bits.
//!
//! A collective is two steps: *post* (put this rank's signature and data in the store;
//! never waits) and *wait* (read every rank's, check that the signatures agree, and hand
//! back the data). Outside a group both happen in the call; in a group every post happens
//! in its call and every wait at the group's end, so one thread can drive all ranks of a
//! process, as with NCCL.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::backend::store::Store;

/// One rank's end of a simulated communicator.
pub(crate) struct SimComm {
    store: Arc<dyn Store>,
    pub rank: usize,
    pub world: usize,
    pub timeout: Duration,
    /// A prefix that keeps the keys of two communicators in one store apart.
    name: String,
    counters: Mutex<Counters>,
    /// Why the communicator is unusable, once it is.
    failed: Mutex<Option<String>>,
}

/// Per-rank sequence numbers, which match one rank's calls to the others' (by order, as
/// NCCL matches them): one for collectives, one per peer and direction for sends and
/// receives. The NCCL path's ledger numbers its calls with these too.
#[derive(Default)]
pub(crate) struct Counters {
    collectives: u64,
    sent: HashMap<usize, u64>,
    received: HashMap<usize, u64>,
}

impl Counters {
    /// The number of the next collective.
    pub(crate) fn next_collective(&mut self) -> u64 {
        self.collectives += 1;
        self.collectives
    }

    /// The number of the next send to (or receive from) `peer`.
    pub(crate) fn next_p2p(&mut self, sending: bool, peer: usize) -> u64 {
        let n = if sending {
            &mut self.sent
        } else {
            &mut self.received
        };
        let c = n.entry(peer).or_default();
        *c += 1;
        *c
    }
}

/// What one rank posted and waits for.
pub(crate) struct Pending {
    comm: Arc<SimComm>,
    keys: Vec<(usize, String)>,
    signature: String,
    deadline: Instant,
}

impl SimComm {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        name: String,
        rank: usize,
        world: usize,
        timeout: Duration,
    ) -> SimComm {
        SimComm {
            store,
            rank,
            world,
            timeout,
            name,
            counters: Mutex::new(Counters::default()),
            failed: Mutex::new(None),
        }
    }

    /// Why the communicator failed, if it has.
    pub(crate) fn failure(&self) -> Option<String> {
        self.failed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn fail(&self, why: String) -> String {
        let mut failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
        failed.get_or_insert(why).clone()
    }

    /// Post this rank's part of the next collective: `signature` (what every rank must
    /// call alike) and `data` (empty where the operation needs none from this rank).
    pub(crate) fn post_collective(
        self: &Arc<Self>,
        signature: String,
        data: &[u8],
    ) -> Result<Pending, String> {
        if let Some(why) = self.failure() {
            return Err(why);
        }
        let seq = self
            .counters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .next_collective();
        let key = |r: usize| format!("{}/c{seq}/{r}", self.name);
        self.put(&key(self.rank), &signature, data, self.world as u32)?;
        Ok(Pending {
            comm: self.clone(),
            keys: (0..self.world).map(|r| (r, key(r))).collect(),
            signature,
            deadline: crate::backend::store::deadline_after(self.timeout),
        })
    }

    /// Post `data` for `peer`'s matching receive.
    pub(crate) fn post_send(
        &self,
        peer: usize,
        signature: String,
        data: &[u8],
    ) -> Result<(), String> {
        if let Some(why) = self.failure() {
            return Err(why);
        }
        let n = self
            .counters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .next_p2p(true, peer);
        let key = format!("{}/p{}>{peer}/{n}", self.name, self.rank);
        self.put(&key, &signature, data, 1)
    }

    /// Wait for what `peer` sends next.
    pub(crate) fn post_recv(
        self: &Arc<Self>,
        peer: usize,
        signature: String,
    ) -> Result<Pending, String> {
        if let Some(why) = self.failure() {
            return Err(why);
        }
        let n = self
            .counters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .next_p2p(false, peer);
        Ok(Pending {
            comm: self.clone(),
            keys: vec![(peer, format!("{}/p{peer}>{}/{n}", self.name, self.rank))],
            signature,
            deadline: crate::backend::store::deadline_after(self.timeout),
        })
    }

    fn put(&self, key: &str, signature: &str, data: &[u8], readers: u32) -> Result<(), String> {
        let mut value = Vec::with_capacity(4 + signature.len() + data.len());
        value.extend_from_slice(&(signature.len() as u32).to_le_bytes());
        value.extend_from_slice(signature.as_bytes());
        value.extend_from_slice(data);
        self.store
            .set(key, value, readers)
            .map_err(|e| self.fail(format!("rank {}: {e}", self.rank)))
    }
}

impl Pending {
    /// Every posting rank's data, in rank order, once all have posted and their
    /// signatures agree with this rank's.
    pub(crate) fn wait(self) -> Result<Vec<Vec<u8>>, String> {
        let comm = &self.comm;
        let mut out = Vec::with_capacity(self.keys.len());
        let mut mismatch = None;
        for (r, key) in &self.keys {
            let value = comm.store.get(key, self.deadline).map_err(|e| {
                comm.fail(format!(
                    "rank {} waited {:.1} s for rank {r} in `{}` and stopped: {e} (a rank failed, \
                     exited, or called another operation; in one process, call the ranks' \
                     operations inside `collective::group`, or from one thread per rank)",
                    comm.rank,
                    comm.timeout.as_secs_f64(),
                    self.signature
                ))
            })?;
            let (signature, data) = split(&value);
            if signature != self.signature && mismatch.is_none() {
                mismatch = Some(format!(
                    "rank {} called `{}` but rank {r} called `{signature}` at the same point: every \
                     rank must make the same calls in the same order",
                    comm.rank, self.signature
                ));
            }
            out.push(data.to_vec());
        }
        match mismatch {
            Some(why) => Err(comm.fail(why)),
            None => Ok(out),
        }
    }
}

/// A stored value's signature and data (a malformed value: an empty signature, which
/// matches no call).
fn split(value: &[u8]) -> (String, &[u8]) {
    let Some((head, rest)) = value.split_first_chunk::<4>() else {
        return (String::new(), &[]);
    };
    let n = (u32::from_le_bytes(*head) as usize).min(rest.len());
    (String::from_utf8_lossy(&rest[..n]).into_owned(), &rest[n..])
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_malformed_value_splits_into_nothing() {
        assert_eq!(super::split(&[1, 2]), (String::new(), &[][..]));
        let mut v = 200u32.to_le_bytes().to_vec();
        v.extend_from_slice(b"sig");
        assert_eq!(super::split(&v), ("sig".to_owned(), &[][..]));
        let mut v = 3u32.to_le_bytes().to_vec();
        v.extend_from_slice(b"sigdata");
        assert_eq!(super::split(&v), ("sig".to_owned(), &b"data"[..]));
    }
}
