//! Reading the files a model names, safely: only regular files, never more than a cap, and only
//! inside the folders the load may read.
//!
//! Rules and reasons:
//! - A model's folder is the directory part of its path, and `.` for a bare file name
//!   ([`model_dir`]): `c_aribeth.mdl` finds its supermodel beside it just as `./c_aribeth.mdl`.
//! - Only regular files are read ([`read_capped`], in the base layer): a FIFO would block forever and a device
//!   (`/dev/zero`) never ends, while both report a size of 0. The type is checked before opening
//!   and again on the open file, and the read stops one byte past the cap whatever the size said.
//! - A file a model names (a glTF URI, a supermodel or texture found beside it, possibly through a
//!   symlink) must lie, once every `..` and symlink is resolved, inside the model's folder or a
//!   folder the user named (`--search-path`, `--texture-dir`, `--palette-dir`) ([`Folders`]): a
//!   model file names data beside it, not elsewhere on the machine. Paths the user gives directly
//!   (`--texture 11=…`, `--tim`) are the user's choice and only go through [`read_capped`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::LoadOptions;
use crate::read::error::{ErrorKind, LoadError, Result};
use crate::read::read_capped;

/// The folder a model's neighbours are looked up in: the directory part of `model`, `.` for a
/// bare file name.
pub fn model_dir(model: &Path) -> &Path {
    match model.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

thread_local! {
    /// Each folder resolved through symbolic links, while [`one_pass`] runs on this thread.
    static RESOLVED: RefCell<Option<HashMap<PathBuf, Resolved>>> = const { RefCell::new(None) };
    /// Each folder's names, while [`one_pass`] runs on this thread.
    static LISTED: RefCell<Option<HashMap<PathBuf, Rc<[OsString]>>>> = const { RefCell::new(None) };
}

/// Most names of one folder [`list_dir`] keeps for the rest of a job (a few megabytes at
/// most); a bigger folder is listed afresh each time, so every caller still sees all of it.
const MAX_LISTED: usize = 100_000;

/// A folder resolved, or the system's error number (or kind) for why not.
type Resolved = Result<PathBuf, std::result::Result<i32, std::io::ErrorKind>>;

/// Runs `f` (one pass over files: a model loaded and rendered, a batch's manifest checked)
/// with each folder resolved through symbolic links and listed at most once. Resolving
/// `/a/b/c/d` asks the system about every folder on the way (`/a`, `/a/b`, ...), and a load
/// resolves and lists the same few folders for every file it looks for; a pass is short, so a
/// folder's links and names are taken to stay put while it runs. Outside `f` every call asks
/// the system afresh.
pub fn one_pass<T>(f: impl FnOnce() -> T) -> T {
    let outer = RESOLVED.with(|r| r.replace(Some(HashMap::new())));
    let outer_listed = LISTED.with(|l| l.replace(Some(HashMap::new())));
    let value = f();
    RESOLVED.with(|r| r.replace(outer));
    LISTED.with(|l| l.replace(outer_listed));
    value
}

/// The names in folder `dir`, in the order the system lists them (`std::fs::read_dir`'s,
/// entries that cannot be read left out): listed once per folder within [`one_pass`], so the
/// texture, skin and tree look-ups of a load share one listing.
pub fn list_dir(dir: &Path) -> std::io::Result<Names> {
    if let Some(names) = LISTED.with(|l| Some(l.borrow().as_ref()?.get(dir)?.clone())) {
        return Ok(Names::Kept(names, 0));
    }
    let memo = LISTED.with(|l| l.borrow().is_some());
    if !memo {
        return Ok(Names::Live(std::fs::read_dir(dir)?));
    }
    let names: Vec<OsString> = (std::fs::read_dir(dir)?)
        .filter_map(|e| Some(e.ok()?.file_name()))
        .take(MAX_LISTED + 1)
        .collect();
    if names.len() > MAX_LISTED {
        return Ok(Names::Live(std::fs::read_dir(dir)?));
    }
    let names: Rc<[OsString]> = names.into();
    LISTED.with(|l| {
        if let Some(map) = l.borrow_mut().as_mut() {
            map.insert(dir.to_path_buf(), names.clone());
        }
    });
    Ok(Names::Kept(names, 0))
}

/// The names of a folder, from [`list_dir`].
pub enum Names {
    /// A listing kept for the job, and the next index.
    Kept(Rc<[OsString]>, usize),
    /// A folder read as it is iterated.
    Live(std::fs::ReadDir),
}

impl Iterator for Names {
    type Item = OsString;

    fn next(&mut self) -> Option<OsString> {
        match self {
            Names::Kept(names, at) => {
                let name = names.get(*at)?.clone();
                *at += 1;
                Some(name)
            }
            Names::Live(read) => read.find_map(|e| Some(e.ok()?.file_name())),
        }
    }
}

/// `dir` with every `..` and symbolic link resolved (`Path::canonicalize`), once per folder
/// within [`one_pass`].
pub fn canonical_dir(dir: &Path) -> std::io::Result<PathBuf> {
    let known = RESOLVED.with(|r| Some(r.borrow().as_ref()?.get(dir)?.clone()));
    if let Some(known) = known {
        return known.map_err(|e| match e {
            Ok(code) => std::io::Error::from_raw_os_error(code),
            Err(kind) => kind.into(),
        });
    }
    let real = dir.canonicalize();
    RESOLVED.with(|r| {
        if let Some(map) = r.borrow_mut().as_mut() {
            let kept = match &real {
                Ok(p) => Ok(p.clone()),
                Err(e) => Err(e.raw_os_error().ok_or(e.kind())),
            };
            map.insert(dir.to_path_buf(), kept);
        }
    });
    real
}

/// `file` with every `..` and symbolic link resolved, as `Path::canonicalize` gives it: its
/// folder through [`canonical_dir`], then its own name, followed when it is a link.
pub fn canonical_file(file: &Path) -> std::io::Result<PathBuf> {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return file.canonicalize();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let real = canonical_dir(dir)?.join(name);
    // One question about the name itself: a link is followed (wherever it leads), a missing
    // file is the same error as canonicalizing it gives.
    match std::fs::read_link(&real) {
        Ok(_) => file.canonicalize(),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Ok(real),
        Err(e) => Err(e),
    }
}

/// `dirs` with each folder kept once, at its first place: the model's folder named again
/// with `--search-path` is searched (and listed in a warning) once.
pub fn distinct(dirs: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for d in dirs {
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// The folders a load may read files from: the model's own and every folder the user named,
/// each with symlinks resolved.
#[derive(Clone, Debug)]
pub struct Folders {
    roots: Vec<PathBuf>,
}

impl Folders {
    /// The folders a load of a model in folder `dir` (see [`model_dir`]) with `opts` may read.
    pub fn new(dir: &Path, opts: &LoadOptions) -> Folders {
        let named = std::iter::once(dir)
            .chain(opts.search_paths.iter().map(PathBuf::as_path))
            .chain(opts.texture_dirs.iter().map(PathBuf::as_path))
            .chain(opts.palette_dir.as_deref());
        Folders {
            roots: named.filter_map(|d| canonical_dir(d).ok()).collect(),
        }
    }

    /// Allows one more folder (an asset tree's root found above the model).
    pub fn allow(&mut self, dir: &Path) {
        if let Ok(d) = canonical_dir(dir) {
            if !self.roots.contains(&d) {
                self.roots.push(d);
            }
        }
    }

    /// `Ok` when `file`, with every `..` and symlink resolved, lies inside one of the folders;
    /// else why not, in words naming where it leads.
    pub fn check(&self, file: &Path) -> std::result::Result<(), String> {
        let real = canonical_file(file).map_err(|e| format!("cannot open it: {e}"))?;
        if self.roots.iter().any(|r| real.starts_with(r)) {
            Ok(())
        } else {
            Err(format!(
                "leads outside the model's folder (to {}); a model reads only files beside it: \
                 add --search-path DIR to allow another folder",
                real.display()
            ))
        }
    }

    /// [`read_capped`] of `file` after [`Folders::check`]; a refusal is a `format` error in
    /// `file`.
    pub fn read(&self, file: &Path, format: &'static str, max: u64) -> Result<Vec<u8>> {
        self.check(file)
            .map_err(|m| LoadError::new(format, 0, ErrorKind::Io(m)).in_file(file))?;
        read_capped(file, format, max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_named_twice_is_searched_once_at_its_first_place() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            distinct([p("m"), p("a"), p("m"), p("b"), p("a")]),
            [p("m"), p("a"), p("b")]
        );
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("psxr-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    #[cfg(unix)]
    fn resolving_once_per_job_answers_as_canonicalize_does() {
        use std::os::unix::fs::symlink;
        let d = scratch("memo");
        std::fs::create_dir_all(d.join("real/sub")).unwrap();
        std::fs::write(d.join("real/a.bin"), b"x").unwrap();
        std::fs::write(d.join("secret"), b"x").unwrap();
        symlink(d.join("real"), d.join("link")).unwrap();
        symlink(d.join("real/a.bin"), d.join("real/l.bin")).unwrap();
        symlink(d.join("secret"), d.join("real/out.bin")).unwrap();
        let paths = [
            "link/a.bin",
            "link/l.bin",
            "link/sub/../a.bin",
            "link/missing.bin",
            "missing/a.bin",
            "real/a.bin",
            "real/a.bin/x",
            "link/sub/..",
        ];
        let check = || {
            for p in paths.map(|p| d.join(p)) {
                let want = p.canonicalize().map_err(|e| e.to_string());
                // Twice: the second answer comes from what the first kept.
                for _ in 0..2 {
                    let got = canonical_file(&p).map_err(|e| e.to_string());
                    assert_eq!(got, want, "{}", p.display());
                }
            }
        };
        check();
        one_pass(check);
        one_pass(|| {
            let folders = Folders::new(&d.join("link"), &LoadOptions::default());
            assert!(folders.check(&d.join("link/a.bin")).is_ok());
            assert!(folders.check(&d.join("link/l.bin")).is_ok());
            assert!(folders.check(&d.join("link/out.bin")).is_err());
        });
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_folder_is_listed_once_per_job() {
        let d = scratch("listing");
        std::fs::write(d.join("a"), b"x").unwrap();
        let names = || {
            let mut n: Vec<OsString> = list_dir(&d).unwrap().collect();
            n.sort();
            n
        };
        one_pass(|| {
            assert_eq!(names(), ["a"]);
            std::fs::write(d.join("b"), b"x").unwrap();
            assert_eq!(names(), ["a"], "the job's listing is kept");
        });
        assert_eq!(names(), ["a", "b"], "outside a job, listed afresh");
        assert!(list_dir(&d.join("missing")).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn bare_file_name_lives_in_the_current_folder() {
        assert_eq!(model_dir(Path::new("c_aribeth.mdl")), Path::new("."));
        assert_eq!(model_dir(Path::new("./a.mdl")), Path::new("."));
        assert_eq!(model_dir(Path::new("d/a.mdl")), Path::new("d"));
    }

    #[test]
    fn symlinks_and_dotdot_out_of_the_folder_are_refused() {
        let d = scratch("confine");
        let m = d.join("m");
        std::fs::create_dir_all(&m).unwrap();
        std::fs::write(d.join("secret"), b"x").unwrap();
        std::fs::write(m.join("ok.bin"), b"x").unwrap();
        std::os::unix::fs::symlink(d.join("secret"), m.join("link.bin")).unwrap();
        let folders = Folders::new(&m, &LoadOptions::default());
        assert!(folders.check(&m.join("ok.bin")).is_ok());
        assert!(folders.check(&m.join("../m/ok.bin")).is_ok());
        let e = folders.check(&m.join("../secret")).unwrap_err();
        assert!(e.contains("outside the model's folder"), "{e}");
        assert!(folders.check(&m.join("link.bin")).is_err());
        let allowed = LoadOptions {
            search_paths: vec![d.clone()],
            ..LoadOptions::default()
        };
        let folders = Folders::new(&m, &allowed);
        assert!(folders.check(&m.join("../secret")).is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
