//! Atomic file replacement: write a hidden temp file beside the destination, flush and fsync it,
//! rename it over the destination, fsync the directory. A reader sees the old file or the whole
//! new one, never a part; a crash leaves at most a `.NAME.tmp` file, which [`crate::Ledger::open`]
//! deletes.

use crate::error::{CorpusError, Result};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The temp path for `dest`: `.NAME.tmp` in the same directory.
pub(crate) fn temp_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dest.with_file_name(format!(".{name}.tmp"))
}

/// A temp file being written; removed on drop unless [`TempFile::commit`] renamed it.
pub(crate) struct TempFile {
    pub(crate) tmp: PathBuf,
    pub(crate) dest: PathBuf,
    armed: bool,
}

impl TempFile {
    /// Creates the destination's directory if needed and the temp file (truncating a stale one).
    pub(crate) fn create(dest: &Path) -> Result<(TempFile, File)> {
        if let Some(dir) = dest.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| CorpusError::io(dir, e))?;
        }
        let tmp = temp_path(dest);
        let file = File::create(&tmp).map_err(|e| CorpusError::io(&tmp, e))?;
        Ok((
            TempFile {
                tmp,
                dest: dest.to_path_buf(),
                armed: true,
            },
            file,
        ))
    }

    /// Fsyncs `file` (the temp file, already flushed), renames it over the destination and
    /// fsyncs the directory.
    pub(crate) fn commit(mut self, file: File) -> Result<()> {
        file.sync_all().map_err(|e| CorpusError::io(&self.tmp, e))?;
        drop(file);
        std::fs::rename(&self.tmp, &self.dest).map_err(|e| CorpusError::io(&self.dest, e))?;
        self.armed = false;
        sync_dir(self.dest.parent().unwrap_or(Path::new(".")))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.armed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `dest` atomically.
pub(crate) fn write_atomic(dest: &Path, bytes: &[u8]) -> Result<()> {
    let (tmp, mut file) = TempFile::create(dest)?;
    file.write_all(bytes)
        .map_err(|e| CorpusError::io(&tmp.tmp, e))?;
    tmp.commit(file)
}

/// Fsyncs a directory so that a rename or a new entry in it survives a crash.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    #[cfg(unix)]
    {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| CorpusError::io(dir, e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
