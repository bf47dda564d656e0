//! Parquet shards (`OUT/shards/part-NNNNN.parquet`) and rejects files
//! (`OUT/rejects/part-NNNNN.jsonl`), each written atomically.

use crate::atomic::TempFile;
use crate::batch::{
    DialogueKey, KEY_COLUMNS, batch_to_dialogues, batch_to_keys, dialogues_to_batch, schema,
};
use crate::error::{CorpusError, Result};
use crate::jsonl::JsonlWriter;
use callbench_model::Dialogue;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The folder of shards inside an output directory.
pub const SHARDS_DIR: &str = "shards";
/// The folder of rejects files inside an output directory.
pub const REJECTS_DIR: &str = "rejects";

/// The relative path of shard `index`: `shards/part-00003.parquet`.
pub fn shard_file(index: u32) -> String {
    format!("{SHARDS_DIR}/part-{index:05}.parquet")
}

/// The relative path of the rejects file of shard `index`: `rejects/part-00003.jsonl`.
pub fn rejects_file(index: u32) -> String {
    format!("{REJECTS_DIR}/part-{index:05}.jsonl")
}

/// How shards are written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ShardWriterConfig {
    /// zstd level (1–22); 3 is zstd's own default.
    pub compression_level: i32,
    /// Most rows in one Parquet row group.
    pub row_group_size: usize,
}

impl Default for ShardWriterConfig {
    fn default() -> Self {
        ShardWriterConfig {
            compression_level: 3,
            row_group_size: 8192,
        }
    }
}

/// What was written for one shard; a line of the ledger and an entry of the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// Path relative to the output directory (`shards/part-00003.parquet`).
    pub file: String,
    /// The shard's number.
    pub index: u32,
    /// Dialogues in the shard.
    pub rows: u64,
    /// File size in bytes.
    pub bytes: u64,
    /// SHA-256 of the file, lower-case hex.
    pub sha256: String,
    /// Id of the first dialogue (empty for an empty shard).
    pub first_id: String,
    /// Id of the last dialogue (empty for an empty shard).
    pub last_id: String,
    /// The shard's rejects file relative to the output directory, when the checker rejected any
    /// of its dialogues (`rejects/part-00003.jsonl`). Set it from [`write_rejects`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejects: Option<String>,
    /// Counts the pipeline keeps beside the shard (turns, per-cell counts, findings), so that a
    /// resumed run can total the corpus without reading the shards back. Opaque to this crate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<serde_json::Value>,
    /// Shards this one replaces (a growing corpus rewrites a shard without the dialogues of a
    /// scenario it regenerates): recorded in the same ledger line, so that a crash never leaves
    /// both counted. The ledger drops the replaced ones and deletes their files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaces: Vec<u32>,
}

/// A writer that hashes and counts what passes through.
struct Hashing<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes `dialogues` as `dir/shards/part-{index:05}.parquet`, atomically: a temp file
/// `.part-{index:05}.parquet.tmp` in the same folder is written, flushed and fsynced, renamed
/// over the shard, and the folder is fsynced. An existing shard of that index is replaced.
pub fn write_shard(
    dir: &Path,
    index: u32,
    dialogues: &[Dialogue],
    cfg: &ShardWriterConfig,
) -> Result<ShardInfo> {
    let file = shard_file(index);
    let dest = dir.join(&file);
    let batch = dialogues_to_batch(dialogues).map_err(|e| e.in_file(&dest, 0))?;
    let mut writer = ShardStreamWriter::create(&dest, cfg)?;
    writer.write_batch(&batch, dialogues)?;
    let written = writer.finish()?;

    let info = ShardInfo {
        file,
        index,
        rows: written.rows,
        bytes: written.bytes,
        sha256: written.sha256,
        first_id: written.first_id,
        last_id: written.last_id,
        rejects: None,
        stats: None,
        replaces: Vec::new(),
    };
    tracing::debug!(file = %info.file, rows = info.rows, bytes = info.bytes, "wrote shard");
    Ok(info)
}

/// What a [`ShardStreamWriter`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamedShard {
    /// Dialogues in the file.
    pub rows: u64,
    /// File size in bytes.
    pub bytes: u64,
    /// SHA-256 of the file, lower-case hex.
    pub sha256: String,
    /// Id of the first dialogue (empty for an empty file).
    pub first_id: String,
    /// Id of the last dialogue (empty for an empty file).
    pub last_id: String,
}

/// Writes one Parquet file of the shard [`schema`] chunk by chunk, so that a file of any size
/// is written holding only the chunk at hand and the row group being encoded (at most
/// [`ShardWriterConfig::row_group_size`] rows, compressed). Atomic like [`write_shard`]: rows go
/// to a hidden temp file `.NAME.tmp` beside the destination, and [`ShardStreamWriter::finish`]
/// flushes and fsyncs it, renames it over the destination and fsyncs the folder. Dropped
/// without `finish` (an error, a panic), it removes its temp file and the destination is left
/// as it was.
///
/// Written in chunks of `row_group_size` rows, the file is byte for byte the one
/// [`write_shard`] writes for the same dialogues; in other chunks it holds the same rows in the
/// same row groups (page boundaries inside a row group may differ).
pub struct ShardStreamWriter {
    writer: ArrowWriter<Hashing<BufWriter<File>>>,
    tmp: TempFile,
    rows: u64,
    first_id: String,
    last_id: String,
    /// Rows per row group.
    group_rows: usize,
    /// Converted rows given to [`ShardStreamWriter::buffer`], not yet a full row group.
    pending: Vec<arrow::record_batch::RecordBatch>,
    pending_rows: usize,
}

impl ShardStreamWriter {
    /// Starts writing `dest` (creating its folder if needed). A bad compression level is an
    /// error before anything is created.
    pub fn create(dest: &Path, cfg: &ShardWriterConfig) -> Result<ShardStreamWriter> {
        Self::with_buffer(dest, cfg, 1 << 20)
    }

    /// [`ShardStreamWriter::create`] with a write buffer of `buffer_bytes` instead of 1 MiB:
    /// for many files open at once (the bytes written are the same).
    pub fn with_buffer(
        dest: &Path,
        cfg: &ShardWriterConfig,
        buffer_bytes: usize,
    ) -> Result<ShardStreamWriter> {
        Self::build(dest, cfg, buffer_bytes, true)
    }

    /// A scratch file, read back only by [`read_shard`] or [`ShardReader`] and then removed:
    /// zstd level 1, a 64 KiB buffer and no column statistics or page index, which a writer
    /// would otherwise hold for every row group until the footer (many small row groups in many
    /// files open at once add up).
    pub fn scratch(dest: &Path, row_group_size: usize) -> Result<ShardStreamWriter> {
        let cfg = ShardWriterConfig {
            compression_level: 1,
            row_group_size,
        };
        Self::build(dest, &cfg, 64 << 10, false)
    }

    fn build(
        dest: &Path,
        cfg: &ShardWriterConfig,
        buffer_bytes: usize,
        statistics: bool,
    ) -> Result<ShardStreamWriter> {
        let level =
            ZstdLevel::try_new(cfg.compression_level).map_err(|e| CorpusError::parquet(dest, e))?;
        let mut props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(level))
            .set_max_row_group_row_count(Some(cfg.row_group_size.max(1)))
            .set_created_by(format!("callbench corpus {}", env!("CARGO_PKG_VERSION")));
        if !statistics {
            props = props.set_statistics_enabled(EnabledStatistics::None);
        }
        let props = props.build();
        let (tmp, f) = TempFile::create(dest)?;
        let sink = Hashing {
            inner: BufWriter::with_capacity(buffer_bytes.max(1), f),
            hasher: Sha256::new(),
            bytes: 0,
        };
        let writer = ArrowWriter::try_new(sink, schema(), Some(props))
            .map_err(|e| CorpusError::parquet(&tmp.tmp, e))?;
        Ok(ShardStreamWriter {
            writer,
            tmp,
            rows: 0,
            first_id: String::new(),
            last_id: String::new(),
            group_rows: cfg.row_group_size.max(1),
            pending: Vec::new(),
            pending_rows: 0,
        })
    }

    /// Appends `dialogues` after those already written. A full row group is encoded and written
    /// out as soon as it fills; errors name the destination and the row within the file.
    pub fn write(&mut self, dialogues: &[Dialogue]) -> Result<()> {
        if dialogues.is_empty() {
            return Ok(());
        }
        let batch = dialogues_to_batch(dialogues)
            .map_err(|e| e.in_file(&self.tmp.dest, self.rows as usize))?;
        self.write_batch(&batch, dialogues)
    }

    /// [`ShardStreamWriter::write`], but the dialogues are dropped once converted, before the
    /// batch is encoded, so that they and the encoder's buffers are not held at once. The bytes
    /// written are the same.
    pub fn write_owned(&mut self, dialogues: Vec<Dialogue>) -> Result<()> {
        if dialogues.is_empty() {
            return Ok(());
        }
        let batch = dialogues_to_batch(&dialogues)
            .map_err(|e| e.in_file(&self.tmp.dest, self.rows as usize))?;
        let n = dialogues.len();
        let first = dialogues.first().map(|d| d.id.clone());
        let last = dialogues.last().map(|d| d.id.clone());
        drop(dialogues);
        self.write_rows(&batch, n, first, last)
    }

    fn write_batch(
        &mut self,
        batch: &arrow::record_batch::RecordBatch,
        dialogues: &[Dialogue],
    ) -> Result<()> {
        self.write_rows(
            batch,
            dialogues.len(),
            dialogues.first().map(|d| d.id.clone()),
            dialogues.last().map(|d| d.id.clone()),
        )
    }

    /// Appends `dialogues`, converted at once (and dropped) but encoded a whole row group at a
    /// time: the file is byte for byte the one that [`ShardStreamWriter::write`] of each full
    /// row group's dialogues writes, while only one row group is held, as Arrow arrays (about
    /// half the size of the dialogues). Call [`ShardStreamWriter::finish`] to write the rest.
    pub fn buffer(&mut self, mut dialogues: Vec<Dialogue>) -> Result<()> {
        while !dialogues.is_empty() {
            let room = self.group_rows - self.pending_rows;
            let rest = if dialogues.len() > room {
                dialogues.split_off(room)
            } else {
                Vec::new()
            };
            let batch = dialogues_to_batch(&dialogues)
                .map_err(|e| e.in_file(&self.tmp.dest, self.rows as usize + self.pending_rows))?;
            self.pending_rows += dialogues.len();
            self.pending.push(batch);
            drop(dialogues);
            if self.pending_rows == self.group_rows {
                self.flush_pending()?;
            }
            dialogues = rest;
        }
        Ok(())
    }

    /// Writes the buffered rows as one batch; the ids come from its `id` column.
    fn flush_pending(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let n = std::mem::take(&mut self.pending_rows);
        let batch = if pending.len() == 1 {
            pending.into_iter().next().expect("one batch")
        } else {
            let b = arrow::compute::concat_batches(&pending[0].schema(), &pending)
                .map_err(|e| CorpusError::parquet(&self.tmp.tmp, e.into()))?;
            drop(pending);
            b
        };
        let ids = batch
            .column_by_name("id")
            .and_then(|c| c.as_any().downcast_ref::<arrow::array::StringArray>());
        let first = ids.map(|a| a.value(0).to_string());
        let last = ids.map(|a| a.value(n - 1).to_string());
        self.write_rows(&batch, n, first, last)
    }

    fn write_rows(
        &mut self,
        batch: &arrow::record_batch::RecordBatch,
        n: usize,
        first: Option<String>,
        last: Option<String>,
    ) -> Result<()> {
        if !self.pending.is_empty() {
            self.flush_pending()?;
        }
        self.writer
            .write(batch)
            .map_err(|e| CorpusError::parquet(&self.tmp.tmp, e))?;
        if let (Some(first), Some(last)) = (first, last) {
            if self.rows == 0 {
                self.first_id = first;
            }
            self.last_id = last;
        }
        self.rows += n as u64;
        Ok(())
    }

    /// Dialogues written so far.
    pub fn rows(&self) -> u64 {
        self.rows + self.pending_rows as u64
    }

    /// The destination (not the temp file).
    pub fn path(&self) -> &Path {
        &self.tmp.dest
    }

    /// Writes the last row group and the footer, fsyncs the temp file, renames it over the
    /// destination and fsyncs the folder.
    pub fn finish(mut self) -> Result<StreamedShard> {
        self.flush_pending()?;
        let ShardStreamWriter {
            writer,
            tmp,
            rows,
            first_id,
            last_id,
            ..
        } = self;
        let sink = writer
            .into_inner()
            .map_err(|e| CorpusError::parquet(&tmp.tmp, e))?;
        let Hashing {
            inner,
            hasher,
            bytes,
        } = sink;
        let f = inner
            .into_inner()
            .map_err(|e| CorpusError::io(&tmp.tmp, e.into_error()))?;
        tmp.commit(f)?;
        Ok(StreamedShard {
            rows,
            bytes,
            sha256: hex::encode(hasher.finalize()),
            first_id,
            last_id,
        })
    }
}

/// Reads a shard back, one record batch at a time.
pub struct ShardReader {
    path: PathBuf,
    reader: ParquetRecordBatchReader,
    rows: u64,
    read: usize,
}

impl ShardReader {
    /// Opens a shard; batches hold up to 8192 dialogues.
    pub fn open(path: &Path) -> Result<ShardReader> {
        Self::with_batch_size(path, 8192)
    }

    /// Opens a shard; batches hold up to `batch_size` dialogues.
    pub fn with_batch_size(path: &Path, batch_size: usize) -> Result<ShardReader> {
        let file = File::open(path).map_err(|e| CorpusError::io(path, e))?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| CorpusError::parquet(path, e))?;
        let rows = builder.metadata().file_metadata().num_rows().max(0) as u64;
        let reader = builder
            .with_batch_size(batch_size.max(1))
            .build()
            .map_err(|e| CorpusError::parquet(path, e))?;
        Ok(ShardReader {
            path: path.to_path_buf(),
            reader,
            rows,
            read: 0,
        })
    }

    /// Rows in the file, from its footer.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next record batch as it is stored, without conversion.
    pub fn next_batch(&mut self) -> Option<Result<arrow::record_batch::RecordBatch>> {
        let batch = self.reader.next()?;
        Some(batch.map_err(|e| CorpusError::parquet(&self.path, e.into())))
    }
}

impl Iterator for ShardReader {
    type Item = Result<Vec<Dialogue>>;

    /// The dialogues of the next record batch; errors name the file and the row within it.
    fn next(&mut self) -> Option<Self::Item> {
        let batch = match self.next_batch()? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        let offset = self.read;
        self.read += batch.num_rows();
        Some(batch_to_dialogues(&batch).map_err(|e| e.in_file(&self.path, offset)))
    }
}

/// Reads only the [`DialogueKey`]s of a shard (the id and cell columns), one batch at a time:
/// far cheaper than [`ShardReader`] when the turns are not needed.
pub struct KeyReader {
    path: PathBuf,
    reader: ParquetRecordBatchReader,
    read: usize,
}

impl KeyReader {
    /// Opens a shard; batches hold up to `batch_size` keys.
    pub fn with_batch_size(path: &Path, batch_size: usize) -> Result<KeyReader> {
        let file = File::open(path).map_err(|e| CorpusError::io(path, e))?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| CorpusError::parquet(path, e))?;
        let mask = ProjectionMask::columns(
            builder.metadata().file_metadata().schema_descr(),
            KEY_COLUMNS.iter().copied(),
        );
        let reader = builder
            .with_projection(mask)
            .with_batch_size(batch_size.max(1))
            .build()
            .map_err(|e| CorpusError::parquet(path, e))?;
        Ok(KeyReader {
            path: path.to_path_buf(),
            reader,
            read: 0,
        })
    }
}

impl Iterator for KeyReader {
    type Item = Result<Vec<DialogueKey>>;

    /// The keys of the next record batch; errors name the file and the row within it.
    fn next(&mut self) -> Option<Self::Item> {
        let batch = match self.reader.next()? {
            Ok(b) => b,
            Err(e) => return Some(Err(CorpusError::parquet(&self.path, e.into()))),
        };
        let offset = self.read;
        self.read += batch.num_rows();
        Some(batch_to_keys(&batch).map_err(|e| e.in_file(&self.path, offset)))
    }
}

/// Reads every dialogue of a shard.
pub fn read_shard(path: &Path) -> Result<Vec<Dialogue>> {
    let mut reader = ShardReader::open(path)?;
    let mut out = Vec::with_capacity(reader.rows() as usize);
    for chunk in &mut reader {
        out.extend(chunk?);
    }
    Ok(out)
}

/// SHA-256 of a file, lower-case hex.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = File::open(path).map_err(|e| CorpusError::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(|e| CorpusError::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// Checks that the shard (and its rejects file, if it names one) under `out_dir` is as
/// recorded: present, of the recorded size and SHA-256. A difference is a
/// [`CorpusError::Mismatch`] or, for a missing file, a [`CorpusError::Io`].
pub fn verify_shard(out_dir: &Path, info: &ShardInfo) -> Result<()> {
    let path = out_dir.join(&info.file);
    let meta = std::fs::metadata(&path).map_err(|e| CorpusError::io(&path, e))?;
    if meta.len() != info.bytes {
        return Err(CorpusError::Mismatch {
            path,
            message: format!("{} bytes, the record says {}", meta.len(), info.bytes),
        });
    }
    let sha = sha256_file(&path)?;
    if sha != info.sha256 {
        return Err(CorpusError::Mismatch {
            path,
            message: format!("sha256 {sha}, the record says {}", info.sha256),
        });
    }
    if let Some(rejects) = &info.rejects {
        let path = out_dir.join(rejects);
        std::fs::metadata(&path).map_err(|e| CorpusError::io(&path, e))?;
    }
    Ok(())
}

/// Writes the dialogues the checker rejected, with their `qc` violations, as interchange JSONL
/// `dir/rejects/part-{index:05}.jsonl` (atomically) and returns that relative path. With no
/// rejects nothing is written — a stale rejects file of the same index, left by an earlier
/// attempt at the shard, is removed — and the result is `None`.
pub fn write_rejects(dir: &Path, index: u32, rejects: &[Dialogue]) -> Result<Option<String>> {
    let file = rejects_file(index);
    let dest = dir.join(&file);
    if rejects.is_empty() {
        match std::fs::remove_file(&dest) {
            Ok(()) => crate::atomic::sync_dir(dest.parent().unwrap_or(dir))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(CorpusError::io(&dest, e)),
        }
        return Ok(None);
    }
    let mut w = JsonlWriter::create(&dest)?;
    for d in rejects {
        w.write(d)?;
    }
    w.finish()?;
    Ok(Some(file))
}
