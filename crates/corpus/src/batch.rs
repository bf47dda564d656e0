//! The Arrow schema of a corpus shard and the conversion between [`Dialogue`]s and record
//! batches.
//!
//! Only plain Arrow types are used — `Utf8`, `Int32`, `UInt32`, `UInt64`, `Float64`, `Boolean`,
//! `Struct` and `List` (items named `item`) — no maps, dictionaries or large types, so that
//! pyarrow, DuckDB and polars open the files without options. Maps of the model (`owner.public`,
//! `owner.private`, `gen.models`, `gen.versions`) are lists of `{key, value}` structs in key
//! order.
//!
//! The nullable columns `qc`, `gen` and `judge` are null where the dialogue has none. `judge`
//! is `struct{model, turns: list<struct{turn, semantic_understanding, context_use,
//! active_guidance, response_quality, preset_compliance, dialogue_rhythm, safety, reason}>}`,
//! the seven scores as `Float64` in the order of [`JUDGE_DIMENSIONS`](callbench_model::JUDGE_DIMENSIONS).
//!
//! Columns are built by hand from flat buffers rather than with nested builders: one pass over
//! the dialogues fills every leaf, which keeps 50,000 dialogues well under a second.

use crate::error::{CorpusError, Result};
use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int32Array, ListArray, StringArray,
    StructArray, UInt32Array, UInt64Array,
};
use arrow::buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{DataType, Field, FieldRef, Fields, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use callbench_model::{
    Action, Caller, Dialogue, GenInfo, JudgeScores, JudgeTurn, Owner, Preset, QcResult, Turn,
    Violation,
};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

/// The top-level column names, in schema order.
pub const COLUMNS: &[&str] = &[
    "id",
    "scenario",
    "preset_case",
    "relation",
    "split",
    "owner",
    "caller",
    "turns",
    "n_turns",
    "qc",
    "gen",
    "judge",
];

fn utf8(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

fn utf8_nullable(name: &str) -> Field {
    Field::new(name, DataType::Utf8, true)
}

fn list_item(fields: &Fields) -> FieldRef {
    Arc::new(Field::new_list_field(
        DataType::Struct(fields.clone()),
        false,
    ))
}

fn list_of_structs(name: &str, fields: &Fields) -> Field {
    Field::new(name, DataType::List(list_item(fields)), false)
}

struct Layout {
    schema: SchemaRef,
    kv: Fields,
    preset: Fields,
    owner: Fields,
    caller: Fields,
    turn: Fields,
    violation: Fields,
    qc: Fields,
    r#gen: Fields,
    judge_turn: Fields,
    judge: Fields,
    utf8_item: FieldRef,
}

static LAYOUT: LazyLock<Layout> = LazyLock::new(|| {
    let kv = Fields::from(vec![utf8("key"), utf8("value")]);
    let preset = Fields::from(vec![
        utf8("id"),
        utf8("kind"),
        utf8("trigger"),
        utf8("response"),
    ]);
    let owner = Fields::from(vec![
        utf8("name"),
        list_of_structs("public", &kv),
        list_of_structs("private", &kv),
        list_of_structs("presets", &preset),
    ]);
    let utf8_item = Arc::new(Field::new_list_field(DataType::Utf8, false));
    let caller = Fields::from(vec![
        utf8("role"),
        utf8("goal"),
        utf8_nullable("persona"),
        Field::new("events", DataType::List(utf8_item.clone()), false),
    ]);
    let turn = Fields::from(vec![
        Field::new("idx", DataType::Int32, false),
        utf8("speaker"),
        utf8("text"),
        utf8_nullable("action"),
        utf8_nullable("preset_id"),
    ]);
    let violation = Fields::from(vec![
        utf8("kind"),
        Field::new("turn", DataType::Int32, false),
        utf8("evidence"),
        utf8("message"),
    ]);
    let qc = Fields::from(vec![
        Field::new("passed", DataType::Boolean, false),
        list_of_structs("violations", &violation),
    ]);
    let r#gen = Fields::from(vec![
        utf8("backend"),
        list_of_structs("models", &kv),
        Field::new("seed", DataType::UInt64, false),
        Field::new("attempt", DataType::UInt32, false),
        list_of_structs("versions", &kv),
        // LLM replies salvaged rather than asked again (`"005.preset_id"` → what became of
        // what); empty for the offline backend. Read as empty from older shards.
        list_of_structs("repairs", &kv),
    ]);
    let score = |name: &str| Field::new(name, DataType::Float64, false);
    let judge_turn = Fields::from(vec![
        Field::new("turn", DataType::Int32, false),
        score("semantic_understanding"),
        score("context_use"),
        score("active_guidance"),
        score("response_quality"),
        score("preset_compliance"),
        score("dialogue_rhythm"),
        score("safety"),
        utf8("reason"),
    ]);
    let judge = Fields::from(vec![utf8("model"), list_of_structs("turns", &judge_turn)]);
    let schema = Arc::new(Schema::new(vec![
        utf8("id"),
        utf8("scenario"),
        utf8("preset_case"),
        utf8("relation"),
        // Null for a dialogue that belongs to no split (an interchange file, a shard written
        // before splits existed, which is then read back with `split: None`).
        utf8_nullable("split"),
        Field::new("owner", DataType::Struct(owner.clone()), false),
        Field::new("caller", DataType::Struct(caller.clone()), false),
        list_of_structs("turns", &turn),
        Field::new("n_turns", DataType::Int32, false),
        Field::new("qc", DataType::Struct(qc.clone()), true),
        Field::new("gen", DataType::Struct(r#gen.clone()), true),
        Field::new("judge", DataType::Struct(judge.clone()), true),
    ]));
    Layout {
        schema,
        kv,
        preset,
        owner,
        caller,
        turn,
        violation,
        qc,
        r#gen,
        judge_turn,
        judge,
        utf8_item,
    }
});

/// The Arrow schema of a shard (see the crate docs for the columns).
pub fn schema() -> SchemaRef {
    LAYOUT.schema.clone()
}

// ---------------------------------------------------------------------------------------------
// Dialogues → batch
// ---------------------------------------------------------------------------------------------

/// A UTF-8 column filled from `&str`s; offsets are checked once at the end.
struct Strs {
    name: &'static str,
    offsets: Vec<i32>,
    data: Vec<u8>,
    valid: Vec<bool>,
    any_null: bool,
}

impl Strs {
    fn new(name: &'static str, rows: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Strs {
            name,
            offsets,
            data: Vec::with_capacity(bytes),
            valid: Vec::with_capacity(rows),
            any_null: false,
        }
    }

    fn push(&mut self, s: &str) {
        self.data.extend_from_slice(s.as_bytes());
        // Wraps only past 2 GiB, which `finish` refuses.
        self.offsets.push(self.data.len() as i32);
        self.valid.push(true);
    }

    fn push_opt(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.push(s),
            None => {
                self.offsets.push(self.data.len() as i32);
                self.valid.push(false);
                self.any_null = true;
            }
        }
    }

    fn finish(self) -> Result<ArrayRef> {
        if self.data.len() > i32::MAX as usize {
            return Err(CorpusError::column(
                self.name,
                None,
                "more than 2 GiB of text in one batch; write fewer rows per shard",
            ));
        }
        let nulls = self.any_null.then(|| NullBuffer::from(self.valid));
        let offsets = OffsetBuffer::new(ScalarBuffer::from(self.offsets));
        StringArray::try_new(offsets, Buffer::from_vec(self.data), nulls)
            .map(|a| Arc::new(a) as ArrayRef)
            .map_err(|e| CorpusError::column(self.name, None, e.to_string()))
    }
}

/// List offsets, one entry per row plus the leading 0.
struct Offsets {
    name: &'static str,
    offsets: Vec<i32>,
    total: usize,
}

impl Offsets {
    fn new(name: &'static str, rows: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Offsets {
            name,
            offsets,
            total: 0,
        }
    }

    fn push(&mut self, len: usize) {
        self.total += len;
        self.offsets.push(self.total as i32);
    }

    fn finish(self) -> Result<OffsetBuffer<i32>> {
        if self.total > i32::MAX as usize {
            return Err(CorpusError::column(
                self.name,
                None,
                "more than 2^31 list items in one batch",
            ));
        }
        Ok(OffsetBuffer::new(ScalarBuffer::from(self.offsets)))
    }
}

fn struct_array(
    name: &str,
    fields: &Fields,
    children: Vec<ArrayRef>,
    nulls: Option<NullBuffer>,
) -> Result<StructArray> {
    StructArray::try_new(fields.clone(), children, nulls)
        .map_err(|e| CorpusError::column(name, None, e.to_string()))
}

fn list_array(
    name: &'static str,
    item: &FieldRef,
    offsets: Offsets,
    values: ArrayRef,
) -> Result<ArrayRef> {
    let offsets = offsets.finish()?;
    ListArray::try_new(item.clone(), offsets, values, None)
        .map(|a| Arc::new(a) as ArrayRef)
        .map_err(|e| CorpusError::column(name, None, e.to_string()))
}

/// A `list<struct{key, value}>` column.
struct KvList {
    name: &'static str,
    offsets: Offsets,
    keys: Strs,
    values: Strs,
}

impl KvList {
    fn new(name: &'static str, key: &'static str, value: &'static str, rows: usize) -> Self {
        KvList {
            name,
            offsets: Offsets::new(name, rows),
            keys: Strs::new(key, rows, 0),
            values: Strs::new(value, rows, 0),
        }
    }

    fn push(&mut self, map: &BTreeMap<String, String>) {
        for (k, v) in map {
            self.keys.push(k);
            self.values.push(v);
        }
        self.offsets.push(map.len());
    }

    fn finish(self) -> Result<ArrayRef> {
        let kv = &LAYOUT.kv;
        let items = struct_array(
            self.name,
            kv,
            vec![self.keys.finish()?, self.values.finish()?],
            None,
        )?;
        list_array(self.name, &list_item(kv), self.offsets, Arc::new(items))
    }
}

fn to_i32(v: usize, column: &'static str, row: usize) -> Result<i32> {
    i32::try_from(v)
        .map_err(|_| CorpusError::column(column, Some(row), format!("{v} does not fit in int32")))
}

/// Converts dialogues to one record batch of the shard [`schema`].
///
/// Fails only when a value does not fit the schema: a violation's turn past `i32::MAX`, or more
/// than 2 GiB of text in one column.
pub fn dialogues_to_batch(dialogues: &[Dialogue]) -> Result<RecordBatch> {
    let l = &*LAYOUT;
    let n = dialogues.len();
    let n_turns_total: usize = dialogues.iter().map(|d| d.turns.len()).sum();
    let text_bytes: usize = dialogues
        .iter()
        .flat_map(|d| &d.turns)
        .map(|t| t.text.len())
        .sum();

    let mut id = Strs::new("id", n, n * 16);
    let mut scenario = Strs::new("scenario", n, n * 8);
    let mut preset_case = Strs::new("preset_case", n, n * 8);
    let mut relation = Strs::new("relation", n, n * 10);
    let mut split = Strs::new("split", n, n * 5);

    let mut owner_name = Strs::new("owner.name", n, n * 9);
    let mut owner_public = KvList::new("owner.public", "owner.public.key", "owner.public.value", n);
    let mut owner_private = KvList::new(
        "owner.private",
        "owner.private.key",
        "owner.private.value",
        n,
    );
    let mut presets = Offsets::new("owner.presets", n);
    let mut p_id = Strs::new("owner.presets.id", n, 0);
    let mut p_kind = Strs::new("owner.presets.kind", n, 0);
    let mut p_trigger = Strs::new("owner.presets.trigger", n, 0);
    let mut p_response = Strs::new("owner.presets.response", n, 0);

    let mut c_role = Strs::new("caller.role", n, n * 12);
    let mut c_goal = Strs::new("caller.goal", n, n * 40);
    let mut c_persona = Strs::new("caller.persona", n, 0);
    let mut c_events = Offsets::new("caller.events", n);
    let mut c_event = Strs::new("caller.events.item", n, 0);

    let mut turns = Offsets::new("turns", n);
    let mut t_idx: Vec<i32> = Vec::with_capacity(n_turns_total);
    let mut t_speaker = Strs::new("turns.speaker", n_turns_total, n_turns_total * 8);
    let mut t_text = Strs::new("turns.text", n_turns_total, text_bytes);
    let mut t_action = Strs::new("turns.action", n_turns_total, n_turns_total * 8);
    let mut t_preset = Strs::new("turns.preset_id", n_turns_total, 0);
    let mut n_turns: Vec<i32> = Vec::with_capacity(n);

    let mut qc_valid = Vec::with_capacity(n);
    let mut qc_passed = Vec::with_capacity(n);
    let mut violations = Offsets::new("qc.violations", n);
    let mut v_kind = Strs::new("qc.violations.kind", n, 0);
    let mut v_turn: Vec<i32> = Vec::new();
    let mut v_evidence = Strs::new("qc.violations.evidence", n, 0);
    let mut v_message = Strs::new("qc.violations.message", n, 0);

    let mut gen_valid = Vec::with_capacity(n);
    let mut g_backend = Strs::new("gen.backend", n, n * 4);
    let mut g_models = KvList::new("gen.models", "gen.models.key", "gen.models.value", n);
    let mut g_seed: Vec<u64> = Vec::with_capacity(n);
    let mut g_attempt: Vec<u32> = Vec::with_capacity(n);
    let mut g_versions = KvList::new("gen.versions", "gen.versions.key", "gen.versions.value", n);
    let mut g_repairs = KvList::new("gen.repairs", "gen.repairs.key", "gen.repairs.value", n);

    let n_judged: usize = dialogues
        .iter()
        .filter_map(|d| d.judge.as_ref())
        .map(|j| j.turns.len())
        .sum();
    let mut judge_valid = Vec::with_capacity(n);
    let mut j_model = Strs::new("judge.model", n, 0);
    let mut j_turns = Offsets::new("judge.turns", n);
    let mut jt = JudgeTurnCols::with_capacity(n_judged);

    for (row, d) in dialogues.iter().enumerate() {
        id.push(&d.id);
        scenario.push(&d.scenario);
        preset_case.push(d.preset_case.as_str());
        relation.push(d.relation.as_str());
        split.push_opt(d.split.map(|s| s.as_str()));

        owner_name.push(&d.owner.name);
        owner_public.push(&d.owner.public);
        owner_private.push(&d.owner.private);
        for p in &d.owner.presets {
            p_id.push(&p.id);
            p_kind.push(p.kind.as_str());
            p_trigger.push(&p.trigger);
            p_response.push(&p.response);
        }
        presets.push(d.owner.presets.len());

        c_role.push(&d.caller.role);
        c_goal.push(&d.caller.goal);
        c_persona.push_opt(d.caller.persona.as_deref());
        for e in &d.caller.events {
            c_event.push(e);
        }
        c_events.push(d.caller.events.len());

        for (i, t) in d.turns.iter().enumerate() {
            t_idx.push(to_i32(i, "turns.idx", row)?);
            t_speaker.push(t.speaker.as_str());
            t_text.push(&t.text);
            t_action.push_opt(t.action.map(Action::as_str));
            t_preset.push_opt(t.preset_id.as_deref());
        }
        turns.push(d.turns.len());
        n_turns.push(to_i32(d.turns.len(), "n_turns", row)?);

        match &d.qc {
            Some(qc) => {
                qc_valid.push(true);
                qc_passed.push(qc.passed);
                for v in &qc.violations {
                    v_kind.push(&v.kind);
                    v_turn.push(to_i32(v.turn, "qc.violations.turn", row)?);
                    v_evidence.push(&v.evidence);
                    v_message.push(&v.message);
                }
                violations.push(qc.violations.len());
            }
            None => {
                qc_valid.push(false);
                qc_passed.push(false);
                violations.push(0);
            }
        }

        match &d.r#gen {
            Some(g) => {
                gen_valid.push(true);
                g_backend.push(&g.backend);
                g_models.push(&g.models);
                g_seed.push(g.seed);
                g_attempt.push(g.attempt);
                g_versions.push(&g.versions);
                g_repairs.push(&g.repairs);
            }
            None => {
                gen_valid.push(false);
                g_backend.push("");
                g_models.push(&BTreeMap::new());
                g_seed.push(0);
                g_attempt.push(0);
                g_versions.push(&BTreeMap::new());
                g_repairs.push(&BTreeMap::new());
            }
        }

        match &d.judge {
            Some(j) => {
                judge_valid.push(true);
                j_model.push(&j.model);
                for t in &j.turns {
                    jt.push(t, row)?;
                }
                j_turns.push(j.turns.len());
            }
            None => {
                judge_valid.push(false);
                j_model.push("");
                j_turns.push(0);
            }
        }
    }

    let preset_items = struct_array(
        "owner.presets",
        &l.preset,
        vec![
            p_id.finish()?,
            p_kind.finish()?,
            p_trigger.finish()?,
            p_response.finish()?,
        ],
        None,
    )?;
    let owner = struct_array(
        "owner",
        &l.owner,
        vec![
            owner_name.finish()?,
            owner_public.finish()?,
            owner_private.finish()?,
            list_array(
                "owner.presets",
                &list_item(&l.preset),
                presets,
                Arc::new(preset_items),
            )?,
        ],
        None,
    )?;

    let events = ListArray::try_new(
        l.utf8_item.clone(),
        c_events.finish()?,
        c_event.finish()?,
        None,
    )
    .map_err(|e| CorpusError::column("caller.events", None, e.to_string()))?;
    let caller = struct_array(
        "caller",
        &l.caller,
        vec![
            c_role.finish()?,
            c_goal.finish()?,
            c_persona.finish()?,
            Arc::new(events),
        ],
        None,
    )?;

    let turn_items = struct_array(
        "turns",
        &l.turn,
        vec![
            Arc::new(Int32Array::from(t_idx)),
            t_speaker.finish()?,
            t_text.finish()?,
            t_action.finish()?,
            t_preset.finish()?,
        ],
        None,
    )?;
    let turns = list_array("turns", &list_item(&l.turn), turns, Arc::new(turn_items))?;

    let violation_items = struct_array(
        "qc.violations",
        &l.violation,
        vec![
            v_kind.finish()?,
            Arc::new(Int32Array::from(v_turn)),
            v_evidence.finish()?,
            v_message.finish()?,
        ],
        None,
    )?;
    let qc_nulls = NullBuffer::from(qc_valid);
    let qc = struct_array(
        "qc",
        &l.qc,
        vec![
            Arc::new(BooleanArray::from(qc_passed)),
            list_array(
                "qc.violations",
                &list_item(&l.violation),
                violations,
                Arc::new(violation_items),
            )?,
        ],
        (qc_nulls.null_count() > 0).then_some(qc_nulls),
    )?;

    let gen_nulls = NullBuffer::from(gen_valid);
    let r#gen = struct_array(
        "gen",
        &l.r#gen,
        vec![
            g_backend.finish()?,
            g_models.finish()?,
            Arc::new(UInt64Array::from(g_seed)),
            Arc::new(UInt32Array::from(g_attempt)),
            g_versions.finish()?,
            g_repairs.finish()?,
        ],
        (gen_nulls.null_count() > 0).then_some(gen_nulls),
    )?;

    let judge_nulls = NullBuffer::from(judge_valid);
    let judge = struct_array(
        "judge",
        &l.judge,
        vec![
            j_model.finish()?,
            list_array(
                "judge.turns",
                &list_item(&l.judge_turn),
                j_turns,
                Arc::new(jt.finish()?),
            )?,
        ],
        (judge_nulls.null_count() > 0).then_some(judge_nulls),
    )?;

    RecordBatch::try_new(
        l.schema.clone(),
        vec![
            id.finish()?,
            scenario.finish()?,
            preset_case.finish()?,
            relation.finish()?,
            split.finish()?,
            Arc::new(owner),
            Arc::new(caller),
            turns,
            Arc::new(Int32Array::from(n_turns)),
            Arc::new(qc),
            Arc::new(r#gen),
            Arc::new(judge),
        ],
    )
    .map_err(|e| CorpusError::column("*", None, e.to_string()))
}

/// The leaves of `judge.turns`, one entry per judged turn.
struct JudgeTurnCols {
    turn: Vec<i32>,
    scores: [Vec<f64>; 7],
    reason: Strs,
}

impl JudgeTurnCols {
    fn with_capacity(n: usize) -> Self {
        JudgeTurnCols {
            turn: Vec::with_capacity(n),
            scores: std::array::from_fn(|_| Vec::with_capacity(n)),
            reason: Strs::new("judge.turns.reason", n, n * 32),
        }
    }

    fn push(&mut self, t: &JudgeTurn, row: usize) -> Result<()> {
        self.turn.push(to_i32(t.turn, "judge.turns.turn", row)?);
        let scores = [
            t.semantic_understanding,
            t.context_use,
            t.active_guidance,
            t.response_quality,
            t.preset_compliance,
            t.dialogue_rhythm,
            t.safety,
        ];
        for (col, v) in self.scores.iter_mut().zip(scores) {
            col.push(v);
        }
        self.reason.push(&t.reason);
        Ok(())
    }

    fn finish(self) -> Result<StructArray> {
        let mut children: Vec<ArrayRef> = Vec::with_capacity(9);
        children.push(Arc::new(Int32Array::from(self.turn)));
        children.extend(
            self.scores
                .into_iter()
                .map(|v| Arc::new(Float64Array::from(v)) as ArrayRef),
        );
        children.push(self.reason.finish()?);
        struct_array("judge.turns", &LAYOUT.judge_turn, children, None)
    }
}

// ---------------------------------------------------------------------------------------------
// Batch → dialogues
// ---------------------------------------------------------------------------------------------

/// A string column, cast to `Utf8` when a file stored it as `LargeUtf8` or `Utf8View`.
struct StrCol<'a> {
    path: String,
    arr: Cow<'a, StringArray>,
}

impl StrCol<'_> {
    /// The value at index `i` (of dialogue `row`), an error if it is null.
    fn get(&self, i: usize, row: usize) -> Result<&str> {
        if self.arr.is_null(i) {
            return Err(CorpusError::column(
                self.path.clone(),
                Some(row),
                "null where a value is required",
            ));
        }
        Ok(self.arr.value(i))
    }

    fn get_opt(&self, i: usize) -> Option<String> {
        (!self.arr.is_null(i)).then(|| self.arr.value(i).to_string())
    }

    /// The word at index `i` (of dialogue `row`) read into its vocabulary, `None` if null; a
    /// word outside the vocabulary is an error naming the column, the row and the word.
    fn word_opt<T: std::str::FromStr>(&self, i: usize, row: usize) -> Result<Option<T>>
    where
        T::Err: std::fmt::Display,
    {
        if self.arr.is_null(i) {
            return Ok(None);
        }
        word(self.arr.value(i), &self.path, row).map(Some)
    }
}

fn strings<'a>(arr: &'a ArrayRef, path: &str) -> Result<StrCol<'a>> {
    let arr = match arr.data_type() {
        DataType::Utf8 => Cow::Borrowed(arr.as_string::<i32>()),
        DataType::LargeUtf8 | DataType::Utf8View => {
            let cast = arrow::compute::cast(arr, &DataType::Utf8)
                .map_err(|e| CorpusError::column(path, None, e.to_string()))?;
            Cow::Owned(cast.as_string::<i32>().clone())
        }
        other => {
            return Err(CorpusError::column(
                path,
                None,
                format!("expected utf8, found {other}"),
            ));
        }
    };
    Ok(StrCol {
        path: path.to_string(),
        arr,
    })
}

fn as_struct<'a>(arr: &'a ArrayRef, path: &str) -> Result<&'a StructArray> {
    arr.as_struct_opt().ok_or_else(|| {
        CorpusError::column(
            path,
            None,
            format!("expected a struct, found {}", arr.data_type()),
        )
    })
}

fn as_list<'a>(arr: &'a ArrayRef, path: &str) -> Result<&'a ListArray> {
    arr.as_list_opt::<i32>().ok_or_else(|| {
        CorpusError::column(
            path,
            None,
            format!("expected a list, found {}", arr.data_type()),
        )
    })
}

fn child<'a>(s: &'a StructArray, name: &str, path: &str) -> Result<&'a ArrayRef> {
    s.column_by_name(name)
        .ok_or_else(|| CorpusError::column(format!("{path}.{name}"), None, "missing"))
}

fn primitive<'a, T: arrow::datatypes::ArrowPrimitiveType>(
    arr: &'a ArrayRef,
    path: &str,
) -> Result<&'a arrow::array::PrimitiveArray<T>> {
    arr.as_primitive_opt::<T>().ok_or_else(|| {
        CorpusError::column(
            path,
            None,
            format!("expected {}, found {}", T::DATA_TYPE, arr.data_type()),
        )
    })
}

/// Item ranges of a list column, checked for nulls.
struct ListCol<'a> {
    path: String,
    list: &'a ListArray,
}

impl ListCol<'_> {
    fn range(&self, row: usize) -> Result<std::ops::Range<usize>> {
        if self.list.is_null(row) {
            return Err(CorpusError::column(
                self.path.clone(),
                Some(row),
                "null list where a list is required",
            ));
        }
        let o = self.list.value_offsets();
        Ok(o[row] as usize..o[row + 1] as usize)
    }
}

fn list<'a>(arr: &'a ArrayRef, path: &str) -> Result<ListCol<'a>> {
    Ok(ListCol {
        path: path.to_string(),
        list: as_list(arr, path)?,
    })
}

/// A `list<struct{key, value}>` column read back into maps.
struct KvCol<'a> {
    list: ListCol<'a>,
    keys: StrCol<'a>,
    values: StrCol<'a>,
}

impl<'a> KvCol<'a> {
    fn new(arr: &'a ArrayRef, path: &str) -> Result<Self> {
        let list = list(arr, path)?;
        let items = as_struct(list.list.values(), path)?;
        let keys = strings(child(items, "key", path)?, &format!("{path}.key"))?;
        let values = strings(child(items, "value", path)?, &format!("{path}.value"))?;
        Ok(KvCol { list, keys, values })
    }

    fn get(&self, row: usize) -> Result<BTreeMap<String, String>> {
        self.list
            .range(row)?
            .map(|i| {
                Ok((
                    self.keys.get(i, row)?.to_string(),
                    self.values.get(i, row)?.to_string(),
                ))
            })
            .collect()
    }
}

fn word<T: std::str::FromStr>(s: &str, path: &str, row: usize) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    s.parse::<T>()
        .map_err(|e| CorpusError::column(path, Some(row), e.to_string()))
}

fn column<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a ArrayRef> {
    batch
        .column_by_name(name)
        .ok_or_else(|| CorpusError::column(name, None, "missing"))
}

/// Converts a record batch of the shard [`schema`] back to dialogues; the exact inverse of
/// [`dialogues_to_batch`].
///
/// Columns are found by name, extra columns are ignored, `n_turns` and `turns.idx` are not read
/// (they follow from `turns`), and a batch without `qc`, `gen` or `judge` (older shards) reads
/// as `None` for them.
/// Errors name the column (`turns.speaker`) and the row.
pub fn batch_to_dialogues(batch: &RecordBatch) -> Result<Vec<Dialogue>> {
    let id = strings(column(batch, "id")?, "id")?;
    let scenario = strings(column(batch, "scenario")?, "scenario")?;
    let preset_case = strings(column(batch, "preset_case")?, "preset_case")?;
    let relation = strings(column(batch, "relation")?, "relation")?;
    let split = match batch.column_by_name("split") {
        Some(arr) => Some(strings(arr, "split")?),
        None => None,
    };

    let owner = as_struct(column(batch, "owner")?, "owner")?;
    let owner_name = strings(child(owner, "name", "owner")?, "owner.name")?;
    let owner_public = KvCol::new(child(owner, "public", "owner")?, "owner.public")?;
    let owner_private = KvCol::new(child(owner, "private", "owner")?, "owner.private")?;
    let presets = list(child(owner, "presets", "owner")?, "owner.presets")?;
    let preset_items = as_struct(presets.list.values(), "owner.presets")?;
    let p = "owner.presets";
    let p_id = strings(child(preset_items, "id", p)?, "owner.presets.id")?;
    let p_kind = strings(child(preset_items, "kind", p)?, "owner.presets.kind")?;
    let p_trigger = strings(child(preset_items, "trigger", p)?, "owner.presets.trigger")?;
    let p_response = strings(
        child(preset_items, "response", p)?,
        "owner.presets.response",
    )?;

    let caller = as_struct(column(batch, "caller")?, "caller")?;
    let c_role = strings(child(caller, "role", "caller")?, "caller.role")?;
    let c_goal = strings(child(caller, "goal", "caller")?, "caller.goal")?;
    let c_persona = strings(child(caller, "persona", "caller")?, "caller.persona")?;
    let c_events = list(child(caller, "events", "caller")?, "caller.events")?;
    let c_event = strings(c_events.list.values(), "caller.events.item")?;

    let turns = list(column(batch, "turns")?, "turns")?;
    let turn_items = as_struct(turns.list.values(), "turns")?;
    let t_speaker = strings(child(turn_items, "speaker", "turns")?, "turns.speaker")?;
    let t_text = strings(child(turn_items, "text", "turns")?, "turns.text")?;
    let t_action = strings(child(turn_items, "action", "turns")?, "turns.action")?;
    let t_preset = strings(child(turn_items, "preset_id", "turns")?, "turns.preset_id")?;

    struct QcCols<'a> {
        qc: &'a StructArray,
        passed: &'a BooleanArray,
        violations: ListCol<'a>,
        kind: StrCol<'a>,
        turn: &'a Int32Array,
        evidence: StrCol<'a>,
        message: StrCol<'a>,
    }
    let qc = match batch.column_by_name("qc") {
        None => None,
        Some(arr) => {
            let qc = as_struct(arr, "qc")?;
            let passed = child(qc, "passed", "qc")?;
            let passed = passed.as_boolean_opt().ok_or_else(|| {
                CorpusError::column(
                    "qc.passed",
                    None,
                    format!("expected a boolean, found {}", passed.data_type()),
                )
            })?;
            let violations = list(child(qc, "violations", "qc")?, "qc.violations")?;
            let items = as_struct(violations.list.values(), "qc.violations")?;
            let v = "qc.violations";
            Some(QcCols {
                qc,
                passed,
                kind: strings(child(items, "kind", v)?, "qc.violations.kind")?,
                turn: primitive::<arrow::datatypes::Int32Type>(
                    child(items, "turn", v)?,
                    "qc.violations.turn",
                )?,
                evidence: strings(child(items, "evidence", v)?, "qc.violations.evidence")?,
                message: strings(child(items, "message", v)?, "qc.violations.message")?,
                violations,
            })
        }
    };

    struct GenCols<'a> {
        r#gen: &'a StructArray,
        backend: StrCol<'a>,
        models: KvCol<'a>,
        seed: &'a UInt64Array,
        attempt: &'a UInt32Array,
        versions: KvCol<'a>,
        repairs: Option<KvCol<'a>>,
    }
    let r#gen = match batch.column_by_name("gen") {
        None => None,
        Some(arr) => {
            let g = as_struct(arr, "gen")?;
            Some(GenCols {
                r#gen: g,
                backend: strings(child(g, "backend", "gen")?, "gen.backend")?,
                models: KvCol::new(child(g, "models", "gen")?, "gen.models")?,
                seed: primitive::<arrow::datatypes::UInt64Type>(
                    child(g, "seed", "gen")?,
                    "gen.seed",
                )?,
                attempt: primitive::<arrow::datatypes::UInt32Type>(
                    child(g, "attempt", "gen")?,
                    "gen.attempt",
                )?,
                versions: KvCol::new(child(g, "versions", "gen")?, "gen.versions")?,
                repairs: match g.column_by_name("repairs") {
                    Some(r) => Some(KvCol::new(r, "gen.repairs")?),
                    None => None,
                },
            })
        }
    };

    struct JudgeCols<'a> {
        judge: &'a StructArray,
        model: StrCol<'a>,
        turns: ListCol<'a>,
        turn: &'a Int32Array,
        scores: [&'a Float64Array; 7],
        reason: StrCol<'a>,
    }
    let judge = match batch.column_by_name("judge") {
        None => None,
        Some(arr) => {
            let j = as_struct(arr, "judge")?;
            let turns = list(child(j, "turns", "judge")?, "judge.turns")?;
            let items = as_struct(turns.list.values(), "judge.turns")?;
            let t = "judge.turns";
            let score = |name: &str| {
                primitive::<arrow::datatypes::Float64Type>(
                    child(items, name, t)?,
                    &format!("judge.turns.{name}"),
                )
            };
            Some(JudgeCols {
                judge: j,
                model: strings(child(j, "model", "judge")?, "judge.model")?,
                turn: primitive::<arrow::datatypes::Int32Type>(
                    child(items, "turn", t)?,
                    "judge.turns.turn",
                )?,
                scores: [
                    score("semantic_understanding")?,
                    score("context_use")?,
                    score("active_guidance")?,
                    score("response_quality")?,
                    score("preset_compliance")?,
                    score("dialogue_rhythm")?,
                    score("safety")?,
                ],
                reason: strings(child(items, "reason", t)?, "judge.turns.reason")?,
                turns,
            })
        }
    };

    let mut out = Vec::with_capacity(batch.num_rows());
    for row in 0..batch.num_rows() {
        if owner.is_null(row) {
            return Err(CorpusError::column(
                "owner",
                Some(row),
                "null where a value is required",
            ));
        }
        if caller.is_null(row) {
            return Err(CorpusError::column(
                "caller",
                Some(row),
                "null where a value is required",
            ));
        }
        let presets = presets
            .range(row)?
            .map(|i| {
                Ok(Preset {
                    id: p_id.get(i, row)?.to_string(),
                    kind: word(p_kind.get(i, row)?, "owner.presets.kind", row)?,
                    trigger: p_trigger.get(i, row)?.to_string(),
                    response: p_response.get(i, row)?.to_string(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let events = c_events
            .range(row)?
            .map(|i| c_event.get(i, row).map(str::to_string))
            .collect::<Result<Vec<_>>>()?;
        let turns = turns
            .range(row)?
            .map(|i| {
                Ok(Turn {
                    speaker: word(t_speaker.get(i, row)?, "turns.speaker", row)?,
                    text: t_text.get(i, row)?.to_string(),
                    action: t_action.word_opt(i, row)?,
                    preset_id: t_preset.get_opt(i),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let qc = match &qc {
            Some(c) if !c.qc.is_null(row) => Some(QcResult {
                passed: c.passed.value(row),
                violations: c
                    .violations
                    .range(row)?
                    .map(|i| {
                        let turn = c.turn.value(i);
                        Ok(Violation {
                            kind: c.kind.get(i, row)?.to_string(),
                            turn: usize::try_from(turn).map_err(|_| {
                                CorpusError::column(
                                    "qc.violations.turn",
                                    Some(row),
                                    format!("negative turn {turn}"),
                                )
                            })?,
                            evidence: c.evidence.get(i, row)?.to_string(),
                            message: c.message.get(i, row)?.to_string(),
                        })
                    })
                    .collect::<Result<Vec<_>>>()?,
            }),
            _ => None,
        };
        let r#gen = match &r#gen {
            Some(g) if !g.r#gen.is_null(row) => Some(GenInfo {
                backend: g.backend.get(row, row)?.to_string(),
                models: g.models.get(row)?,
                seed: g.seed.value(row),
                attempt: g.attempt.value(row),
                versions: g.versions.get(row)?,
                repairs: match &g.repairs {
                    Some(r) => r.get(row)?,
                    None => BTreeMap::new(),
                },
            }),
            _ => None,
        };
        let judge = match &judge {
            Some(j) if !j.judge.is_null(row) => Some(JudgeScores {
                model: j.model.get(row, row)?.to_string(),
                turns: j
                    .turns
                    .range(row)?
                    .map(|i| {
                        let turn = j.turn.value(i);
                        let [su, cu, ag, rq, pc, dr, sa] = j.scores.map(|c| c.value(i));
                        Ok(JudgeTurn {
                            turn: usize::try_from(turn).map_err(|_| {
                                CorpusError::column(
                                    "judge.turns.turn",
                                    Some(row),
                                    format!("negative turn {turn}"),
                                )
                            })?,
                            semantic_understanding: su,
                            context_use: cu,
                            active_guidance: ag,
                            response_quality: rq,
                            preset_compliance: pc,
                            dialogue_rhythm: dr,
                            safety: sa,
                            reason: j.reason.get(i, row)?.to_string(),
                        })
                    })
                    .collect::<Result<Vec<_>>>()?,
            }),
            _ => None,
        };
        out.push(Dialogue {
            id: id.get(row, row)?.to_string(),
            scenario: scenario.get(row, row)?.to_string(),
            preset_case: word(preset_case.get(row, row)?, "preset_case", row)?,
            relation: word(relation.get(row, row)?, "relation", row)?,
            owner: Owner {
                name: owner_name.get(row, row)?.to_string(),
                public: owner_public.get(row)?,
                private: owner_private.get(row)?,
                presets,
            },
            caller: Caller {
                role: c_role.get(row, row)?.to_string(),
                goal: c_goal.get(row, row)?.to_string(),
                persona: c_persona.get_opt(row),
                events,
            },
            turns,
            split: match &split {
                Some(col) => match col.get_opt(row) {
                    Some(w) => Some(word(&w, "split", row)?),
                    None => None,
                },
                None => None,
            },
            qc,
            r#gen,
            judge,
        });
    }
    Ok(out)
}

/// What identifies a dialogue and its plan cell, read without the rest of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogueKey {
    /// The dialogue id.
    pub id: String,
    /// Scenario name.
    pub scenario: String,
    /// Preset case.
    pub preset_case: callbench_model::PresetCase,
    /// Relation.
    pub relation: callbench_model::Relation,
}

/// The columns [`batch_to_keys`] reads.
pub const KEY_COLUMNS: &[&str] = &["id", "scenario", "preset_case", "relation"];

/// The [`DialogueKey`]s of a record batch that holds at least [`KEY_COLUMNS`]; other columns are
/// ignored. Errors name the column and the row, as [`batch_to_dialogues`]'s do.
pub fn batch_to_keys(batch: &RecordBatch) -> Result<Vec<DialogueKey>> {
    let id = strings(column(batch, "id")?, "id")?;
    let scenario = strings(column(batch, "scenario")?, "scenario")?;
    let preset_case = strings(column(batch, "preset_case")?, "preset_case")?;
    let relation = strings(column(batch, "relation")?, "relation")?;
    (0..batch.num_rows())
        .map(|row| {
            Ok(DialogueKey {
                id: id.get(row, row)?.to_string(),
                scenario: scenario.get(row, row)?.to_string(),
                preset_case: word(preset_case.get(row, row)?, "preset_case", row)?,
                relation: word(relation.get(row, row)?, "relation", row)?,
            })
        })
        .collect()
}
