//! The key-value store ranks share (in one process, or served over TCP by the host API's
//! rendezvous), which the simulated communicator exchanges data through, and the
//! deadlines every wait of the communicators has.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The longest wait anything here takes: a year.
pub(crate) const LONGEST_WAIT: Duration = Duration::from_secs(365 * 24 * 3600);

/// `timeout` from now, at most [`LONGEST_WAIT`] (so the sum cannot overflow).
pub(crate) fn deadline_after(timeout: Duration) -> Instant {
    Instant::now() + timeout.min(LONGEST_WAIT)
}

/// A key-value store the ranks share.
pub(crate) trait Store: Send + Sync {
    /// Set `key` to `value`, to be read `readers` times (then removed).
    fn set(&self, key: &str, value: Vec<u8>, readers: u32) -> Result<(), String>;
    /// The value of `key`, waiting for it until `deadline`; counts one read.
    fn get(&self, key: &str, deadline: Instant) -> Result<Vec<u8>, String>;
}

/// The store of ranks in one process (and the table a TCP server serves).
#[derive(Default)]
pub(crate) struct LocalStore {
    values: Mutex<HashMap<String, (Vec<u8>, u32)>>,
    changed: Condvar,
}

impl Store for LocalStore {
    fn set(&self, key: &str, value: Vec<u8>, readers: u32) -> Result<(), String> {
        if readers == 0 {
            return Ok(());
        }
        let mut values = self.values.lock().unwrap_or_else(|p| p.into_inner());
        if values.insert(key.to_owned(), (value, readers)).is_some() {
            return Err(format!("rendezvous key `{key}` was set twice"));
        }
        self.changed.notify_all();
        Ok(())
    }

    fn get(&self, key: &str, deadline: Instant) -> Result<Vec<u8>, String> {
        let mut values = self.values.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some((value, readers)) = values.get_mut(key) {
                *readers -= 1;
                if *readers == 0 {
                    return Ok(values.remove(key).map(|(v, _)| v).unwrap_or_default());
                }
                return Ok(value.clone());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(format!("no rank provided `{key}` in time"));
            }
            values = self
                .changed
                .wait_timeout(values, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}
