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

use std::path::{Path, PathBuf};

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
            roots: named.filter_map(|d| d.canonicalize().ok()).collect(),
        }
    }

    /// Allows one more folder (an asset tree's root found above the model).
    pub fn allow(&mut self, dir: &Path) {
        if let Ok(d) = dir.canonicalize() {
            if !self.roots.contains(&d) {
                self.roots.push(d);
            }
        }
    }

    /// `Ok` when `file`, with every `..` and symlink resolved, lies inside one of the folders;
    /// else why not, in words naming where it leads.
    pub fn check(&self, file: &Path) -> std::result::Result<(), String> {
        let real = file
            .canonicalize()
            .map_err(|e| format!("cannot open it: {e}"))?;
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
