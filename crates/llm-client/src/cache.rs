//! The on-disk response cache: a redb file keyed by the SHA-256 of the full request (model,
//! messages, sampling settings, response format). A resumed or repeated run asks the cache first
//! and never pays twice for the same call. redb commits are durable, so a `kill -9` loses at
//! most the reply in flight.

use crate::error::LlmError;
use redb::{Database, ReadableDatabase, TableDefinition};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const TABLE: TableDefinition<&[u8], &[u8]> = TableDefinition::new("chat_replies");

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

/// The cache.
pub struct Cache {
    db: Database,
    path: PathBuf,
}

impl Cache {
    /// Opens (or creates) the cache file.
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
        Ok(Cache {
            db,
            path: path.to_path_buf(),
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
        let tx = self.db.begin_read().map_err(|e| self.err(e))?;
        let table = tx.open_table(TABLE).map_err(|e| self.err(e))?;
        let Some(v) = table.get(key.as_slice()).map_err(|e| self.err(e))? else {
            return Ok(None);
        };
        // An entry that does not parse (written by another version) is a miss, not an error.
        Ok(serde_json::from_slice(v.value()).ok())
    }

    /// Stores a reply.
    pub fn put(&self, key: &[u8; 32], reply: &CachedReply) -> Result<(), LlmError> {
        let bytes = serde_json::to_vec(reply).map_err(|e| self.err(e))?;
        let tx = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut table = tx.open_table(TABLE).map_err(|e| self.err(e))?;
            table
                .insert(key.as_slice(), bytes.as_slice())
                .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Number of cached replies.
    pub fn len(&self) -> Result<u64, LlmError> {
        use redb::ReadableTableMetadata;
        let tx = self.db.begin_read().map_err(|e| self.err(e))?;
        let table = tx.open_table(TABLE).map_err(|e| self.err(e))?;
        table.len().map_err(|e| self.err(e))
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> Result<bool, LlmError> {
        Ok(self.len()? == 0)
    }
}
