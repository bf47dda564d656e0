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
use redb::{Database, ReadableDatabase, TableDefinition};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
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

type Pending = Arc<Mutex<HashMap<[u8; 32], CachedReply>>>;

/// The cache.
pub struct Cache {
    db: Arc<Database>,
    path: PathBuf,
    pending: Pending,
    sender: Option<Sender<[u8; 32]>>,
    writer: Option<std::thread::JoinHandle<()>>,
}

fn writer_loop(db: Arc<Database>, pending: Pending, rx: Receiver<[u8; 32]>, path: PathBuf) {
    loop {
        let Ok(first) = rx.recv() else { return };
        let mut keys = vec![first];
        let deadline = Instant::now() + COMMIT_WINDOW;
        let mut closed = false;
        while keys.len() < 4096 {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(k) => keys.push(k),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    closed = true;
                    break;
                }
            }
        }
        let batch: Vec<([u8; 32], Vec<u8>)> = {
            let p = pending.lock().unwrap_or_else(|e| e.into_inner());
            keys.iter()
                .filter_map(|k| {
                    p.get(k)
                        .map(|r| (*k, serde_json::to_vec(r).unwrap_or_default()))
                })
                .collect()
        };
        let result = (|| -> Result<(), redb::Error> {
            let tx = db.begin_write()?;
            {
                let mut table = tx.open_table(TABLE)?;
                for (k, v) in &batch {
                    table.insert(k.as_slice(), v.as_slice())?;
                }
            }
            tx.commit()?;
            Ok(())
        })();
        match result {
            Ok(()) => {
                let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
                for (k, _) in &batch {
                    p.remove(k);
                }
            }
            // The replies stay served from memory for this run; only resume loses them.
            Err(e) => tracing::warn!(cache = %path.display(), error = %e, "cache commit failed"),
        }
        if closed {
            return;
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
        let db = Arc::new(db);
        let pending: Pending = Arc::default();
        let (sender, rx) = channel();
        let writer = {
            let (db, pending, path) = (db.clone(), pending.clone(), path.to_path_buf());
            std::thread::Builder::new()
                .name("llm-cache-writer".into())
                .spawn(move || writer_loop(db, pending, rx, path))
                .map_err(|e| err(e.to_string()))?
        };
        Ok(Cache {
            db,
            path: path.to_path_buf(),
            pending,
            sender: Some(sender),
            writer: Some(writer),
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
        if let Some(r) = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
        {
            return Ok(Some(r.clone()));
        }
        let tx = self.db.begin_read().map_err(|e| self.err(e))?;
        let table = tx.open_table(TABLE).map_err(|e| self.err(e))?;
        let Some(v) = table.get(key.as_slice()).map_err(|e| self.err(e))? else {
            return Ok(None);
        };
        // An entry that does not parse (written by another version) is a miss, not an error.
        Ok(serde_json::from_slice(v.value()).ok())
    }

    /// Stores a reply (committed within [`COMMIT_WINDOW`]).
    pub fn put(&self, key: &[u8; 32], reply: &CachedReply) -> Result<(), LlmError> {
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(*key, reply.clone());
        if let Some(s) = &self.sender {
            s.send(*key)
                .map_err(|_| self.err("the cache writer stopped"))?;
        }
        Ok(())
    }

    /// Commits everything stored so far and stops the writer.
    pub fn flush(&mut self) {
        self.sender.take();
        if let Some(w) = self.writer.take() {
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
