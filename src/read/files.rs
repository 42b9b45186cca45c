//! Whole files read safely: only regular files, never more than a cap, and every read noted for
//! [`record_reads`].

use std::io::Read;
use std::path::{Path, PathBuf};

use super::error::{ErrorKind, LoadError, Result};

/// Largest model file read (bytes); anything bigger is refused before reading.
pub const MAX_FILE_SIZE: u64 = 256 << 20;

thread_local! {
    /// The files read on this thread while [`record_reads`] runs.
    static READS: std::cell::RefCell<Option<Vec<PathBuf>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` and lists every file the loaders read on this thread meanwhile (in first-read
/// order, each once): the inputs a batch job's output depends on. Loading is single-threaded,
/// and every loader read goes through [`read_file`] or [`note_read`].
pub fn record_reads<T>(f: impl FnOnce() -> T) -> (T, Vec<PathBuf>) {
    let outer = READS.with(|r| r.replace(Some(Vec::new())));
    let value = f();
    let reads = READS.with(|r| r.replace(outer)).unwrap_or_default();
    (value, reads)
}

/// Notes that `path` was read (for [`record_reads`]); loaders reading a file other than
/// through [`read_file`] call it.
pub fn note_read(path: &Path) {
    READS.with(|r| {
        if let Some(list) = r.borrow_mut().as_mut() {
            if !list.iter().any(|p| p == path) {
                list.push(path.to_path_buf());
            }
        }
    });
}

/// Reads a whole file, refusing anything but a regular file and files larger than
/// [`MAX_FILE_SIZE`] (see [`read_capped`]).
pub fn read_file(path: &Path, format: &'static str) -> Result<Vec<u8>, LoadError> {
    read_capped(path, format, MAX_FILE_SIZE)
}

/// What kind of non-regular file `t` is, in words ("a directory", "a device").
pub fn file_type_words(t: std::fs::FileType) -> &'static str {
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
    note_read(path);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_oversized_files_are_refused_before_reading() {
        let e = read_capped(Path::new("/dev/zero"), "texture", 1 << 20).unwrap_err();
        assert!(
            e.to_string().contains("a device, not a regular file"),
            "{e}"
        );
        let e = read_capped(Path::new("/"), "texture", 1 << 20).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
        let d = std::env::temp_dir().join(format!("psxr-read-cap-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("a"), [1u8; 100]).unwrap();
        assert_eq!(read_capped(&d.join("a"), "x", 100).unwrap().len(), 100);
        let e = read_capped(&d.join("a"), "x", 99).unwrap_err();
        assert!(matches!(
            e.kind,
            ErrorKind::CountTooLarge { count: 100, .. }
        ));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
