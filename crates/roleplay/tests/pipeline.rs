//! The generate pipeline end to end on the real scenario library, in process.

mod support;

use callbench_model::{Action, Dialogue, Plan, PresetCase, Relation, Speaker};
use roleplay::{GenerateConfig, Library, LibraryPaths, SimBackend};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::{quiet, repo, shards};

fn library_with(extra: &[&str]) -> Library {
    let mut dirs = vec![repo().join("scenarios")];
    dirs.extend(extra.iter().map(|d| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/test_data")
            .join(d)
    }));
    LibraryPaths {
        scenario_dirs: dirs,
        templates_dir: repo().join("templates"),
    }
    .load()
    .unwrap_or_else(|e| panic!("the library loads: {e}"))
}

fn config(out: &Path, count: u64, rows_per_shard: u64) -> GenerateConfig {
    GenerateConfig {
        out: out.to_path_buf(),
        count,
        rows_per_shard,
        seed: 7,
        ..GenerateConfig::default()
    }
}

fn run(lib: Arc<Library>, cfg: GenerateConfig) -> roleplay::Result<roleplay::Summary> {
    support::rt().block_on(roleplay::generate(
        lib,
        Arc::new(SimBackend),
        cfg,
        serde_json::json!({}),
        quiet(),
    ))
}

#[test]
fn corpus_has_exactly_the_planned_ids() {
    let lib = Arc::new(library_with(&[]));
    let dir = tempfile::tempdir().unwrap();
    let summary = run(lib.clone(), config(dir.path(), 1_000, 300)).unwrap();
    assert_eq!(summary.manifest.shards.len(), 4);
    assert_eq!(summary.manifest.totals.dialogues, 1_000);
    let plan = Plan::build(&lib.set, 7, 1_000, &Default::default()).unwrap();
    let planned: Vec<String> = plan.range(0..plan.len()).map(|d| d.id).collect();
    let got: Vec<String> = shards(dir.path()).into_iter().map(|d| d.id).collect();
    assert_eq!(got, planned, "shards hold the planned ids in plan order");
    assert_eq!(
        got.iter().collect::<BTreeSet<_>>().len(),
        got.len(),
        "no id twice"
    );
    let written: u64 = summary.manifest.cells.iter().map(|c| c.written).sum();
    assert_eq!(written, 1_000);
    for c in &summary.manifest.cells {
        assert_eq!(
            c.planned,
            c.written + c.rejected,
            "cell {}/{}/{}",
            c.scenario,
            c.preset_case,
            c.relation
        );
    }
}

#[test]
fn resume_after_losing_shards_gives_the_same_corpus() {
    let lib = Arc::new(library_with(&[]));
    let whole = tempfile::tempdir().unwrap();
    let first = run(lib.clone(), config(whole.path(), 900, 200)).unwrap();

    // Simulate a crash: the last two shards and the manifest are gone, the ledger ends in a
    // torn line, and a half-written temp file lies beside the shards.
    let resumed = tempfile::tempdir().unwrap();
    run(lib.clone(), config(resumed.path(), 900, 200)).unwrap();
    let out = resumed.path();
    std::fs::remove_file(out.join("manifest.json")).unwrap();
    std::fs::remove_file(out.join("shards/part-00003.parquet")).unwrap();
    std::fs::remove_file(out.join("shards/part-00004.parquet")).unwrap();
    std::fs::write(out.join("shards/.part-00003.parquet.tmp"), b"PAR1 half").unwrap();
    let ledger = out.join("ledger.jsonl");
    let text = std::fs::read_to_string(&ledger).unwrap();
    let kept: Vec<&str> = text.lines().take(4).collect(); // header + shards 0, 1, 2
    std::fs::write(
        &ledger,
        format!(
            "{}\n{{\"kind\":\"shard\",\"file\":\"shards/part-000",
            kept.join("\n")
        ),
    )
    .unwrap();

    let second = run(lib, config(out, 900, 200)).unwrap();
    assert_eq!(
        second.generated_now, 300,
        "only the two lost shards are generated again"
    );
    let sha = |m: &corpus::Manifest| {
        m.shards
            .iter()
            .map(|s| (s.file.clone(), s.sha256.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        sha(&second.manifest),
        sha(&first.manifest),
        "byte-identical shards"
    );
    assert!(
        !out.join("shards/.part-00003.parquet.tmp").exists(),
        "the stray temp file is gone"
    );
}

#[test]
fn a_different_run_is_refused_and_nothing_is_touched() {
    let lib = Arc::new(library_with(&[]));
    let dir = tempfile::tempdir().unwrap();
    run(lib.clone(), config(dir.path(), 200, 100)).unwrap();
    let before: Vec<(PathBuf, Vec<u8>)> = walk(dir.path());
    let mut other = config(dir.path(), 200, 100);
    other.seed = 8;
    let err = run(lib, other).unwrap_err().to_string();
    assert!(err.contains("different run"), "{err}");
    assert_eq!(walk(dir.path()), before);
}

fn walk(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn seventh_scenario_needs_no_code() {
    let lib = Arc::new(library_with(&["seventh"]));
    assert!(lib.set.get("repair").is_some());
    let plan = Plan::build(&lib.set, 7, 7_000, &Default::default()).unwrap();
    let repair_cells: Vec<_> = plan
        .allocations
        .iter()
        .filter(|a| a.cell.scenario == "repair")
        .collect();
    assert_eq!(repair_cells.len(), 9, "regular × 4, emergent × 4, none × 1");
    assert!(repair_cells.iter().all(|a| a.count > 0));
    let dir = tempfile::tempdir().unwrap();
    run(lib, config(dir.path(), 7_000, 7_000)).unwrap();
    let repair: Vec<Dialogue> = shards(dir.path())
        .into_iter()
        .filter(|d| d.scenario == "repair")
        .collect();
    assert!(repair.len() > 500, "{} repair dialogues", repair.len());
    assert!(
        repair
            .iter()
            .all(|d| d.qc.as_ref().is_some_and(|q| q.passed))
    );
    assert!(
        repair
            .iter()
            .any(|d| d.turns.iter().any(|t| t.text.contains("门卫室"))),
        "the repair preset is conveyed"
    );
}

fn actions(d: &Dialogue) -> Vec<Action> {
    d.turns
        .iter()
        .filter(|t| t.speaker == Speaker::Assistant)
        .filter_map(|t| t.action)
        .collect()
}

/// The decisions follow the relation: the assistant conveys a preset that applies, sets it
/// aside on conflict, never conveys one that does not apply, and closes every call.
#[test]
fn decisions_follow_the_relation() {
    let lib = Arc::new(library_with(&[]));
    let dir = tempfile::tempdir().unwrap();
    run(lib, config(dir.path(), 6_000, 6_000)).unwrap();
    let mut wrong = Vec::new();
    for d in shards(dir.path()) {
        let a = actions(&d);
        let has = |x: Action| a.contains(&x);
        let ok = match (d.preset_case, d.relation) {
            (PresetCase::None, _) => {
                !has(Action::ConveyPreset)
                    && !has(Action::SuspendPreset)
                    && !has(Action::DeferPreset)
            }
            (_, Relation::Alignment) => has(Action::ConveyPreset) && !has(Action::SuspendPreset),
            (_, Relation::Complementarity) => {
                has(Action::ConveyPreset) && !has(Action::SuspendPreset)
            }
            // A new fact suspends the preset; pressure it exists to resist has it held.
            (_, Relation::Conflict) => has(Action::SuspendPreset) || has(Action::HoldPreset),
            (_, Relation::Irrelevance) => {
                !has(Action::ConveyPreset)
                    && !has(Action::SuspendPreset)
                    && !has(Action::DeferPreset)
            }
            (_, Relation::None) => false,
        };
        // The call ends with the assistant closing — or conveying a preset as its last word when
        // the caller said goodbye before it could.
        let closed = a.last() == Some(&Action::Close)
            || (a.last() == Some(&Action::ConveyPreset) && d.turns.len() >= 2 && {
                let caller_last = &d.turns[d.turns.len() - 2].text;
                ["拜拜", "再见", "先这样", "挂了"]
                    .iter()
                    .any(|w| caller_last.contains(w))
            });
        if !ok || !closed {
            wrong.push(format!(
                "{} {}/{}: {:?}",
                d.id, d.preset_case, d.relation, a
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} dialogues decide against their relation:\n{}",
        wrong.len(),
        wrong
            .iter()
            .take(400)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_shipped_library_is_coherent() {
    let lib = library_with(&[]);
    let findings = roleplay::lint::lint(&lib);
    assert!(
        findings.is_empty(),
        "{} coherence findings:\n{}",
        findings.len(),
        findings
            .iter()
            .take(30)
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn no_private_fact_is_ever_said() {
    let lib = Arc::new(library_with(&[]));
    let dir = tempfile::tempdir().unwrap();
    run(lib, config(dir.path(), 3_000, 3_000)).unwrap();
    for d in shards(dir.path()) {
        for t in &d.turns {
            for (k, v) in &d.owner.private {
                assert!(
                    !t.text.contains(v.as_str()),
                    "{}: private {k} {v:?} said in {:?}",
                    d.id,
                    t.text
                );
            }
            assert!(
                !t.text.contains(&d.owner.name),
                "{}: the owner's full name said in {:?}",
                d.id,
                t.text
            );
        }
    }
}

/// What a proxy must get right, over a whole corpus, read from the text: a preset is never
/// suspended in a call whose event is pressure (`kind = "pressure"`), a request only a scam makes
/// is refused in the very next turn, owners are coherent (a 先生 has no 丈夫; a day spent with a
/// child, `schedules_with_child`, comes with a family line that has one), and the first
/// assistant turn greets once.
#[test]
fn the_proxy_holds_refuses_and_makes_sense() {
    use callbench_model::concepts::concepts;
    use callbench_model::scenario::EventKind;
    let lib = Arc::new(library_with(&[]));
    let pressure: BTreeSet<String> = lib
        .set
        .scenarios
        .iter()
        .flat_map(|s| &s.file.events)
        .filter(|e| e.kind == EventKind::Pressure)
        .map(|e| e.description.clone())
        .collect();
    assert!(
        !pressure.is_empty(),
        "the shipped library declares pressure events"
    );
    let dir = tempfile::tempdir().unwrap();
    run(lib.clone(), config(dir.path(), 6_000, 6_000)).unwrap();
    let has = |list: &[String], t: &str| list.iter().any(|w| t.contains(w.as_str()));
    let c = concepts();
    let (mut pressure_calls, mut scam_asks, mut held, mut with_child) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    for d in shards(dir.path()) {
        let a = actions(&d);
        let under_pressure = d.caller.events.iter().any(|e| pressure.contains(e));
        if under_pressure {
            pressure_calls += 1;
            if a.contains(&Action::SuspendPreset) {
                wrong.push(format!("{}: preset suspended under pressure: {a:?}", d.id));
            }
        }
        held += a.iter().filter(|x| **x == Action::HoldPreset).count();
        for w in d.turns.windows(2) {
            if w[0].speaker == Speaker::Caller && has(&c.scam_request, &w[0].text) {
                scam_asks += 1;
                if !has(&c.refusal, &w[1].text) {
                    wrong.push(format!(
                        "{}: scam request not refused: {:?} → {:?}",
                        d.id, w[0].text, w[1].text
                    ));
                }
            }
        }
        let title = d.owner.public.get("title").cloned().unwrap_or_default();
        let family = d.owner.private.get("family").cloned().unwrap_or_default();
        if (title.ends_with("先生") && (family.contains("丈夫") || family.contains("公公")))
            || (title.ends_with("女士") && (family.contains("妻子") || family.contains("岳父")))
        {
            wrong.push(format!("{}: {title} with family {family:?}", d.id));
        }
        // A day spent with the owner's child, and a family line with no child at school.
        let schedule = d.owner.private.get("schedule").cloned().unwrap_or_default();
        if lib.set.owners.schedules_with_child.contains(&schedule) {
            with_child += 1;
            if lib.set.owners.no_child_at_school.contains(&family) {
                wrong.push(format!("{}: {schedule:?} with family {family:?}", d.id));
            }
        }
        if let Some(first) = d.turns.iter().find(|t| t.speaker == Speaker::Assistant) {
            let greetings = first
                .text
                .split(['。', '！', '？'])
                .filter(|s| s.starts_with("您好") || s.starts_with("你好") || s.starts_with('喂'))
                .count();
            if greetings > 1 {
                wrong.push(format!("{}: greets twice: {:?}", d.id, first.text));
            }
        }
    }
    // The test must have seen what it checks.
    assert!(
        pressure_calls > 50,
        "only {pressure_calls} calls under pressure"
    );
    assert!(scam_asks > 20, "only {scam_asks} scam requests");
    assert!(held > 50, "only {held} hold_preset decisions");
    assert!(
        with_child > 50,
        "only {with_child} owners whose day is spent with a child"
    );
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Asked to hold the line ("您先别挂，还有件事"), the caller waits ("好，您说。") and the owner's word
/// comes next: it does not go on with a question the conveyance would talk over, nor accept an
/// instruction it has not heard ("还有句交代" is no conveyance). And what is said on the phone
/// holds no word of the generator's own: no 机主, no "的话的话" of a topic ending in 话.
#[test]
fn a_deferral_is_waited_for_and_no_template_word_is_said() {
    let lib = Arc::new(library_with(&[]));
    let dir = tempfile::tempdir().unwrap();
    run(lib, config(dir.path(), 6_000, 6_000)).unwrap();
    let mut deferrals = 0;
    let mut wrong = Vec::new();
    for d in shards(dir.path()) {
        let t = &d.turns;
        for (i, turn) in t.iter().enumerate() {
            if turn.action == Some(Action::DeferPreset) {
                deferrals += 1;
                let waits = t
                    .get(i + 1)
                    .is_some_and(|c| c.speaker == Speaker::Caller && c.text.chars().count() <= 10);
                let then_said = t
                    .get(i + 2)
                    .is_some_and(|a| a.action == Some(Action::ConveyPreset));
                if !waits || !then_said {
                    let next: Vec<&str> =
                        t[i + 1..].iter().take(2).map(|x| x.text.as_str()).collect();
                    wrong.push(format!("{}: after the deferral {next:?}", d.id));
                }
            }
            if turn.text.contains("的话的话")
                || (turn.speaker == Speaker::Assistant && turn.text.contains("机主"))
            {
                wrong.push(format!("{}: template word said: {:?}", d.id, turn.text));
            }
        }
    }
    assert!(deferrals > 50, "only {deferrals} deferrals");
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The calls are not all cut to one shape: some end on the caller's goodbye after the
/// assistant closed; some owners hold a second preset that does not apply (and it is never the
/// one conveyed in a call it does not apply to); personas change the caller's words.
#[test]
fn calls_vary_in_shape_and_voice() {
    let lib = Arc::new(library_with(&[]));
    let dir = tempfile::tempdir().unwrap();
    run(lib, config(dir.path(), 3_000, 3_000)).unwrap();
    let corpus = shards(dir.path());
    let goodbye = ["拜拜", "再见", "挂了"];
    let mut caller_last = 0;
    let mut two_presets = 0;
    let (mut tic_callers, mut tic_said) = (0, 0);
    for d in &corpus {
        let last = d.turns.last().unwrap();
        if last.speaker == Speaker::Caller {
            caller_last += 1;
            assert!(
                goodbye.iter().any(|w| last.text.contains(w)),
                "{}: a caller's last word is a goodbye: {:?}",
                d.id,
                last.text
            );
            let closing = &d.turns[d.turns.len() - 2];
            assert_eq!(closing.action, Some(Action::Close), "{}", d.id);
        }
        if d.owner.presets.len() == 2 {
            two_presets += 1;
            let ids: std::collections::BTreeSet<&str> = d
                .turns
                .iter()
                .filter_map(|t| t.preset_id.as_deref())
                .collect();
            assert!(ids.len() <= 1, "{}: one preset applies, not {ids:?}", d.id);
            if d.relation == Relation::Irrelevance {
                assert!(ids.is_empty(), "{}: neither applies", d.id);
            }
        }
        if let Some(p) = &d.caller.persona
            && p.contains("爱说“得嘞”")
        {
            tic_callers += 1;
            if d.turns
                .iter()
                .any(|t| t.speaker == Speaker::Caller && t.text.contains("得嘞，"))
            {
                tic_said += 1;
            }
        }
    }
    let n = corpus.len();
    assert!(
        caller_last * 100 > n,
        "{caller_last} of {n} end on the caller"
    );
    assert!(
        two_presets * 10 > n,
        "{two_presets} of {n} owners hold two presets"
    );
    assert!(
        tic_callers > 0,
        "the shipped courier persona with a tic is drawn"
    );
    assert!(
        tic_said * 2 > tic_callers,
        "{tic_said} of {tic_callers} callers who love to say 得嘞 say it"
    );
}

/// A scenario file says what it needs, with no Rust and no shared file edited: its own private
/// facts (owners get them, the assistant never says them and declines the questions after
/// them), probes bound to roles and no generic ones, departments drawn with their hospital.
#[test]
fn a_scenario_file_says_what_it_needs() {
    let lib = Arc::new(library_with(&["hospital"]));
    let dir = tempfile::tempdir().unwrap();
    run(lib, config(dir.path(), 7_000, 7_000)).unwrap();
    let calls: Vec<Dialogue> = shards(dir.path())
        .into_iter()
        .filter(|d| d.scenario == "hospital")
        .collect();
    assert!(calls.len() > 500, "{} hospital calls", calls.len());
    let departments = [
        ("青禾眼科医院", ["眼底病科", "白内障科", "青光眼科"]),
        ("澄湖第一人民医院", ["心内科", "内分泌科", "呼吸内科"]),
        ("远山口腔医院", ["正畸科", "牙周科", "种植牙科"]),
    ];
    let generic = ["成家", "几口人", "孩子在哪", "哪个公司", "什么单位"];
    let (mut medical_probes, mut declined) = (0, 0);
    for d in &calls {
        for key in ["diagnosis", "medication", "insurance_no"] {
            assert!(d.owner.private.contains_key(key), "{}: no {key}", d.id);
        }
        for (i, t) in d.turns.iter().enumerate() {
            for v in d.owner.private.values() {
                assert!(!t.text.contains(v.as_str()), "{}: {v:?} said", d.id);
            }
            if t.speaker != Speaker::Caller {
                continue;
            }
            assert!(
                !generic.iter().any(|w| t.text.contains(w)),
                "{}: a generic probe in a hospital call: {:?}",
                d.id,
                t.text
            );
            for (hospital, own) in &departments {
                if t.text.contains(hospital) {
                    let others = departments.iter().filter(|(h, _)| h != hospital);
                    for (_, theirs) in others {
                        assert!(
                            !theirs.iter().any(|x| t.text.contains(x)),
                            "{}: a department of another hospital: {:?}",
                            d.id,
                            t.text
                        );
                    }
                    let _ = own;
                }
            }
            if [
                "什么病",
                "诊断",
                "吃什么药",
                "用的什么药",
                "医保卡号",
                "医保号",
            ]
            .iter()
            .any(|w| t.text.contains(w))
            {
                medical_probes += 1;
                // Declined as private, or refused outright (a card number is also what a
                // scammer asks for): either way nothing is given.
                let answer = d.turns.get(i + 1).map_or("", |a| a.text.as_str());
                if [
                    "不方便",
                    "不太方便",
                    "不能",
                    "不提供",
                    "不会给",
                    "不给",
                    "不好替",
                    "没法告诉",
                    "答不了",
                ]
                .iter()
                .any(|w| answer.contains(w))
                {
                    declined += 1;
                }
            }
        }
    }
    assert!(medical_probes > 50, "{medical_probes} medical probes");
    assert_eq!(declined, medical_probes, "every medical probe is refused");
    assert!(
        calls
            .iter()
            .all(|d| d.qc.as_ref().is_some_and(|q| q.passed))
    );
}

/// Near misses: a caller the owner's preset does not apply to says its cue word denied ("我还没到
/// 楼下呢", "您千万别帮我取消"), in its own turn or in the same breath as its matter. Over a
/// corpus, such calls occur in several scenarios, and the preset is never conveyed in them.
#[test]
fn a_near_miss_is_not_the_trigger() {
    let lib = Arc::new(library_with(&[]));
    // The near-miss lines of the library that need no slot, with their preset's trigger.
    let mut lines: Vec<(String, String)> = Vec::new();
    for s in &lib.set.scenarios {
        for p in s
            .file
            .regular_presets
            .iter()
            .chain(&s.file.emergent_presets)
        {
            for n in &p.near_misses {
                for l in n.lines.iter().filter(|l| !l.contains("{{")) {
                    lines.push((l.clone(), p.trigger.clone()));
                }
            }
        }
    }
    assert!(lines.len() >= 20, "the shipped library has near misses");
    let dir = tempfile::tempdir().unwrap();
    run(lib, config(dir.path(), 12_000, 12_000)).unwrap();
    let mut scenarios = BTreeSet::new();
    let mut calls = 0;
    let mut in_opening = 0;
    for d in shards(dir.path()) {
        let said = d.turns.iter().enumerate().find_map(|(i, t)| {
            let l = lines
                .iter()
                .find(|(l, _)| t.speaker == Speaker::Caller && t.text.contains(l.as_str()))?;
            Some((i, l))
        });
        let Some((at, (line, trigger))) = said else {
            continue;
        };
        calls += 1;
        scenarios.insert(d.scenario.clone());
        let first_caller = d.turns.iter().position(|t| t.speaker == Speaker::Caller);
        if first_caller == Some(at) || d.turns[at].text.len() > line.len() + 30 {
            in_opening += 1;
        }
        assert_eq!(
            d.relation,
            Relation::Irrelevance,
            "{}: a near miss ({line:?}) is said only where the preset does not apply",
            d.id
        );
        let preset_id = d
            .owner
            .presets
            .iter()
            .find(|p| &p.trigger == trigger)
            .map(|p| p.id.clone());
        for t in d.turns.iter().filter(|t| t.speaker == Speaker::Assistant) {
            assert!(
                t.action != Some(Action::ConveyPreset)
                    && (preset_id.is_none() || t.preset_id != preset_id),
                "{}: the assistant took the near miss {line:?} for the trigger: {:?}",
                d.id,
                t.text
            );
        }
    }
    assert!(calls >= 50, "near misses are said ({calls} calls)");
    assert!(scenarios.len() >= 4, "in several scenarios: {scenarios:?}");
    assert!(in_opening > 0, "some in the caller's matter itself");
}
