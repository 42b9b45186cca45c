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

/// The top-level modules of `src/` that `file`'s code names through `crate::X` (comments and
/// the unit tests at the end left out), as `../shared/tools/modcycles.py` reads them.
fn crate_references(file: &str) -> BTreeSet<String> {
    let code: String = file
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let unit_tests = code.match_indices("#[cfg(test)]").find(|(i, t)| {
        let after = code[i + t.len()..].trim_start();
        after
            .strip_prefix("mod tests")
            .is_some_and(|a| a.trim_start().starts_with('{'))
    });
    let code = &code[..unit_tests.map_or(code.len(), |(i, _)| i)];
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        match rest.strip_prefix('{') {
            // `use crate::{a, b::c}`: every first segment.
            Some(list) => {
                let list = list.split('}').next().unwrap_or("");
                out.extend(list.split(',').map(|p| ident(p.trim())));
            }
            None => {
                out.insert(ident(rest));
            }
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Layers point one way: no top-level module of `src/` reaches itself through `crate::`
/// references (the rule `docs/architecture.md` draws).
#[test]
fn top_level_modules_of_src_have_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut edges: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel.iter().next().unwrap().to_string_lossy();
        let top = top.trim_end_matches(".rs").to_string();
        if ["lib", "main", "mod"].contains(&top.as_str()) {
            continue;
        }
        let refs = crate_references(&std::fs::read_to_string(&f).unwrap());
        edges
            .entry(top.clone())
            .or_default()
            .extend(refs.into_iter().filter(|r| *r != top));
    }
    // A module on a cycle reaches itself: walk from each one.
    let mut cycles = Vec::new();
    for start in edges.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&String> = edges[start].iter().collect();
        while let Some(m) = stack.pop() {
            if seen.insert(m.clone()) {
                stack.extend(edges.get(m).into_iter().flatten());
            }
        }
        if seen.contains(start) {
            cycles.push(start.clone());
        }
    }
    assert!(
        cycles.is_empty(),
        "modules on a cycle of crate:: references: {cycles:?}; edges: {edges:?}"
    );
}

#[test]
fn references_are_read_as_the_tool_reads_them() {
    let file = "use crate::{read, texture::Tim};\n// crate::cli\nfn f() { crate::scene::x(); }\n\
                #[cfg(test)]\nmod tests {\n    use crate::render;\n}\n";
    let refs: Vec<String> = crate_references(file).into_iter().collect();
    assert_eq!(refs, ["read", "scene", "texture"]);
}
