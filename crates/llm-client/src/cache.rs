//! The on-disk response cache: a redb file keyed by the SHA-256 of the full request (model,
//! messages, sampling settings, response format). A resumed or repeated run asks the cache first
//! and does not pay again for a call it already made.
//!
//! Writes are group-committed by a writer thread: a commit (with its fsync) per call would cap
//! a run at a few hundred calls per second, so replies are batched into one durable transaction
//! every few milliseconds. Until committed they are served from memory. A `kill -9` therefore
//! loses at most the replies of the last commit window ([`COMMIT_WINDOW`]); a finished dialogue
//! is never lost (it is in a shard), only a handful of calls may be paid twice.

use crate::error::LlmError;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

const TABLE: TableDefinition<&[u8], &[u8]> = TableDefinition::new("chat_replies");

/// The longest a reply waits in memory before its batch is committed.
pub const COMMIT_WINDOW: Duration = Duration::from_millis(20);

/// A cached reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedReply {
    /// The reply's content.
    pub content: String,
    /// Prompt tokens the original call used.
    pub prompt_tokens: u64,
    /// Completion tokens the original call used.
    pub completion_tokens: u64,
}

/// What the cache holds in memory, under one lock.
#[derive(Default)]
struct State {
    /// Stored, not yet taken by the writer.
    fresh: HashMap<[u8; 32], CachedReply>,
    /// Taken by the writer, being committed; shared so that the writer reads it without the
    /// lock while `get` still finds these replies.
    committing: Arc<HashMap<[u8; 32], CachedReply>>,
    /// The first 8 bytes of every committed key. A key whose prefix is not here is a miss
    /// without a read transaction — the common case in a fresh run, where a redb read per call
    /// was a measurable share of the client's CPU. 8 bytes a key: ~16 MB per million calls.
    known: HashSet<u64>,
    /// `flush` was called: the writer commits what is left and stops.
    closed: bool,
}

struct Shared {
    state: Mutex<State>,
    /// Only `flush` signals it; the writer otherwise wakes on its own every commit window, so
    /// that a `put` never costs a thread wake-up.
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn prefix(key: &[u8; 32]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&key[..8]);
    u64::from_le_bytes(b)
}

/// Stored form: a version byte, prompt and completion tokens (u64 LE) and the content.
/// Entries of the first format (JSON, starting with `{`) are still read.
const FORMAT: u8 = 1;

fn encode(r: &CachedReply) -> Vec<u8> {
    let mut v = Vec::with_capacity(17 + r.content.len());
    v.push(FORMAT);
    v.extend_from_slice(&r.prompt_tokens.to_le_bytes());
    v.extend_from_slice(&r.completion_tokens.to_le_bytes());
    v.extend_from_slice(r.content.as_bytes());
    v
}

fn decode(v: &[u8]) -> Option<CachedReply> {
    match v.first()? {
        &FORMAT if v.len() >= 17 => {
            let word = |at: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&v[at..at + 8]);
                u64::from_le_bytes(b)
            };
            Some(CachedReply {
                prompt_tokens: word(1),
                completion_tokens: word(9),
                content: String::from_utf8(v[17..].to_vec()).ok()?,
            })
        }
        b'{' => serde_json::from_slice(v).ok(),
        _ => None,
    }
}

/// The cache.
pub struct Cache {
    db: Arc<Database>,
    path: PathBuf,
    shared: Arc<Shared>,
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
}

fn commit(db: &Database, batch: &HashMap<[u8; 32], CachedReply>) -> Result<(), redb::Error> {
    let tx = db.begin_write()?;
    {
        let mut table = tx.open_table(TABLE)?;
        for (k, r) in batch {
            table.insert(k.as_slice(), encode(r).as_slice())?;
        }
    }
    tx.commit()?;
    Ok(())
}

fn writer_loop(db: Arc<Database>, shared: Arc<Shared>, path: PathBuf) {
    let mut last_warning: Option<Instant> = None;
    let mut st = shared.lock();
    loop {
        if !st.closed {
            st = shared
                .wake
                .wait_timeout(st, COMMIT_WINDOW)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if st.fresh.is_empty() {
            if st.closed {
                return;
            }
            continue;
        }
        let batch = Arc::new(std::mem::take(&mut st.fresh));
        st.committing = batch.clone();
        let closed = st.closed;
        drop(st);
        let result = commit(&db, &batch);
        st = shared.lock();
        st.committing = Arc::default();
        match result {
            Ok(()) => {
                for k in batch.keys() {
                    st.known.insert(prefix(k));
                }
            }
            Err(e) => {
                // Kept in memory and tried again with the next batch; only a resume would
                // lose them. One warning every few seconds, not one per window.
                if last_warning.is_none_or(|t| t.elapsed() > Duration::from_secs(5)) {
                    tracing::warn!(cache = %path.display(), error = %e, "cache commit failed");
                    last_warning = Some(Instant::now());
                }
                for (k, r) in batch.iter() {
                    st.fresh.entry(*k).or_insert_with(|| r.clone());
                }
                if closed {
                    return;
                }
            }
        }
    }
}

impl Cache {
    /// Opens (or creates) the cache file and starts its writer.
    pub fn open(path: &Path) -> Result<Cache, LlmError> {
        let err = |m: String| LlmError::Cache {
            path: path.display().to_string(),
            message: m,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
        }
        let db = Database::create(path).map_err(|e| err(e.to_string()))?;
        let tx = db.begin_write().map_err(|e| err(e.to_string()))?;
        tx.open_table(TABLE).map_err(|e| err(e.to_string()))?;
        tx.commit().map_err(|e| err(e.to_string()))?;
        let mut known = HashSet::new();
        {
            let tx = db.begin_read().map_err(|e| err(e.to_string()))?;
            let table = tx.open_table(TABLE).map_err(|e| err(e.to_string()))?;
            for entry in table.iter().map_err(|e| err(e.to_string()))? {
                let (k, _) = entry.map_err(|e| err(e.to_string()))?;
                if let Ok(k) = <[u8; 32]>::try_from(k.value()) {
                    known.insert(prefix(&k));
                }
            }
        }
        let db = Arc::new(db);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                known,
                ..State::default()
            }),
            wake: Condvar::new(),
        });
        let writer = {
            let (db, shared, path) = (db.clone(), shared.clone(), path.to_path_buf());
            std::thread::Builder::new()
                .name("llm-cache-writer".into())
                .spawn(move || writer_loop(db, shared, path))
                .map_err(|e| err(e.to_string()))?
        };
        Ok(Cache {
            db,
            path: path.to_path_buf(),
            shared,
            writer: Mutex::new(Some(writer)),
        })
    }

    fn err(&self, m: impl ToString) -> LlmError {
        LlmError::Cache {
            path: self.path.display().to_string(),
            message: m.to_string(),
        }
    }

    /// The cached reply for a key.
    pub fn get(&self, key: &[u8; 32]) -> Result<Option<CachedReply>, LlmError> {
        {
            let st = self.shared.lock();
            if let Some(r) = st.fresh.get(key).or_else(|| st.committing.get(key)) {
                return Ok(Some(r.clone()));
            }
            if !st.known.contains(&prefix(key)) {
                return Ok(None);
            }
        }
        let tx = self.db.begin_read().map_err(|e| self.err(e))?;
        let table = tx.open_table(TABLE).map_err(|e| self.err(e))?;
        let Some(v) = table.get(key.as_slice()).map_err(|e| self.err(e))? else {
            return Ok(None);
        };
        // An entry that does not decode (written by another version) is a miss, not an error.
        Ok(decode(v.value()))
    }

    /// Stores a reply (committed within [`COMMIT_WINDOW`]).
    pub fn put(&self, key: &[u8; 32], reply: &CachedReply) -> Result<(), LlmError> {
        // After `flush` a reply is still served from memory for this run, as before it.
        self.shared.lock().fresh.insert(*key, reply.clone());
        Ok(())
    }

    /// Commits everything stored so far and stops the writer.
    pub fn flush(&self) {
        self.shared.lock().closed = true;
        self.shared.wake.notify_all();
        let writer = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(w) = writer {
            let _ = w.join();
        }
    }

    /// Number of committed replies.
    pub fn len(&self) -> Result<u64, LlmError> {
        use redb::ReadableTableMetadata;
        let tx = self.db.begin_read().map_err(|e| self.err(e))?;
        let table = tx.open_table(TABLE).map_err(|e| self.err(e))?;
        table.len().map_err(|e| self.err(e))
    }

    /// Whether nothing is committed.
    pub fn is_empty(&self) -> Result<bool, LlmError> {
        Ok(self.len()? == 0)
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(n: u64) -> CachedReply {
        CachedReply {
            content: format!("{{\"utterance\":\"第{n}句\",\"end_call\":false}}"),
            prompt_tokens: 100 + n,
            completion_tokens: n,
        }
    }

    fn key(n: u8) -> [u8; 32] {
        let mut k = [0u8; 32];
        k[0] = n;
        k[31] = n.wrapping_mul(7);
        k
    }

    #[test]
    fn replies_are_found_before_and_after_commit_and_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.redb");
        let cache = Cache::open(&path).unwrap();
        for n in 0..50u8 {
            cache.put(&key(n), &reply(n as u64)).unwrap();
        }
        // Before the writer's window has passed: served from memory.
        assert_eq!(cache.get(&key(3)).unwrap(), Some(reply(3)));
        // Wait for the commit itself (it comes within a window or two), failing if it never does.
        let deadline = Instant::now() + Duration::from_secs(30);
        while cache.len().unwrap() < 50 {
            assert!(Instant::now() < deadline, "the writer never committed");
            std::thread::sleep(COMMIT_WINDOW);
        }
        assert_eq!(cache.len().unwrap(), 50);
        assert_eq!(cache.get(&key(49)).unwrap(), Some(reply(49)));
        assert_eq!(cache.get(&key(200)).unwrap(), None);
        cache.put(&key(60), &reply(60)).unwrap();
        cache.flush();
        drop(cache);

        let cache = Cache::open(&path).unwrap();
        assert_eq!(cache.len().unwrap(), 51);
        for n in (0..50u8).chain([60]) {
            assert_eq!(
                cache.get(&key(n)).unwrap(),
                Some(reply(n as u64)),
                "key {n}"
            );
        }
        assert_eq!(cache.get(&key(61)).unwrap(), None);
    }

    #[test]
    fn a_key_sharing_a_prefix_with_a_stored_one_is_still_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.redb");
        let cache = Cache::open(&path).unwrap();
        cache.put(&key(1), &reply(1)).unwrap();
        drop(cache);
        let cache = Cache::open(&path).unwrap();
        let mut other = key(1);
        other[20] = 0xff; // same first 8 bytes, different key
        assert_eq!(cache.get(&other).unwrap(), None);
        assert_eq!(cache.get(&key(1)).unwrap(), Some(reply(1)));
    }

    #[test]
    fn entries_of_the_json_format_are_read_and_garbage_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.redb");
        {
            let db = Database::create(&path).unwrap();
            let tx = db.begin_write().unwrap();
            {
                let mut t = tx.open_table(TABLE).unwrap();
                let json = serde_json::to_vec(&reply(7)).unwrap();
                t.insert(key(7).as_slice(), json.as_slice()).unwrap();
                t.insert(key(8).as_slice(), [9u8, 1, 2].as_slice()).unwrap();
                t.insert(key(9).as_slice(), [FORMAT, 1, 2].as_slice())
                    .unwrap();
            }
            tx.commit().unwrap();
        }
        let cache = Cache::open(&path).unwrap();
        assert_eq!(cache.get(&key(7)).unwrap(), Some(reply(7)));
        assert_eq!(cache.get(&key(8)).unwrap(), None);
        assert_eq!(cache.get(&key(9)).unwrap(), None);
        assert_eq!(decode(&encode(&reply(5))), Some(reply(5)));
    }
}
