//! Every generic bank the assistant names is in phrasebook's validated list, so that a bank
//! missing from `templates/assistant.toml` fails at load, naming it, instead of leaving the
//! assistant silent mid-call.

#[test]
fn every_bank_the_assistant_names_is_validated_at_load() {
    let src = include_str!("../src/lib.rs");
    let named = banks_named(src, "assistant.");
    assert!(named.len() >= 10, "the scan finds the banks: {named:?}");
    let missing: Vec<&String> = named
        .iter()
        .filter(|b| !phrasebook::ASSISTANT_BANKS.contains(&b.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "add these to phrasebook::ASSISTANT_BANKS: {missing:?}"
    );
}

/// The names `"<prefix><name>"` written as string literals in `src`.
fn banks_named(src: &str, prefix: &str) -> std::collections::BTreeSet<String> {
    let needle = format!("\"{prefix}");
    src.match_indices(&needle)
        .filter_map(|(i, _)| {
            let rest = &src[i + needle.len()..];
            let end = rest.find('"')?;
            let name = &rest[..end];
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c == '_')
                .then(|| name.to_string())
        })
        .collect()
}
