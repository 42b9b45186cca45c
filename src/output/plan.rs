//! Every file one run writes, resolved and checked before anything runs, so that no output
//! destroys what it should not: an output that is one of the run's inputs, a second output of
//! the same run, or not a regular file (a folder, device, FIFO or socket) is refused with both
//! names. One rule for every command: `render`, `replay`, `texture`, `compare`, `view` and a
//! whole `batch` (its jobs' files, its report and the report's journal).
//!
//! Paths are compared by what they resolve to: the folder canonicalised through symbolic links
//! (as far as it exists; the rest folded textually, as `mkdir -p` would create it) plus the file
//! name. The name itself is not followed: renaming over a symbolic link replaces the link, not
//! what it points to. An existing output is also compared by its target, so an output that is
//! a link to an input is refused too.

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::formats::files::{canonical_dir, canonical_file};

/// A path with what the run calls it, for messages: `("o.png", "--vram")`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The path as the user spelt it.
    pub path: PathBuf,
    /// Its role: `OUT`, `--vram`, `line 3, key "out"`...
    pub what: String,
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} ({})", self.path.display(), self.what)
    }
}

/// Why an output was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The output is one of the run's inputs.
    IsInput {
        /// The output.
        output: Claim,
        /// The input it would replace.
        input: Claim,
    },
    /// Two outputs of the run are one file.
    Twice {
        /// The output named first.
        first: Claim,
        /// The one named later.
        second: Claim,
    },
    /// The output exists and is not a regular file.
    NotRegular {
        /// The output.
        output: Claim,
        /// What it is: "a directory", "a device"...
        kind: &'static str,
    },
    /// Its folder could not be resolved.
    Unresolved {
        /// The output.
        output: Claim,
        /// The system's reason.
        error: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Refusal::IsInput { output, input } => write!(
                f,
                "{output} is the input {input}: not written over (nothing was written)"
            ),
            Refusal::Twice { first, second } => write!(
                f,
                "{second} is also written as {first}: every output needs its own path \
                 (nothing was written)"
            ),
            Refusal::NotRegular { output, kind } => write!(
                f,
                "{output} is {kind}, not a regular file: not replaced (nothing was written)"
            ),
            Refusal::Unresolved { output, error } => {
                write!(f, "cannot resolve {output}: {error} (nothing was written)")
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// The files of one run: add every input and output, each checked as it comes.
#[derive(Debug, Default)]
pub struct OutputPlan {
    outputs: HashMap<PathBuf, Claim>,
    inputs: HashMap<PathBuf, Claim>,
}

impl OutputPlan {
    /// An empty plan.
    pub fn new() -> OutputPlan {
        OutputPlan::default()
    }

    /// Records an input of the run (a file it reads); refused when an output already claims it.
    /// An input that cannot be resolved is left to the reader to report.
    pub fn input(&mut self, path: &Path, what: impl Into<String>) -> Result<(), Refusal> {
        let claim = Claim {
            path: path.to_path_buf(),
            what: what.into(),
        };
        for key in input_keys(path) {
            if let Some(out) = self.outputs.get(&key) {
                return Err(Refusal::IsInput {
                    output: out.clone(),
                    input: claim,
                });
            }
            self.inputs.entry(key).or_insert_with(|| claim.clone());
        }
        Ok(())
    }

    /// Records an output of the run: refused when it is an input, another output, not a
    /// regular file, or its folder cannot be resolved.
    pub fn output(&mut self, path: &Path, what: impl Into<String>) -> Result<(), Refusal> {
        let claim = Claim {
            path: path.to_path_buf(),
            what: what.into(),
        };
        let key = match resolve(path) {
            Ok(k) => k,
            Err(e) => {
                return Err(Refusal::Unresolved {
                    output: claim,
                    error: e.to_string(),
                })
            }
        };
        if let Some(kind) = not_regular(&key) {
            return Err(Refusal::NotRegular {
                output: claim,
                kind,
            });
        }
        let target = canonical_file(&key).ok();
        for k in std::iter::once(&key).chain(&target) {
            if let Some(input) = self.inputs.get(k) {
                return Err(Refusal::IsInput {
                    output: claim,
                    input: input.clone(),
                });
            }
        }
        if let Some(first) = self.outputs.get(&key) {
            return Err(Refusal::Twice {
                first: first.clone(),
                second: claim,
            });
        }
        self.outputs.insert(key, claim);
        Ok(())
    }
}

/// The keys an input is known by: where its name resolves, and the file it finally is.
fn input_keys(path: &Path) -> Vec<PathBuf> {
    let mut keys: Vec<PathBuf> = resolve(path).into_iter().collect();
    if let Ok(target) = canonical_file(path) {
        if !keys.contains(&target) {
            keys.push(target);
        }
    }
    keys
}

/// `path` as an absolute path whose folder is canonical (symbolic links followed as far as the
/// folders exist; the rest folded textually) and whose last component is kept as named.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let abs = std::path::absolute(path)?;
    // The usual case, a folder that exists, in one resolution: the system resolves a path
    // component by component, through links and `..`, exactly as the walk below does, and a
    // walk step by step would resolve every leading folder again (a readlink each).
    if let (Some(dir), Some(name)) = (abs.parent(), abs.file_name()) {
        if let Ok(real) = canonical_dir(dir) {
            return Ok(real.join(name));
        }
    }
    let parts: Vec<Component> = abs.components().collect();
    let mut cur = PathBuf::new();
    let mut real = true;
    for (i, c) in parts.iter().enumerate() {
        match c {
            Component::Prefix(_) | Component::RootDir => cur.push(c),
            Component::CurDir => {}
            Component::ParentDir => {
                cur.pop();
            }
            Component::Normal(n) => {
                cur.push(n);
                if real && i + 1 < parts.len() {
                    match canonical_dir(&cur) {
                        Ok(c) => cur = c,
                        Err(_) => real = false,
                    }
                }
            }
        }
    }
    Ok(cur)
}

/// What `path` is, in words ("a directory", "a FIFO (named pipe)", "a device"), when it
/// exists and is not a regular file (symbolic links followed).
pub fn not_regular(path: &Path) -> Option<&'static str> {
    let t = fs::metadata(path).ok()?.file_type();
    (!t.is_file()).then(|| crate::read::files::file_type_words(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("psxr-plan-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn one_file_by_two_spellings_is_refused() {
        let d = scratch("spell");
        fs::create_dir_all(d.join("real")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(d.join("real"), d.join("link")).unwrap();
        let mut plan = OutputPlan::new();
        plan.output(&d.join("real/c.png"), "line 1").unwrap();
        let e = plan.output(&d.join("real/./x/../c.png"), "line 2");
        assert!(matches!(e, Err(Refusal::Twice { .. })), "{e:?}");
        #[cfg(unix)]
        {
            let e = plan.output(&d.join("link/c.png"), "line 3").unwrap_err();
            let m = e.to_string();
            assert!(
                m.contains("link/c.png (line 3)") && m.contains("real/c.png (line 1)"),
                "{m}"
            );
        }
        // A folder not made yet resolves textually.
        plan.output(&d.join("new/a/../b.png"), "x").unwrap();
        assert!(plan.output(&d.join("new/b.png"), "y").is_err());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn inputs_and_special_files_are_refused() {
        let d = scratch("input");
        fs::write(d.join("m.glb"), b"x").unwrap();
        let mut plan = OutputPlan::new();
        plan.input(&d.join("m.glb"), "MODEL").unwrap();
        let e = plan.output(&d.join("./m.glb"), "OUT").unwrap_err();
        assert!(matches!(e, Refusal::IsInput { .. }), "{e}");
        // Outputs first, inputs later: still refused.
        let mut plan = OutputPlan::new();
        plan.output(&d.join("m.glb"), "--report").unwrap();
        assert!(plan.input(&d.join("m.glb"), "line 1").is_err());
        let e = plan.output(&d, "OUT").unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        #[cfg(unix)]
        {
            let e = OutputPlan::new()
                .output(Path::new("/dev/null"), "--report")
                .unwrap_err();
            assert!(e.to_string().contains("is a device"), "{e}");
        }
        fs::remove_dir_all(&d).unwrap();
    }
}
