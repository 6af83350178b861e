//! How the ranks of a communicator find each other: a small key-value store
//! (`backend/store.rs`), in one process or served over TCP by rank 0 on
//! `MASTER_ADDR:MASTER_PORT`, as torchrun's ranks do. NCCL ranks exchange their unique id through it; simulated ranks in separate
//! processes exchange their data through it as well.
//!
//! A value is set with the number of reads it waits for and is removed after the last,
//! so a store serving a long run holds only what is in flight. A read waits for its key
//! until a deadline; a store that cannot be reached by then is an error naming the
//! address, never a hang.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::backend::store::{deadline_after, LocalStore, Store, LONGEST_WAIT};

/// Where the ranks of a run are, from torchrun's environment variables.
#[derive(Clone, Debug)]
pub(crate) struct RunEnv {
    pub rank: usize,
    pub world: usize,
    pub local_rank: usize,
    pub master: String,
}

impl RunEnv {
    /// `RANK`, `WORLD_SIZE`, `LOCAL_RANK` (default `RANK`), `MASTER_ADDR` (default
    /// `127.0.0.1`), `MASTER_PORT` (required when `WORLD_SIZE` > 1).
    pub(crate) fn from_env() -> Result<RunEnv, String> {
        RunEnv::from_vars(|name| std::env::var(name).ok())
    }

    /// As [`RunEnv::from_env`], with the variables from `var`.
    fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<RunEnv, String> {
        let number = |name: &str, default: Option<usize>| -> Result<usize, String> {
            match var(name).ok_or(()) {
                Ok(v) => v.trim().parse().map_err(|_| {
                    format!("{name}={v:?} is not a number (torchrun's variables: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT)")
                }),
                Err(_) => default.ok_or_else(|| {
                    format!("{name} is not set: start the ranks with torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT), for example with scripts/launch-ranks")
                }),
            }
        };
        let rank = number("RANK", None)?;
        let world = number("WORLD_SIZE", None)?;
        if world == 0 || rank >= world {
            return Err(format!("RANK={rank} must be below WORLD_SIZE={world}"));
        }
        // NCCL counts ranks in an `int`.
        if world > i32::MAX as usize {
            return Err(format!(
                "WORLD_SIZE={world} is more ranks than NCCL can count"
            ));
        }
        let local_rank = number("LOCAL_RANK", Some(rank))?;
        let addr = var("MASTER_ADDR").unwrap_or_else(|| "127.0.0.1".to_owned());
        let port = match world {
            1 => number("MASTER_PORT", Some(0))?,
            _ => number("MASTER_PORT", None)?,
        };
        let port = u16::try_from(port).map_err(|_| format!("MASTER_PORT={port} is not a port"))?;
        if port == 0 && world > 1 {
            return Err("MASTER_PORT=0 is not a port the other ranks can reach".to_owned());
        }
        // An IPv6 address takes brackets before its port.
        let addr = addr.trim();
        let host = if addr.contains(':') && !addr.starts_with('[') {
            format!("[{addr}]")
        } else {
            addr.to_owned()
        };
        Ok(RunEnv {
            rank,
            world,
            local_rank,
            master: format!("{host}:{port}"),
        })
    }
}

/// The store of a run across processes: served by rank 0, reached over TCP by the rest.
pub(crate) enum TcpStore {
    Server(Server),
    Client(Mutex<TcpStream>, String),
}

/// Rank 0's side: the table, and the thread that serves it.
pub(crate) struct Server {
    table: Arc<LocalStore>,
    clients: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    linger: Duration,
}

const SET: u8 = 1;
const GET: u8 = 2;

impl TcpStore {
    /// Rank 0 serves on `env.master`; the other ranks connect to it, retrying until
    /// `deadline` (rank 0 may start later).
    pub(crate) fn open(env: &RunEnv, deadline: Instant) -> Result<TcpStore, String> {
        if env.rank == 0 {
            let listener = TcpListener::bind(&env.master).map_err(|e| {
                format!("rank 0 cannot serve the rendezvous on {}: {e}", env.master)
            })?;
            let table = Arc::new(LocalStore::default());
            let clients = Arc::new(AtomicUsize::new(0));
            let stop = Arc::new(AtomicBool::new(false));
            let (t, c, s) = (table.clone(), clients.clone(), stop.clone());
            std::thread::Builder::new()
                .name("gpu-rendezvous".into())
                .spawn(move || serve(listener, t, c, s))
                .map_err(|e| format!("cannot start the rendezvous server: {e}"))?;
            return Ok(TcpStore::Server(Server {
                table,
                clients,
                stop,
                linger: deadline
                    .saturating_duration_since(Instant::now())
                    .min(LONGEST_WAIT),
            }));
        }
        let addrs: Vec<SocketAddr> = env
            .master
            .to_socket_addrs()
            .map_err(|e| format!("MASTER_ADDR:MASTER_PORT {}: {e}", env.master))?
            .collect();
        loop {
            for a in &addrs {
                if let Ok(s) = TcpStream::connect_timeout(a, Duration::from_millis(500)) {
                    let _ = s.set_nodelay(true);
                    return Ok(TcpStore::Client(Mutex::new(s), env.master.clone()));
                }
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "rank {} could not reach rank 0's rendezvous at {} in time",
                    env.rank, env.master
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Store for TcpStore {
    fn set(&self, key: &str, value: Vec<u8>, readers: u32) -> Result<(), String> {
        match self {
            TcpStore::Server(s) => s.table.set(key, value, readers),
            TcpStore::Client(stream, addr) => {
                let mut s = stream.lock().unwrap_or_else(|p| p.into_inner());
                let mut msg = request(SET, key);
                msg.extend_from_slice(&readers.to_le_bytes());
                msg.extend_from_slice(&(value.len() as u64).to_le_bytes());
                msg.extend_from_slice(&value);
                exchange(&mut s, &msg, None)
                    .map(|_| ())
                    .map_err(|e| format!("rendezvous at {addr}: {e}"))
            }
        }
    }

    fn get(&self, key: &str, deadline: Instant) -> Result<Vec<u8>, String> {
        match self {
            TcpStore::Server(s) => s.table.get(key, deadline),
            TcpStore::Client(stream, addr) => {
                let mut s = stream.lock().unwrap_or_else(|p| p.into_inner());
                let wait = deadline.saturating_duration_since(Instant::now());
                let mut msg = request(GET, key);
                msg.extend_from_slice(&(wait.as_millis() as u64).to_le_bytes());
                exchange(&mut s, &msg, Some(wait + Duration::from_secs(5)))
                    .map_err(|e| format!("rendezvous at {addr}: {e}"))
            }
        }
    }
}

impl Drop for Server {
    /// Rank 0 serves until every other rank has hung up (or the deadline it was made
    /// with has passed): a rank still reading what rank 0 wrote last must find it.
    fn drop(&mut self) {
        let end = deadline_after(self.linger);
        while self.clients.load(Ordering::SeqCst) > 0 && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn request(op: u8, key: &str) -> Vec<u8> {
    let mut msg = vec![op];
    msg.extend_from_slice(&(key.len() as u32).to_le_bytes());
    msg.extend_from_slice(key.as_bytes());
    msg
}

/// Send `msg`, read the answer: a status byte (0 = done), then a length and the bytes.
fn exchange(s: &mut TcpStream, msg: &[u8], wait: Option<Duration>) -> Result<Vec<u8>, String> {
    s.set_read_timeout(Some(wait.unwrap_or(Duration::from_secs(60))))
        .map_err(|e| e.to_string())?;
    s.write_all(msg)
        .map_err(|e| format!("rank 0 is gone ({e})"))?;
    let mut head = [0u8; 9];
    s.read_exact(&mut head)
        .map_err(|e| format!("rank 0 did not answer ({e})"))?;
    let len = u64::from_le_bytes(head[1..9].try_into().unwrap_or_default());
    // Read as much as arrives, not as much as the length claims: a corrupt length is a
    // short answer, not an allocation of that size.
    let mut body = Vec::new();
    (&mut *s)
        .take(len)
        .read_to_end(&mut body)
        .map_err(|e| format!("rank 0 did not answer ({e})"))?;
    if body.len() as u64 != len {
        return Err(format!(
            "rank 0's answer ended after {} of {len} bytes",
            body.len()
        ));
    }
    match head[0] {
        0 => Ok(body),
        _ => Err(String::from_utf8_lossy(&body).into_owned()),
    }
}

fn serve(
    listener: TcpListener,
    table: Arc<LocalStore>,
    clients: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) {
    let _ = listener.set_nonblocking(true);
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let _ = stream.set_nonblocking(false);
                let _ = stream.set_nodelay(true);
                let (t, c) = (table.clone(), clients.clone());
                c.fetch_add(1, Ordering::SeqCst);
                let _ = std::thread::Builder::new()
                    .name("gpu-rendezvous-client".into())
                    .spawn(move || {
                        let _ = serve_client(stream, &t);
                        c.fetch_sub(1, Ordering::SeqCst);
                    });
            }
            Err(_) => std::thread::sleep(Duration::from_millis(2)),
        }
    }
}

/// Answer one rank's requests until it hangs up.
fn serve_client(mut s: TcpStream, table: &LocalStore) -> std::io::Result<()> {
    let read_u32 = |s: &mut TcpStream| -> std::io::Result<u32> {
        let mut b = [0u8; 4];
        s.read_exact(&mut b)?;
        Ok(u32::from_le_bytes(b))
    };
    let read_u64 = |s: &mut TcpStream| -> std::io::Result<u64> {
        let mut b = [0u8; 8];
        s.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    };
    loop {
        let mut op = [0u8; 1];
        if s.read_exact(&mut op).is_err() {
            return Ok(()); // hung up
        }
        let key_len = read_u32(&mut s)? as usize;
        if key_len > 1 << 16 {
            return Ok(());
        }
        let mut key = vec![0u8; key_len];
        s.read_exact(&mut key)?;
        let key = String::from_utf8_lossy(&key).into_owned();
        let answer = match op[0] {
            SET => {
                let readers = read_u32(&mut s)?;
                let len = read_u64(&mut s)?;
                let mut value = Vec::new();
                (&mut s).take(len).read_to_end(&mut value)?;
                table.set(&key, value, readers).map(|()| Vec::new())
            }
            GET => {
                let wait = Duration::from_millis(read_u64(&mut s)?);
                table.get(&key, deadline_after(wait))
            }
            _ => return Ok(()),
        };
        let (status, body) = match answer {
            Ok(v) => (0u8, v),
            Err(e) => (1u8, e.into_bytes()),
        };
        let mut out = vec![status];
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&body);
        s.write_all(&out)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_removed_after_its_last_read() {
        let store = LocalStore::default();
        let soon = Instant::now() + Duration::from_millis(50);
        store.set("k", vec![1, 2], 2).unwrap();
        assert_eq!(store.get("k", soon).unwrap(), vec![1, 2]);
        assert_eq!(store.get("k", soon).unwrap(), vec![1, 2]);
        let err = store.get("k", soon).unwrap_err();
        assert!(err.contains("in time"), "{err}");
    }

    #[test]
    fn torchrun_variables_are_checked() {
        let run = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, String)> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            RunEnv::from_vars(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
        };
        let ok = run(&[("RANK", "1"), ("WORLD_SIZE", "2"), ("MASTER_PORT", "29500")]).unwrap();
        assert_eq!((ok.rank, ok.world, ok.local_rank), (1, 2, 1));
        assert_eq!(ok.master, "127.0.0.1:29500");
        let v6 = run(&[
            ("RANK", "0"),
            ("WORLD_SIZE", "2"),
            ("MASTER_ADDR", "::1"),
            ("MASTER_PORT", "7"),
        ]);
        assert_eq!(v6.unwrap().master, "[::1]:7");
        let err = |vars: &[(&str, &str)], needle: &str| {
            let e = run(vars).unwrap_err();
            assert!(e.contains(needle), "{e}");
        };
        err(&[("WORLD_SIZE", "2")], "RANK is not set");
        err(
            &[("RANK", "2"), ("WORLD_SIZE", "2"), ("MASTER_PORT", "1")],
            "below",
        );
        err(
            &[
                ("RANK", "0"),
                ("WORLD_SIZE", "4294967296"),
                ("MASTER_PORT", "1"),
            ],
            "NCCL can count",
        );
        err(
            &[("RANK", "0"), ("WORLD_SIZE", "2"), ("MASTER_PORT", "0")],
            "MASTER_PORT=0",
        );
        err(
            &[("RANK", "0"), ("WORLD_SIZE", "2")],
            "MASTER_PORT is not set",
        );
        err(&[("RANK", "x"), ("WORLD_SIZE", "2")], "not a number");
    }

    #[test]
    fn a_corrupt_answer_is_an_error_not_an_allocation() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut request = [0u8; 64];
            let _ = s.read(&mut request);
            let mut answer = vec![0u8];
            answer.extend_from_slice(&u64::MAX.to_le_bytes());
            answer.extend_from_slice(b"short");
            s.write_all(&answer).unwrap();
        });
        let env = RunEnv {
            rank: 1,
            world: 2,
            local_rank: 1,
            master: addr.to_string(),
        };
        let soon = Instant::now() + Duration::from_secs(5);
        let client = TcpStore::open(&env, soon).unwrap();
        let err = client.get("k", soon).unwrap_err();
        assert!(err.contains("ended after 5 of"), "{err}");
    }

    #[test]
    fn a_year_is_the_longest_wait() {
        let d = deadline_after(Duration::MAX);
        assert!(d > Instant::now() + Duration::from_secs(364 * 24 * 3600));
    }

    #[test]
    fn ranks_meet_over_tcp() {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let env = move |rank| RunEnv {
            rank,
            world: 2,
            local_rank: rank,
            master: format!("127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        let server = TcpStore::open(&env(0), deadline).unwrap();
        let client = std::thread::spawn(move || {
            let c = TcpStore::open(&env(1), deadline).unwrap();
            c.set("from1", b"hello".to_vec(), 1).unwrap();
            c.get("from0", deadline).unwrap()
        });
        assert_eq!(server.get("from1", deadline).unwrap(), b"hello");
        server.set("from0", b"world".to_vec(), 1).unwrap();
        assert_eq!(client.join().unwrap(), b"world");
    }
}
