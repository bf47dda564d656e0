//! The JSONL interchange format.

use crate::support::{files_in, full, minimal, mix, test_data};
use callbench_model::Speaker;
use corpus::{JsonlReader, JsonlWriter, read_jsonl};
use std::io::Cursor;

#[test]
fn a_bad_line_is_reported_with_its_number_and_reading_goes_on() {
    let items: Vec<_> = read_jsonl(&test_data("interchange.jsonl"))
        .unwrap()
        .collect();
    let lines: Vec<usize> = items.iter().map(|(l, _)| *l).collect();
    // Blank lines (2, 5) are skipped.
    assert_eq!(lines, [1, 3, 4, 6]);

    let first = items[0].1.as_ref().unwrap();
    assert_eq!(first.id, "takeout-000042");
    assert_eq!(first.turns[0].action, None);
    assert_eq!(first.turns[1].preset_id.as_deref(), Some("p1"));
    assert_eq!(first.owner.private["phone"], "139 1234 5678");

    let torn = items[1].1.as_ref().unwrap_err();
    assert!(torn.contains("EOF"), "{torn}");
    assert!(
        !torn.contains("line 1"),
        "the line is the reader's, not serde's: {torn}"
    );
    let robot = items[2].1.as_ref().unwrap_err();
    assert!(
        robot.contains("robot") && robot.contains("column"),
        "{robot}"
    );

    let last = items[3].1.as_ref().unwrap();
    assert_eq!(last.id, "life-000002");
    assert_eq!(last.turns[0].speaker, Speaker::Caller);
}

/// A decision outside the vocabulary makes its line unreadable, with the word and the column
/// named, and reading goes on (`check` reports the line, the other readers name file and line).
#[test]
fn an_unknown_action_is_an_error_of_its_line() {
    let good = serde_json::to_string(&minimal("life-000001")).unwrap();
    let mut labelled = serde_json::to_value(full("takeout-000001")).unwrap();
    labelled["turns"][1]["action"] = "relay".into();
    let text = format!("{good}\n{labelled}\n{good}\n");
    let items: Vec<_> = JsonlReader::<callbench_model::Dialogue>::from_reader(Box::new(
        Cursor::new(text.into_bytes()),
    ))
    .collect();
    assert_eq!(items.len(), 3);
    assert!(items[0].1.is_ok() && items[2].1.is_ok());
    assert_eq!(items[1].0, 2);
    let err = items[1].1.as_ref().unwrap_err();
    assert!(
        err.contains("unknown variant `relay`") && err.contains("column"),
        "{err}"
    );
}

#[test]
fn invalid_utf8_bom_and_crlf() {
    let good = serde_json::to_string(&minimal("life-000001")).unwrap();
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(good.as_bytes());
    bytes.extend_from_slice(b"\r\n\xFF\xFE broken\r\n");
    bytes.extend_from_slice(good.as_bytes());
    let items: Vec<_> =
        JsonlReader::<callbench_model::Dialogue>::from_reader(Box::new(Cursor::new(bytes)))
            .collect();
    assert_eq!(items.len(), 3);
    assert!(items[0].1.is_ok());
    assert_eq!(items[1].0, 2);
    assert!(items[1].1.as_ref().unwrap_err().contains("UTF-8"));
    assert_eq!(items[2].0, 3);
    assert!(items[2].1.is_ok(), "a last line without a newline is read");
}

#[test]
fn writer_round_trips_through_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/out.jsonl");
    let dialogues = mix(7);
    let mut w = JsonlWriter::create(&path).unwrap();
    for d in &dialogues {
        w.write(d).unwrap();
    }
    assert!(!path.exists(), "nothing at the destination before finish");
    assert_eq!(w.finish().unwrap(), 7);
    assert_eq!(files_in(&dir.path().join("sub")), ["out.jsonl"]);
    let back: Vec<_> = read_jsonl(&path)
        .unwrap()
        .map(|(_, d)| d.unwrap())
        .collect();
    assert_eq!(back, dialogues);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("李雪梅"),
        "Chinese is written as is, not escaped"
    );
}

#[test]
fn a_dropped_writer_leaves_the_old_file_and_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.jsonl");
    std::fs::write(&path, "old\n").unwrap();
    let mut w = JsonlWriter::create(&path).unwrap();
    w.write(&full("x")).unwrap();
    drop(w);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
    assert_eq!(files_in(dir.path()), ["out.jsonl"]);
}

#[test]
fn any_serialisable_value_can_be_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.jsonl");
    let mut w = JsonlWriter::create(&path).unwrap();
    w.write(&serde_json::json!({"id": "a", "passed": true, "violations": []}))
        .unwrap();
    w.write(&serde_json::json!({"line": 3, "error": "坏行"}))
        .unwrap();
    w.finish().unwrap();
    let items: Vec<_> = JsonlReader::<serde_json::Value>::open(&path)
        .unwrap()
        .collect();
    assert_eq!(items.len(), 2);
    assert_eq!(items[1].1.as_ref().unwrap()["error"], "坏行");
}

#[test]
fn a_missing_file_is_named() {
    let err = read_jsonl(&test_data("absent.jsonl"))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("absent.jsonl"), "{err}");
}
