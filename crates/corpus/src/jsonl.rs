//! JSONL: the interchange format of CONTRACT.md, one [`Dialogue`] a line, and any other
//! one-value-a-line file (check reports).

use crate::atomic::TempFile;
use crate::error::{CorpusError, Result};
use callbench_model::Dialogue;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

/// Reads a JSONL file line by line; a bad line is reported and reading goes on.
///
/// Yields `(line, value)` with the 1-based line number, and for a line that cannot be read a
/// message saying why (the JSON error with its column, or "not valid UTF-8"). Blank lines are
/// skipped; a UTF-8 byte-order mark and `\r\n` line ends are accepted. An I/O error while
/// reading ends the iteration after one last item carrying it.
pub struct JsonlReader<T = Dialogue> {
    reader: Box<dyn BufRead + Send>,
    line: usize,
    buf: Vec<u8>,
    done: bool,
    _value: PhantomData<fn() -> T>,
}

/// Opens `path` as interchange JSONL, one [`Dialogue`] a line; see [`JsonlReader`].
pub fn read_jsonl(path: &Path) -> Result<JsonlReader<Dialogue>> {
    JsonlReader::open(path)
}

impl<T: DeserializeOwned> JsonlReader<T> {
    /// Opens a file.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| CorpusError::io(path, e))?;
        Ok(Self::from_reader(Box::new(BufReader::with_capacity(
            1 << 16,
            file,
        ))))
    }

    /// Reads from any buffered reader (standard input, a test string).
    pub fn from_reader(reader: Box<dyn BufRead + Send>) -> Self {
        JsonlReader {
            reader,
            line: 0,
            buf: Vec::new(),
            done: false,
            _value: PhantomData,
        }
    }
}

/// serde_json's message without its " at line 1 column N" suffix, with the column kept.
fn json_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match full.strip_suffix(&suffix) {
        Some(msg) if e.column() > 0 => format!("{msg} (column {})", e.column()),
        Some(msg) => msg.to_string(),
        None => full,
    }
}

impl<T: DeserializeOwned> Iterator for JsonlReader<T> {
    type Item = (usize, std::result::Result<T, String>);

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.buf.clear();
            self.line += 1;
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => self.done = true,
                Ok(_) => {
                    let mut bytes = self.buf.as_slice();
                    if self.line == 1 {
                        bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
                    }
                    let text = match std::str::from_utf8(bytes) {
                        Ok(t) => t,
                        Err(e) => {
                            return Some((
                                self.line,
                                Err(format!("not valid UTF-8 (byte {})", e.valid_up_to() + 1)),
                            ));
                        }
                    };
                    if text.trim().is_empty() {
                        continue;
                    }
                    return Some((
                        self.line,
                        serde_json::from_str(text).map_err(|e| json_message(&e)),
                    ));
                }
                Err(e) => {
                    self.done = true;
                    return Some((self.line, Err(format!("read error: {e}"))));
                }
            }
        }
        None
    }
}

/// Writes a JSONL file, one `serde_json` line per value, atomically: lines go to a buffered temp
/// file beside `path`, and [`JsonlWriter::finish`] fsyncs it and renames it over `path`.
/// Dropped without `finish`, the writer removes its temp file and `path` is left as it was.
pub struct JsonlWriter {
    tmp: TempFile,
    out: BufWriter<File>,
    lines: u64,
}

impl JsonlWriter {
    /// Starts writing `path` (creating its folder if needed).
    pub fn create(path: &Path) -> Result<Self> {
        let (tmp, file) = TempFile::create(path)?;
        Ok(JsonlWriter {
            tmp,
            out: BufWriter::with_capacity(1 << 16, file),
            lines: 0,
        })
    }

    /// Writes one value (a [`Dialogue`], a check-report line, …) as one line.
    pub fn write<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.lines += 1;
        serde_json::to_writer(&mut self.out, value).map_err(|e| {
            if e.is_io() {
                CorpusError::io(&self.tmp.tmp, std::io::Error::other(e.to_string()))
            } else {
                CorpusError::Json {
                    path: self.tmp.dest.clone(),
                    line: Some(self.lines as usize),
                    message: e.to_string(),
                }
            }
        })?;
        self.out
            .write_all(b"\n")
            .map_err(|e| CorpusError::io(&self.tmp.tmp, e))
    }

    /// Lines written so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// The file being written (the destination, not the temp file).
    pub fn path(&self) -> &Path {
        &self.tmp.dest
    }

    /// Flushes, fsyncs and renames the temp file over the destination; returns the line count.
    pub fn finish(self) -> Result<u64> {
        let JsonlWriter { tmp, out, lines } = self;
        let file = out
            .into_inner()
            .map_err(|e| CorpusError::io(&tmp.tmp, e.into_error()))?;
        tmp.commit(file)?;
        Ok(lines)
    }
}

/// Reads a whole JSON file into a value; errors name the file (serde_json's message gives line
/// and column).
pub(crate) fn read_json_file<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let bytes = std::fs::read(path).map_err(|e| CorpusError::io(path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| CorpusError::Json {
        path: PathBuf::from(path),
        line: None,
        message: e.to_string(),
    })
}
