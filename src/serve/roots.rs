//! The files the server may read: the PATHs it was started with and its upload folder, each a
//! root. A request names a file as `ROOT/RELATIVE` (`0/m2/Rabbit2.m2`, `u/3/model.m2`), never
//! by a path of its own: the root is an index into the server's list, and the relative part
//! must be plain names (no `..`, `.`, empty or absolute parts, no backslash or NUL), and the
//! file it reaches, symlinks followed, must still lie inside the root. Anything else is
//! refused before the filesystem is asked about it.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde_json::{json, Value};

use crate::capture::compressed::Compression;
use crate::capture::dump;
use crate::detect::{identify, Kind, Role};

/// Files one listing shows at most (the rest are counted).
pub const MAX_LISTED: usize = 5_000;
/// Folder depth a listing descends at most.
const MAX_DEPTH: usize = 8;
/// Bytes read from each file to tell what it is.
const SNIFF_BYTES: u64 = 64 * 1024;
/// The root name of the upload folder.
pub const UPLOADS: &str = "u";

/// One root: a PATH as given, and where it leads.
#[derive(Clone, Debug)]
pub struct Root {
    /// As the user typed it (shown in command lines).
    pub shown: PathBuf,
    /// Canonical (symlinks resolved).
    pub real: PathBuf,
    /// A single file rather than a folder.
    pub is_file: bool,
}

/// A request named a file outside what the server serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused(pub String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A file a request may read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// Where it is (canonical).
    pub real: PathBuf,
    /// How a command line names it: the root as typed joined with the relative part (an
    /// upload: its file name).
    pub shown: PathBuf,
}

/// What a listed file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A model the renderer draws.
    Model,
    /// GPU input: a dump (plain or compressed) or a text stream.
    Capture,
    /// A picture `compare` reads (PNG, or raw 1 MiB VRAM).
    Picture,
}

impl FileKind {
    fn name(self) -> &'static str {
        match self {
            FileKind::Model => "model",
            FileKind::Capture => "capture",
            FileKind::Picture => "picture",
        }
    }
}

/// What a file is, from its first bytes: `None` for anything the inspector does not open.
pub fn sniff(path: &Path) -> Option<FileKind> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut head = Vec::new();
    file.take(SNIFF_BYTES).read_to_end(&mut head).ok()?;
    if Compression::detect(&head).is_some() || dump::has_magic(&head) {
        return Some(FileKind::Capture);
    }
    if len == 1024 * 512 * 2 && !head.starts_with(b"\x89PNG") {
        return Some(FileKind::Picture);
    }
    match identify(&head).ok()? {
        Kind::Png => Some(FileKind::Picture),
        Kind::GpuStream | Kind::GpuDump => Some(FileKind::Capture),
        k if k.role() == Role::Model => Some(FileKind::Model),
        _ => None,
    }
}

/// The served roots: PATHs in order (named `0`, `1`, …), then the upload folder (`u`).
#[derive(Clone, Debug)]
pub struct Roots {
    paths: Vec<Root>,
    uploads: Option<Root>,
}

impl Roots {
    /// The roots for `paths` (each must exist) and the upload folder.
    pub fn new(paths: &[PathBuf], uploads: Option<&Path>) -> Result<Roots, String> {
        let root = |p: &Path| -> Result<Root, String> {
            let real = p
                .canonicalize()
                .map_err(|e| format!("{}: {e}", p.display()))?;
            Ok(Root {
                shown: p.to_path_buf(),
                is_file: real.is_file(),
                real,
            })
        };
        Ok(Roots {
            paths: paths.iter().map(|p| root(p)).collect::<Result<_, _>>()?,
            uploads: uploads.map(root).transpose()?,
        })
    }

    fn root(&self, name: &str) -> Option<&Root> {
        if name == UPLOADS {
            return self.uploads.as_ref();
        }
        // Digits only: `+1`, ` 1` and `01` are not root names.
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_digit()) || name.len() > 4 {
            return None;
        }
        self.paths.get(name.parse::<usize>().ok()?)
    }

    /// The file or folder `spec` (`ROOT` or `ROOT/RELATIVE`) names, or why it is refused.
    pub fn resolve(&self, spec: &str) -> Result<Resolved, Refused> {
        let refuse = |why: &str| Refused(format!("'{}': {why}", spec.escape_debug()));
        let (name, rel) = spec.split_once('/').unwrap_or((spec, ""));
        let root = self
            .root(name)
            .ok_or_else(|| refuse("no such root (roots are 0, 1, … and u)"))?;
        if rel.contains(['\\', '\0']) {
            return Err(refuse("a backslash or NUL in a file name"));
        }
        let rel_path = Path::new(rel);
        if !rel.is_empty()
            && (rel
                .split('/')
                .any(|c| c.is_empty() || c == "." || c == "..")
                || rel_path
                    .components()
                    .any(|c| !matches!(c, Component::Normal(_))))
        {
            return Err(refuse(
                "only plain names below a root (no '..', '.', empty or absolute parts)",
            ));
        }
        if root.is_file && !rel.is_empty() {
            return Err(refuse("the root is a file, not a folder"));
        }
        let joined = root.real.join(rel_path);
        let real = joined.canonicalize().map_err(|_| refuse("no such file"))?;
        if !real.starts_with(&root.real) {
            return Err(refuse("leads outside the served paths (a symlink)"));
        }
        let shown = if name == UPLOADS {
            PathBuf::from(rel_path.file_name().unwrap_or_default())
        } else {
            root.shown.join(rel_path)
        };
        Ok(Resolved { real, shown })
    }

    /// Every openable file below the roots (folders of pictures too, for comparisons), at
    /// most [`MAX_LISTED`].
    pub fn list(&self) -> Value {
        let mut files = Vec::new();
        let mut more = 0usize;
        let mut roots = Vec::new();
        let named = self
            .paths
            .iter()
            .enumerate()
            .map(|(i, r)| (i.to_string(), r));
        for (name, root) in named.chain(self.uploads.iter().map(|r| (UPLOADS.to_string(), r))) {
            roots.push(json!({
                "name": name,
                "shown": if name == UPLOADS { "uploads".into() } else { root.shown.display().to_string() },
                "file": root.is_file,
            }));
            if root.is_file {
                if let Some(kind) = sniff(&root.real) {
                    files.push(entry(&name, "", &root.shown, kind.name()));
                }
                continue;
            }
            walk(root, &root.real, 0, &mut |rel, kind| {
                if files.len() >= MAX_LISTED {
                    more += 1;
                    return;
                }
                let spec = format!("{name}/{rel}");
                files.push(entry(&spec, rel, &root.shown.join(rel), kind));
            });
        }
        json!({ "roots": roots, "files": files, "not_listed": more })
    }
}

fn entry(spec: &str, rel: &str, shown: &Path, kind: &str) -> Value {
    let spec = spec.trim_end_matches('/');
    json!({
        "path": spec,
        "name": if rel.is_empty() { shown.display().to_string() } else { rel.to_string() },
        "kind": kind,
    })
}

/// Calls `found(relative path, kind)` for every openable file below `dir` (sorted, hidden
/// names skipped, symlinks leading out of the root not followed), and for every folder
/// holding pictures (kind `pictures`).
fn walk(root: &Root, dir: &Path, depth: usize, found: &mut dyn FnMut(&str, &str)) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<PathBuf> = read.flatten().map(|e| e.path()).collect();
    names.sort();
    let mut pictures = 0usize;
    let rel_of = |p: &Path| {
        p.strip_prefix(&root.real)
            .map(|r| r.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    for p in names.iter().take(MAX_LISTED * 4) {
        let hidden = p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        let Ok(real) = p.canonicalize() else { continue };
        if hidden || !real.starts_with(&root.real) {
            continue;
        }
        if real.is_dir() {
            if depth < MAX_DEPTH && real == *p {
                walk(root, p, depth + 1, found);
            }
        } else if let Some(kind) = sniff(&real) {
            if kind == FileKind::Picture {
                pictures += 1;
            }
            found(&rel_of(p), kind.name());
        }
    }
    if pictures > 1 && dir != root.real {
        found(&rel_of(dir), "pictures");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_inside_a_root_resolve() {
        let base = std::env::temp_dir().join(format!("psxrender-roots-{}", std::process::id()));
        let inside = base.join("served");
        std::fs::create_dir_all(inside.join("sub")).unwrap();
        std::fs::write(inside.join("sub/a.txt"), "gp0 00000000\n").unwrap();
        std::fs::write(base.join("secret.txt"), "x").unwrap();
        let roots = Roots::new(std::slice::from_ref(&inside), None).unwrap();
        let ok = roots.resolve("0/sub/a.txt").unwrap();
        assert_eq!(ok.shown, inside.join("sub/a.txt"));
        for bad in [
            "0/../secret.txt",
            "0/sub/../../secret.txt",
            "0//etc/passwd",
            "0/./sub/a.txt",
            "0/sub\\a.txt",
            "1/a",
            "01/sub/a.txt",
            "u/x",
            "/etc/passwd",
            "0/sub/missing",
        ] {
            assert!(roots.resolve(bad).is_err(), "{bad} resolved");
        }
        #[cfg(unix)]
        {
            let link = inside.join("link");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(base.join("secret.txt"), &link).unwrap();
            let e = roots.resolve("0/link").unwrap_err();
            assert!(e.0.contains("outside"), "{e}");
        }
        let _ = std::fs::remove_dir_all(&base);
    }
}
