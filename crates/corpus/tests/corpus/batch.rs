//! Dialogues ⇄ record batches.

use crate::support::{full, generated, minimal, mix, passed_no_gen};
use arrow::array::{Array, AsArray, StringArray};
use arrow::datatypes::{DataType, Field, Int32Type};
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
        ["backend", "models", "seed", "attempt", "versions"]
    );
    assert_eq!(
        struct_names("owner"),
        ["name", "public", "private", "presets"]
    );
    assert_eq!(
        struct_names("caller"),
        ["role", "goal", "persona", "events"]
    );
    assert!(s.field_with_name("qc").unwrap().is_nullable());
    assert!(s.field_with_name("gen").unwrap().is_nullable());
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
    let without = batch.project(&[0, 1, 2, 3, 4, 5, 6]).unwrap();
    let back = batch_to_dialogues(&without).unwrap();
    assert_eq!(back[0].qc, None);
    assert_eq!(back[0].r#gen, None);
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
