//! Reading the files a model names, safely: only regular files, never more than a cap, and only
//! inside the folders the load may read.
//!
//! Rules and reasons:
//! - A model's folder is the directory part of its path, and `.` for a bare file name
//!   ([`model_dir`]): `c_aribeth.mdl` finds its supermodel beside it just as `./c_aribeth.mdl`.
//! - Only regular files are read ([`read_capped`]): a FIFO would block forever and a device
//!   (`/dev/zero`) never ends, while both report a size of 0. The type is checked before opening
//!   and again on the open file, and the read stops one byte past the cap whatever the size said.
//! - A file a model names (a glTF URI, a supermodel or texture found beside it, possibly through a
//!   symlink) must lie, once every `..` and symlink is resolved, inside the model's folder or a
//!   folder the user named (`--search-path`, `--texture-dir`, `--palette-dir`) ([`Folders`]): a
//!   model file names data beside it, not elsewhere on the machine. Paths the user gives directly
//!   (`--texture 11=…`, `--tim`) are the user's choice and only go through [`read_capped`].

use std::io::Read;
use std::path::{Path, PathBuf};

use super::error::{ErrorKind, LoadError, Result};
use super::LoadOptions;

/// The folder a model's neighbours are looked up in: the directory part of `model`, `.` for a
/// bare file name.
pub fn model_dir(model: &Path) -> &Path {
    match model.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// What kind of non-regular file `t` is, in words.
fn file_type_words(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Reads the whole of `path` (of `format`, for messages), refusing anything but a regular file
/// and any file larger than `max` bytes before reading it.
pub fn read_capped(path: &Path, format: &'static str, max: u64) -> Result<Vec<u8>> {
    super::note_read(path);
    let io = |e: std::io::Error| LoadError::io(format, path, &e);
    let not_regular = |t: std::fs::FileType| {
        LoadError::new(
            format,
            0,
            ErrorKind::Io(format!(
                "{}, not a regular file; only files are read",
                file_type_words(t)
            )),
        )
        .in_file(path)
    };
    let too_large = |size: u64| {
        LoadError::new(
            format,
            0,
            ErrorKind::CountTooLarge {
                what: "file size",
                count: size,
                max,
            },
        )
        .in_file(path)
    };
    // Checked before opening: opening a FIFO for reading waits for a writer.
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    if meta.len() > max {
        return Err(too_large(meta.len()));
    }
    let file = std::fs::File::open(path).map_err(io)?;
    // The path may have been replaced in between: the open file is what is read.
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let mut bytes = Vec::with_capacity(meta.len().min(max) as usize);
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
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
    fn devices_and_oversized_files_are_refused_before_reading() {
        let e = read_capped(Path::new("/dev/zero"), "texture", 1 << 20).unwrap_err();
        assert!(
            e.to_string().contains("a device, not a regular file"),
            "{e}"
        );
        let e = read_capped(Path::new("/"), "texture", 1 << 20).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
        let d = scratch("cap");
        std::fs::write(d.join("a"), [1u8; 100]).unwrap();
        assert_eq!(read_capped(&d.join("a"), "x", 100).unwrap().len(), 100);
        let e = read_capped(&d.join("a"), "x", 99).unwrap_err();
        assert!(matches!(
            e.kind,
            ErrorKind::CountTooLarge { count: 100, .. }
        ));
        std::fs::remove_dir_all(&d).unwrap();
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
