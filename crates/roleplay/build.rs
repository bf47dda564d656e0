//! Embeds the library — `scenarios/`, `templates/` and `methods/` of the repository — in the
//! binary, so that an installed `callbench` runs with no file beside it. Writes
//! `OUT_DIR/embedded.rs`: a sorted list of (path relative to the repository, `include_str!`).

use std::path::{Path, PathBuf};

const ROOTS: [&str; 3] = ["scenarios", "templates", "methods"];
const EXTENSIONS: [&str; 5] = ["toml", "tera", "md", "txt", "tsv"];

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| EXTENSIONS.contains(&x))
        {
            out.push(p);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let repo = manifest.join("../..");
    let mut files = Vec::new();
    for root in ROOTS {
        let dir = repo.join(root);
        println!("cargo:rerun-if-changed={}", dir.display());
        walk(&dir, &mut files);
    }
    let mut entries: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&repo)
                .expect("under the repository")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            (rel, p)
        })
        .collect();
    entries.sort();
    let mut code = String::from(
        "/// The embedded library: (path relative to the repository, text), sorted by path.\npub static FILES: &[(&str, &str)] = &[\n",
    );
    for (rel, path) in &entries {
        // Subdirectories are watched through their files.
        println!("cargo:rerun-if-changed={}", path.display());
        if let Some(parent) = path.parent() {
            println!("cargo:rerun-if-changed={}", parent.display());
        }
        let abs = std::fs::canonicalize(path).expect("a file that exists");
        code.push_str(&format!(
            "    ({rel:?}, include_str!({:?})),\n",
            abs.display().to_string()
        ));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("embedded.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
