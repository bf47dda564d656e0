//! Dialogues ⇄ record batches.

use crate::support::{full, generated, judge_scores, minimal, mix, passed_no_gen};
use arrow::array::{Array, AsArray, Int32Array, ListArray, StringArray, StructArray};
use arrow::datatypes::{DataType, Field, Float64Type, Int32Type};
use arrow::record_batch::RecordBatch;
use corpus::{COLUMNS, batch_to_dialogues, dialogues_to_batch, schema};
use std::sync::Arc;

fn round_trip(dialogues: &[callbench_model::Dialogue]) {
    let batch = dialogues_to_batch(dialogues).unwrap();
    assert_eq!(batch.num_rows(), dialogues.len());
    assert_eq!(batch_to_dialogues(&batch).unwrap(), dialogues);
}

#[test]
fn every_optional_field_present() {
    round_trip(&[full("takeout-000001")]);
}

#[test]
fn every_optional_field_absent() {
    round_trip(&[minimal("life-000001")]);
}

#[test]
fn qc_present_gen_absent() {
    round_trip(&[passed_no_gen("takeout-000002")]);
}

#[test]
fn judge_absent() {
    let mut d = full("takeout-000003");
    d.judge = None;
    round_trip(&[d]);
}

#[test]
fn judge_present_on_an_otherwise_minimal_dialogue() {
    let mut d = minimal("life-000002");
    d.judge = Some(judge_scores());
    round_trip(&[d]);
}

#[test]
fn judge_scores_and_chinese_reasons_are_kept_exactly() {
    let mut a = full("a");
    a.judge.as_mut().unwrap().turns[1].reason = "语义理解到位，但未主动引导；\t结尾仓促。".into();
    let mut b = minimal("b");
    b.judge = Some(judge_scores());
    b.judge.as_mut().unwrap().model = "评审模型-v2".into();
    let dialogues = vec![a, minimal("c"), b];
    let batch = dialogues_to_batch(&dialogues).unwrap();
    let judge = batch.column_by_name("judge").unwrap().as_struct();
    assert!(judge.is_valid(0) && judge.is_null(1) && judge.is_valid(2));
    let turns = judge.column_by_name("turns").unwrap().as_list::<i32>();
    assert_eq!(turns.value_offsets(), [0, 2, 2, 4]);
    let items = turns.values().as_struct();
    let rq = items
        .column_by_name("response_quality")
        .unwrap()
        .as_primitive::<Float64Type>();
    assert_eq!(rq.value(0).to_bits(), (0.1f64 + 0.2).to_bits());
    let back = batch_to_dialogues(&batch).unwrap();
    assert_eq!(back, dialogues);
    assert_eq!(
        back[0].judge.as_ref().unwrap().turns[1].reason,
        "语义理解到位，但未主动引导；\t结尾仓促。"
    );
    assert_eq!(back[2].judge.as_ref().unwrap().model, "评审模型-v2");
}

#[test]
fn mixed_rows_keep_their_own_values() {
    round_trip(&mix(30));
}

#[test]
fn empty_slice() {
    round_trip(&[]);
}

#[test]
fn a_sliced_batch_reads_its_own_rows() {
    let dialogues = mix(10);
    let batch = dialogues_to_batch(&dialogues).unwrap();
    let part = batch.slice(4, 5);
    assert_eq!(batch_to_dialogues(&part).unwrap(), &dialogues[4..9]);
}

#[test]
fn columns_are_the_contracts() {
    let s = schema();
    let names: Vec<&str> = s.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, COLUMNS);
    for required in [
        "id",
        "scenario",
        "preset_case",
        "relation",
        "owner",
        "caller",
        "turns",
        "qc",
        "gen",
        "judge",
    ] {
        assert!(names.contains(&required), "{required}");
    }
    let struct_names = |name: &str| -> Vec<String> {
        match s.field_with_name(name).unwrap().data_type() {
            DataType::Struct(f) => f.iter().map(|f| f.name().clone()).collect(),
            DataType::List(item) => match item.data_type() {
                DataType::Struct(f) => f.iter().map(|f| f.name().clone()).collect(),
                other => panic!("{name}: {other}"),
            },
            other => panic!("{name}: {other}"),
        }
    };
    assert_eq!(
        struct_names("turns"),
        ["idx", "speaker", "text", "action", "preset_id"]
    );
    assert_eq!(struct_names("qc"), ["passed", "violations"]);
    assert_eq!(
        struct_names("gen"),
        [
            "backend", "models", "seed", "attempt", "versions", "repairs"
        ]
    );
    assert_eq!(
        struct_names("owner"),
        ["name", "public", "private", "presets"]
    );
    assert_eq!(
        struct_names("caller"),
        ["role", "goal", "persona", "events"]
    );
    assert_eq!(struct_names("judge"), ["model", "turns"]);
    let judge_turn = match s.field_with_name("judge").unwrap().data_type() {
        DataType::Struct(f) => f.find("turns").unwrap().1.data_type().clone(),
        other => panic!("judge: {other}"),
    };
    let DataType::List(item) = judge_turn else {
        panic!("judge.turns: {judge_turn}")
    };
    let DataType::Struct(fields) = item.data_type() else {
        panic!("judge.turns.item: {}", item.data_type())
    };
    let fields: Vec<(&str, &DataType)> = fields
        .iter()
        .map(|f| (f.name().as_str(), f.data_type()))
        .collect();
    let mut want = vec![("turn", &DataType::Int32)];
    want.extend(callbench_model::JUDGE_DIMENSIONS.map(|d| (d, &DataType::Float64)));
    want.push(("reason", &DataType::Utf8));
    assert_eq!(fields, want);
    assert_eq!(COLUMNS.last(), Some(&"judge"));
    assert!(s.field_with_name("qc").unwrap().is_nullable());
    assert!(s.field_with_name("gen").unwrap().is_nullable());
    assert!(s.field_with_name("judge").unwrap().is_nullable());
}

/// No maps, dictionaries, large or view types anywhere: every reader opens the file as is.
#[test]
fn schema_uses_only_plain_types() {
    fn check(f: &Field) {
        match f.data_type() {
            DataType::Utf8
            | DataType::Int32
            | DataType::UInt32
            | DataType::UInt64
            | DataType::Float64
            | DataType::Boolean => {}
            DataType::Struct(fields) => fields.iter().for_each(|f| check(f)),
            DataType::List(item) => check(item),
            other => panic!("{}: {other} is not a plain type", f.name()),
        }
    }
    schema().fields().iter().for_each(|f| check(f));
}

#[test]
fn n_turns_and_idx_follow_the_turns() {
    let dialogues = vec![full("a"), minimal("b")];
    let batch = dialogues_to_batch(&dialogues).unwrap();
    let n = batch
        .column_by_name("n_turns")
        .unwrap()
        .as_primitive::<Int32Type>();
    assert_eq!(n.values().to_vec(), [4, 0]);
    let turns = batch.column_by_name("turns").unwrap().as_list::<i32>();
    let idx = turns
        .values()
        .as_struct()
        .column_by_name("idx")
        .unwrap()
        .as_primitive::<Int32Type>();
    assert_eq!(idx.values().to_vec(), [0, 1, 2, 3]);
    let qc = batch.column_by_name("qc").unwrap();
    assert!(qc.is_valid(0) && qc.is_null(1));
}

#[test]
fn a_bad_word_names_column_and_row() {
    let batch = dialogues_to_batch(&mix(3)).unwrap();
    let mut columns = batch.columns().to_vec();
    columns[2] = Arc::new(StringArray::from(vec!["regular", "none", "sometimes"]));
    let bad = RecordBatch::try_new(batch.schema(), columns).unwrap();
    let err = batch_to_dialogues(&bad).unwrap_err().to_string();
    assert!(
        err.starts_with("row 2: column `preset_case`: unknown PresetCase \"sometimes\""),
        "{err}"
    );
}

/// A decision outside the vocabulary in a shard someone else wrote (the writer cannot write one)
/// is an error naming the column, the dialogue's row and the word.
#[test]
fn an_unknown_action_names_column_row_and_word() {
    let batch = dialogues_to_batch(&mix(3)).unwrap();
    let at = batch.schema().index_of("turns").unwrap();
    let turns = batch.column(at).as_list::<i32>().clone();
    let items = turns.values().as_struct().clone();
    let actions = items.column_by_name("action").unwrap().as_string::<i32>();
    // The last labelled turn of the batch, and the dialogue (row) that holds it.
    let bad = (0..actions.len())
        .rev()
        .find(|&i| actions.is_valid(i))
        .unwrap();
    let row = turns
        .value_offsets()
        .partition_point(|&o| o as usize <= bad)
        - 1;
    let relabelled: StringArray = (0..actions.len())
        .map(|i| {
            if i == bad {
                Some("relay")
            } else {
                actions.is_valid(i).then(|| actions.value(i))
            }
        })
        .collect();
    let (fields, mut children, nulls) = items.into_parts();
    let (a, _) = fields.find("action").unwrap();
    children[a] = Arc::new(relabelled);
    let items = StructArray::new(fields, children, nulls);
    let (field, offsets, _, nulls) = turns.into_parts();
    let mut columns = batch.columns().to_vec();
    columns[at] = Arc::new(ListArray::new(field, offsets, Arc::new(items), nulls));
    let bad = RecordBatch::try_new(batch.schema(), columns).unwrap();
    let err = batch_to_dialogues(&bad).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "row {row}: column `turns.action`: unknown Action \"relay\""
        )),
        "{err}"
    );
}

#[test]
fn a_missing_column_is_named() {
    let batch = dialogues_to_batch(&mix(2)).unwrap();
    let without = batch.project(&[0, 1, 2, 4, 5, 6]).unwrap();
    let err = batch_to_dialogues(&without).unwrap_err().to_string();
    assert_eq!(err, "column `relation`: missing");
}

#[test]
fn qc_and_gen_columns_may_be_absent_on_input() {
    let batch = dialogues_to_batch(&[full("x")]).unwrap();
    // id, scenario, preset_case, relation, split, owner, caller, turns.
    let without = batch.project(&[0, 1, 2, 3, 4, 5, 6, 7]).unwrap();
    let back = batch_to_dialogues(&without).unwrap();
    assert_eq!(back[0].split, full("x").split);
    assert_eq!(back[0].qc, None);
    assert_eq!(back[0].r#gen, None);
    assert_eq!(back[0].judge, None);
}

/// Shards written before the `split` column existed still read, with no split (and `evaluate`
/// refuses them, saying to regenerate).
#[test]
fn a_batch_without_the_split_column_reads_as_none() {
    let dialogues = mix(4);
    assert!(dialogues.iter().any(|d| d.split.is_some()));
    let batch = dialogues_to_batch(&dialogues).unwrap();
    let split = batch.schema().index_of("split").unwrap();
    let keep: Vec<usize> = (0..batch.num_columns()).filter(|&i| i != split).collect();
    let back = batch_to_dialogues(&batch.project(&keep).unwrap()).unwrap();
    for (b, d) in back.iter().zip(&dialogues) {
        assert_eq!(b.split, None);
        assert_eq!(b.turns, d.turns);
    }
}

/// Shards written before the `judge` column existed still read, with no judge.
#[test]
fn a_batch_without_the_judge_column_reads_as_none() {
    let dialogues = mix(6);
    let batch = dialogues_to_batch(&dialogues).unwrap();
    let judge = batch.schema().index_of("judge").unwrap();
    let keep: Vec<usize> = (0..batch.num_columns()).filter(|&i| i != judge).collect();
    let old = batch.project(&keep).unwrap();
    let back = batch_to_dialogues(&old).unwrap();
    let want: Vec<_> = dialogues
        .into_iter()
        .map(|mut d| {
            d.judge = None;
            d
        })
        .collect();
    assert_eq!(back, want);
}

#[test]
fn a_negative_judge_turn_names_column_and_row() {
    let batch = dialogues_to_batch(&[minimal("a"), full("b")]).unwrap();
    let i = batch.schema().index_of("judge").unwrap();
    let judge = batch.column(i).as_struct();
    let turns = judge.column_by_name("turns").unwrap().as_list::<i32>();
    let items = turns.values().as_struct();
    let mut children = items.columns().to_vec();
    children[0] = Arc::new(Int32Array::from(vec![1, -3]));
    let items = StructArray::new(items.fields().clone(), children, None);
    let turns = arrow::array::ListArray::new(
        match turns.data_type() {
            DataType::List(f) => f.clone(),
            _ => unreachable!(),
        },
        turns.offsets().clone(),
        Arc::new(items),
        None,
    );
    let judge = StructArray::new(
        judge.fields().clone(),
        vec![judge.column(0).clone(), Arc::new(turns)],
        judge.nulls().cloned(),
    );
    let mut columns = batch.columns().to_vec();
    columns[i] = Arc::new(judge);
    let bad = RecordBatch::try_new(batch.schema(), columns).unwrap();
    let err = batch_to_dialogues(&bad).unwrap_err().to_string();
    assert_eq!(err, "row 1: column `judge.turns.turn`: negative turn -3");
}

#[test]
// Speed is measured by scripts/bench_generate.sh (BENCHMARKS.md), not asserted here.
fn fifty_thousand_dialogues_round_trip() {
    let dialogues: Vec<_> = (0..50_000).map(|i| generated(i, 12)).collect();
    let batch = dialogues_to_batch(&dialogues).unwrap();
    let back = batch_to_dialogues(&batch).unwrap();
    assert_eq!(back.len(), 50_000);
    assert_eq!(back, dialogues);
}
