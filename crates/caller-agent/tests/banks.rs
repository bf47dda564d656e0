//! Every generic bank the caller names is in phrasebook's validated list, so that a bank
//! missing from `templates/caller.toml` fails at load, naming it, instead of leaving the
//! caller silent mid-call.

#[test]
fn every_bank_the_caller_names_is_validated_at_load() {
    let src = include_str!("../src/lib.rs");
    let named = banks_named(src, "caller.");
    assert!(named.len() >= 8, "the scan finds the banks: {named:?}");
    let missing: Vec<&String> = named
        .iter()
        .filter(|b| !phrasebook::CALLER_BANKS.contains(&b.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "add these to phrasebook::CALLER_BANKS: {missing:?}"
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
