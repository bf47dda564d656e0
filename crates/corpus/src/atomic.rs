//! Atomic file replacement: write a hidden temp file beside the destination, flush and fsync it,
//! rename it over the destination, fsync the directory. A reader sees the old file or the whole
//! new one, never a part; a crash leaves at most a `.NAME.tmp` file, which [`crate::Ledger::open`]
//! deletes.
//!
//! [`write_atomic`] writes bytes at once; [`AtomicFile`] streams a file of any size through a
//! buffer and puts it in place with [`AtomicFile::commit`]. Both are public so that other crates
//! writing beside the corpus (the inspection sample and reports) share this one implementation.

use crate::error::{CorpusError, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
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

/// A file written aside and put in place whole: bytes go through a buffer to the hidden temp
/// file `.NAME.tmp` beside the destination, and [`AtomicFile::commit`] flushes and fsyncs it,
/// renames it over the destination and fsyncs the folder. Dropped without `commit` (an error,
/// a panic), it removes its temp file and the destination is left as it was.
pub struct AtomicFile {
    out: BufWriter<File>,
    tmp: TempFile,
}

impl AtomicFile {
    /// Starts writing `dest` (creating its folder if needed; a stale temp file is truncated).
    pub fn create(dest: &Path) -> Result<AtomicFile> {
        let (tmp, file) = TempFile::create(dest)?;
        Ok(AtomicFile {
            out: BufWriter::with_capacity(1 << 16, file),
            tmp,
        })
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.tmp.dest
    }

    /// The temp file being written.
    pub fn temp_path(&self) -> &Path {
        &self.tmp.tmp
    }

    /// Flushes, fsyncs and renames the temp file over the destination, then fsyncs the folder.
    pub fn commit(self) -> Result<()> {
        let AtomicFile { out, tmp } = self;
        let file = out
            .into_inner()
            .map_err(|e| CorpusError::io(&tmp.tmp, e.into_error()))?;
        tmp.commit(file)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.out.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Writes `bytes` to `dest` atomically: the whole new file or, after a failure or a crash, the
/// old one (and at most a stale `.NAME.tmp` beside it).
pub fn write_atomic(dest: &Path, bytes: &[u8]) -> Result<()> {
    let (tmp, mut file) = TempFile::create(dest)?;
    file.write_all(bytes)
        .map_err(|e| CorpusError::io(&tmp.tmp, e))?;
    tmp.commit(file)
}

/// Fsyncs a directory so that a rename or a new entry in it survives a crash.
pub fn sync_dir(dir: &Path) -> Result<()> {
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
