//! `docs/architecture.md` matches the tree: every module path it names (a backticked
//! `src/…`, `gpu/src/…` or `gte/src/…` file or directory) exists, and every top-level module of
//! `src/`, `gpu/src/` and `gte/src/` is named.

use std::collections::BTreeSet;
use std::path::Path;

const ROOTS: [&str; 3] = ["src/", "gpu/src/", "gte/src/"];

/// The backticked paths under one of [`ROOTS`] in `text`.
fn named_paths(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| ROOTS.iter().any(|r| t.starts_with(r)))
        .filter(|t| !t.contains(char::is_whitespace))
        .map(str::to_string)
        .collect()
}

#[test]
fn architecture_names_every_top_level_module_and_only_real_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let named = named_paths(&text);
    assert!(
        named.len() > 40,
        "only {} paths named: {named:?}",
        named.len()
    );

    let missing: Vec<&String> = named.iter().filter(|p| !root.join(p).exists()).collect();
    assert!(missing.is_empty(), "named but not in the tree: {missing:?}");

    let mut unnamed = Vec::new();
    for dir in ROOTS {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            let module = if entry.file_type().unwrap().is_dir() {
                // A directory is a module when it has a mod.rs or a sibling `name.rs` (then the
                // file names it).
                if !entry.path().join("mod.rs").exists() {
                    continue;
                }
                format!("{dir}{name}/")
            } else if name.ends_with(".rs") {
                format!("{dir}{name}")
            } else {
                continue;
            };
            if !named.contains(&module) {
                unnamed.push(module);
            }
        }
    }
    unnamed.sort();
    assert!(
        unnamed.is_empty(),
        "top-level modules docs/architecture.md does not name: {unnamed:?}"
    );
}
