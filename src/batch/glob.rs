//! Model globs: `*` (any run of characters) and `?` (one character) within a path component,
//! e.g. `models/c_*.mdl` or `*/Fox.glb`. Matches are files only, in name order. `**` and
//! character classes are not supported (a `[` is an ordinary character).

use std::path::{Component, Path, PathBuf};

/// Whether `s` has glob wildcards.
pub fn is_pattern(s: &str) -> bool {
    s.contains(['*', '?'])
}

/// Whether `name` matches `pattern` (`*`, `?`), whole.
pub fn matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Greedy star matching with one backtrack point: linear in practice, no recursion.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ni));
            pi += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// The files `pattern` names, relative to `base` when the pattern is relative; each result is
/// the pattern with its wildcards filled in (so it is relative when the pattern was). At most
/// `max` matches; more is an error.
pub fn expand(base: &Path, pattern: &str, max: usize) -> Result<Vec<PathBuf>, String> {
    let pattern_path = Path::new(pattern);
    // (path as the user will see it, path on disk)
    let mut found: Vec<(PathBuf, PathBuf)> = vec![(PathBuf::new(), base.to_path_buf())];
    let comps: Vec<Component> = pattern_path.components().collect();
    for (k, comp) in comps.iter().enumerate() {
        let last = k + 1 == comps.len();
        let text = comp.as_os_str().to_string_lossy();
        let mut next = Vec::new();
        for (shown, disk) in &found {
            if !matches!(comp, Component::Normal(_)) || !is_pattern(&text) {
                next.push((shown.join(comp), disk.join(comp)));
                continue;
            }
            let Ok(entries) = std::fs::read_dir(disk) else {
                continue;
            };
            let mut names: Vec<(String, bool)> = entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_str()?.to_string();
                    let is_dir = e.path().is_dir();
                    (matches(&text, &name) && !name.starts_with('.') && (is_dir != last))
                        .then_some((name, is_dir))
                })
                .collect();
            names.sort();
            for (name, _) in names {
                next.push((shown.join(&name), disk.join(&name)));
                if next.len() > max {
                    return Err(format!("matches more than {max} files"));
                }
            }
        }
        found = next;
    }
    Ok(found
        .into_iter()
        .filter(|(_, disk)| disk.is_file())
        .map(|(shown, _)| shown)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        assert!(matches("*.mdl", "c_aribeth.mdl"));
        assert!(matches("c_*", "c_"));
        assert!(matches("a?c", "abc") && !matches("a?c", "ac"));
        assert!(matches("*a*b*", "xxaxxbxx") && !matches("*a*b", "xxbxxa"));
        assert!(!matches("*.mdl", "a.mdl.bak"));
        assert!(matches("[x]*", "[x]1"));
    }

    #[test]
    fn expands_files_in_name_order() {
        let dir = std::env::temp_dir().join(format!("psxr-glob-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
        for f in ["b.mdl", "a.mdl", "c.txt", "sub/d.mdl", ".hidden.mdl"] {
            std::fs::write(dir.join(f), b"x").unwrap();
        }
        let got = expand(&dir, "*.mdl", 10).unwrap();
        assert_eq!(got, [PathBuf::from("a.mdl"), PathBuf::from("b.mdl")]);
        assert_eq!(
            expand(&dir, "*/*.mdl", 10).unwrap(),
            [Path::new("sub/d.mdl")]
        );
        assert!(expand(&dir, "*.mdl", 1).is_err());
        assert!(expand(&dir, "none*", 10).unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
