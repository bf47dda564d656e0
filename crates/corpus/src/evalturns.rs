//! `RUN/turns.parquet` of `callbench evaluate`: one row per scored assistant turn
//! ([`EvalTurn`]), in plain Arrow types like the corpus shards, so that pyarrow, DuckDB and
//! polars open it without options.
//!
//! Columns: `dialogue_id`, `split`, `cell` (`scenario/preset_case/relation`), `scenario`,
//! `preset_case`, `relation`, `method`, `trial`, `turn` (0-based index into the call),
//! `utterance`, `action`, `preset_id`, `end_call`, `reference` (the corpus's own turn at that
//! index, turn mode), `reference_action`, `scores` (struct of the seven dimension keys, nullable
//! `Float64`: null is "not judged"), `reasons` (struct of the same keys, nullable `Utf8`),
//! `findings` (list of struct `kind`, `evidence`, `message`: the quality checker on that turn),
//! `requests`, `prompt_tokens`, `completion_tokens`, `latency_ms`, `cost` (the method's),
//! `judge_requests`, `judge_tokens`, `judge_cost`, `trace` (list of struct `kind`, `text`: hidden
//! reasoning and tool steps) and `unjudged_reason` (null when judged).

use crate::atomic::AtomicFile;
use crate::error::{CorpusError, Result};
use arrow::array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, ListArray, StringArray, StructArray,
    UInt32Array, UInt64Array,
};
use arrow::buffer::OffsetBuffer;
use arrow::datatypes::{DataType, Field, Fields, Schema};
use arrow::record_batch::RecordBatch;
use callbench_model::{Action, JUDGE_DIMENSIONS};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// A checker finding on a scored turn (the turn index is the row's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalFinding {
    /// Violation kind (`safety.privacy`, …).
    pub kind: String,
    /// The words that show it.
    pub evidence: String,
    /// What is wrong, for a person.
    pub message: String,
}

/// One step of a method's hidden work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvalTrace {
    /// `thought`, `tool`, `observation`, …
    pub kind: String,
    /// What the step said or returned.
    pub text: String,
}

/// One scored assistant turn.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EvalTurn {
    /// The corpus dialogue.
    pub dialogue_id: String,
    /// Its split.
    pub split: String,
    /// Scenario.
    pub scenario: String,
    /// Preset case.
    pub preset_case: String,
    /// Relation.
    pub relation: String,
    /// The method's name.
    pub method: String,
    /// The trial (live mode: the caller's seed number; 0 in turn mode).
    pub trial: u32,
    /// 0-based index of the turn in the call.
    pub turn: u32,
    /// What the method said.
    pub utterance: String,
    /// Its decision, when it gave one.
    pub action: Option<Action>,
    /// The preset the decision concerns.
    pub preset_id: Option<String>,
    /// The method closed the call with this turn.
    pub end_call: bool,
    /// The corpus's own assistant turn at this index (turn mode).
    pub reference: Option<String>,
    /// The corpus turn's decision.
    pub reference_action: Option<Action>,
    /// Scores in [`JUDGE_DIMENSIONS`] order; `None` is "not judged".
    pub scores: [Option<f64>; 7],
    /// The judge's reason per dimension.
    pub reasons: [Option<String>; 7],
    /// The quality checker's findings on this turn.
    pub findings: Vec<EvalFinding>,
    /// Model requests of the method.
    pub requests: u32,
    /// Prompt tokens of the method.
    pub prompt_tokens: u64,
    /// Completion tokens of the method.
    pub completion_tokens: u64,
    /// The method's wall time in milliseconds.
    pub latency_ms: u64,
    /// The method's cost.
    pub cost: f64,
    /// Model requests of the judge.
    pub judge_requests: u32,
    /// Tokens of the judge (prompt and completion).
    pub judge_tokens: u64,
    /// The judge's cost.
    pub judge_cost: f64,
    /// Hidden reasoning and tool steps.
    pub trace: Vec<EvalTrace>,
    /// Why the turn is not judged; `None` when it is.
    pub unjudged_reason: Option<String>,
}

impl EvalTurn {
    /// `scenario/preset_case/relation`.
    pub fn cell(&self) -> String {
        format!("{}/{}/{}", self.scenario, self.preset_case, self.relation)
    }
}

fn kv_fields(a: &str, b: &str) -> Fields {
    Fields::from(vec![
        Field::new(a, DataType::Utf8, false),
        Field::new(b, DataType::Utf8, false),
    ])
}

fn list_of(fields: &Fields) -> DataType {
    DataType::List(Arc::new(Field::new_list_field(
        DataType::Struct(fields.clone()),
        false,
    )))
}

/// The schema of `turns.parquet`.
pub fn eval_turns_schema() -> Arc<Schema> {
    let scores = Fields::from(
        JUDGE_DIMENSIONS
            .iter()
            .map(|d| Field::new(*d, DataType::Float64, true))
            .collect::<Vec<_>>(),
    );
    let reasons = Fields::from(
        JUDGE_DIMENSIONS
            .iter()
            .map(|d| Field::new(*d, DataType::Utf8, true))
            .collect::<Vec<_>>(),
    );
    let finding = Fields::from(vec![
        Field::new("kind", DataType::Utf8, false),
        Field::new("evidence", DataType::Utf8, false),
        Field::new("message", DataType::Utf8, false),
    ]);
    let s = |n: &str| Field::new(n, DataType::Utf8, false);
    let so = |n: &str| Field::new(n, DataType::Utf8, true);
    Arc::new(Schema::new(vec![
        s("dialogue_id"),
        s("split"),
        s("cell"),
        s("scenario"),
        s("preset_case"),
        s("relation"),
        s("method"),
        Field::new("trial", DataType::UInt32, false),
        Field::new("turn", DataType::Int32, false),
        s("utterance"),
        so("action"),
        so("preset_id"),
        Field::new("end_call", DataType::Boolean, false),
        so("reference"),
        so("reference_action"),
        Field::new("scores", DataType::Struct(scores), false),
        Field::new("reasons", DataType::Struct(reasons), false),
        Field::new("findings", list_of(&finding), false),
        Field::new("requests", DataType::UInt32, false),
        Field::new("prompt_tokens", DataType::UInt64, false),
        Field::new("completion_tokens", DataType::UInt64, false),
        Field::new("latency_ms", DataType::UInt64, false),
        Field::new("cost", DataType::Float64, false),
        Field::new("judge_requests", DataType::UInt32, false),
        Field::new("judge_tokens", DataType::UInt64, false),
        Field::new("judge_cost", DataType::Float64, false),
        Field::new("trace", list_of(&kv_fields("kind", "text")), false),
        so("unjudged_reason"),
    ]))
}

fn strs<'a>(it: impl Iterator<Item = &'a str>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(it))
}

fn opt_strs<'a>(it: impl Iterator<Item = Option<&'a str>>) -> ArrayRef {
    Arc::new(it.collect::<StringArray>())
}

fn struct_of(fields: &Fields, arrays: Vec<ArrayRef>, column: &str) -> Result<StructArray> {
    StructArray::try_new(fields.clone(), arrays, None)
        .map_err(|e| CorpusError::column(column.to_string(), None, e.to_string()))
}

fn list_col(dt: &DataType, lens: impl Iterator<Item = usize>, values: StructArray) -> ArrayRef {
    let DataType::List(item) = dt else {
        unreachable!("list_of builds a list")
    };
    Arc::new(ListArray::new(
        item.clone(),
        OffsetBuffer::from_lengths(lens),
        Arc::new(values),
        None,
    ))
}

/// The rows as one record batch of [`eval_turns_schema`].
pub fn eval_turns_to_batch(rows: &[EvalTurn]) -> Result<RecordBatch> {
    let schema = eval_turns_schema();
    let field_fields = |name: &str| -> Fields {
        match schema.field_with_name(name).map(|f| f.data_type().clone()) {
            Ok(DataType::Struct(f)) => f,
            Ok(DataType::List(item)) => match item.data_type() {
                DataType::Struct(f) => f.clone(),
                _ => Fields::empty(),
            },
            _ => Fields::empty(),
        }
    };
    let cells: Vec<String> = rows.iter().map(EvalTurn::cell).collect();
    let turn: Vec<i32> = rows
        .iter()
        .map(|r| i32::try_from(r.turn).unwrap_or(i32::MAX))
        .collect();
    let scores = struct_of(
        &field_fields("scores"),
        (0..7)
            .map(|k| {
                Arc::new(rows.iter().map(|r| r.scores[k]).collect::<Float64Array>()) as ArrayRef
            })
            .collect(),
        "scores",
    )?;
    let reasons = struct_of(
        &field_fields("reasons"),
        (0..7)
            .map(|k| opt_strs(rows.iter().map(|r| r.reasons[k].as_deref())))
            .collect(),
        "reasons",
    )?;
    let all_findings = || rows.iter().flat_map(|r| &r.findings);
    let findings = struct_of(
        &field_fields("findings"),
        vec![
            strs(all_findings().map(|f| f.kind.as_str())),
            strs(all_findings().map(|f| f.evidence.as_str())),
            strs(all_findings().map(|f| f.message.as_str())),
        ],
        "findings",
    )?;
    let all_trace = || rows.iter().flat_map(|r| &r.trace);
    let trace = struct_of(
        &field_fields("trace"),
        vec![
            strs(all_trace().map(|t| t.kind.as_str())),
            strs(all_trace().map(|t| t.text.as_str())),
        ],
        "trace",
    )?;
    let columns: Vec<ArrayRef> = vec![
        strs(rows.iter().map(|r| r.dialogue_id.as_str())),
        strs(rows.iter().map(|r| r.split.as_str())),
        strs(cells.iter().map(String::as_str)),
        strs(rows.iter().map(|r| r.scenario.as_str())),
        strs(rows.iter().map(|r| r.preset_case.as_str())),
        strs(rows.iter().map(|r| r.relation.as_str())),
        strs(rows.iter().map(|r| r.method.as_str())),
        Arc::new(UInt32Array::from_iter_values(rows.iter().map(|r| r.trial))),
        Arc::new(Int32Array::from(turn)),
        strs(rows.iter().map(|r| r.utterance.as_str())),
        opt_strs(rows.iter().map(|r| r.action.map(Action::as_str))),
        opt_strs(rows.iter().map(|r| r.preset_id.as_deref())),
        Arc::new(BooleanArray::from_iter(
            rows.iter().map(|r| Some(r.end_call)),
        )),
        opt_strs(rows.iter().map(|r| r.reference.as_deref())),
        opt_strs(rows.iter().map(|r| r.reference_action.map(Action::as_str))),
        Arc::new(scores),
        Arc::new(reasons),
        list_col(
            schema
                .field_with_name("findings")
                .map_or(&DataType::Null, |f| f.data_type()),
            rows.iter().map(|r| r.findings.len()),
            findings,
        ),
        Arc::new(UInt32Array::from_iter_values(
            rows.iter().map(|r| r.requests),
        )),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.prompt_tokens),
        )),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.completion_tokens),
        )),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.latency_ms),
        )),
        Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.cost))),
        Arc::new(UInt32Array::from_iter_values(
            rows.iter().map(|r| r.judge_requests),
        )),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.judge_tokens),
        )),
        Arc::new(Float64Array::from_iter_values(
            rows.iter().map(|r| r.judge_cost),
        )),
        list_col(
            schema
                .field_with_name("trace")
                .map_or(&DataType::Null, |f| f.data_type()),
            rows.iter().map(|r| r.trace.len()),
            trace,
        ),
        opt_strs(rows.iter().map(|r| r.unjudged_reason.as_deref())),
    ];
    RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| CorpusError::column("*", None, e.to_string()))
}

/// Writes `rows` to `dest` (zstd Parquet) atomically: the whole new file or the old one.
pub fn write_eval_turns(dest: &Path, rows: &[EvalTurn]) -> Result<()> {
    let batch = eval_turns_to_batch(rows).map_err(|e| e.in_file(dest, 0))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap_or_default()))
        .set_max_row_group_row_count(Some(8192))
        .set_created_by(format!("callbench evaluate {}", env!("CARGO_PKG_VERSION")))
        .build();
    let mut file = AtomicFile::create(dest)?;
    {
        let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props))
            .map_err(|e| CorpusError::parquet(dest, e))?;
        writer
            .write(&batch)
            .map_err(|e| CorpusError::parquet(dest, e))?;
        writer.close().map_err(|e| CorpusError::parquet(dest, e))?;
    }
    file.commit()
}
