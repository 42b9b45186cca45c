//! The run's temporary space: a folder of its own under the system's temporary directory
//! (owner-only on Unix), holding the files dropped onto the page (`uploads/BATCH/NAME`: a
//! model and its textures dropped together share a batch, so the model finds them) and the
//! saves (`saves/`). Removed when the server stops, also after a panic (on drop).
//!
//! Caps: [`MAX_FILE`] per file (the loaders' own cap), [`MAX_TOTAL`] and [`MAX_FILES`] per
//! run. An upload that passes a cap is refused and what it wrote removed.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Largest file one upload may be: what the loaders read at most.
pub const MAX_FILE: u64 = crate::read::MAX_FILE_SIZE;
/// Bytes all uploads of a run may take.
pub const MAX_TOTAL: u64 = 1 << 30;
/// Files all uploads of a run may make.
pub const MAX_FILES: usize = 1_000;

/// The run's temporary folder.
pub struct TempSpace {
    dir: PathBuf,
    used: Mutex<(u64, usize, u64)>,
}

impl TempSpace {
    /// Makes a new, empty folder for this run.
    pub fn create() -> std::io::Result<TempSpace> {
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = base.join(format!(
            "psxrender-serve-{}-{nanos:08x}",
            std::process::id()
        ));
        let mut b = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        // `create`, not `create_all`: the folder must be new (nobody else's).
        b.create(&dir)?;
        std::fs::create_dir(dir.join("uploads"))?;
        std::fs::create_dir(dir.join("saves"))?;
        Ok(TempSpace {
            dir,
            used: Mutex::new((0, 0, 0)),
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The upload root.
    pub fn uploads(&self) -> PathBuf {
        self.dir.join("uploads")
    }

    /// Where saves are written.
    pub fn saves(&self) -> PathBuf {
        self.dir.join("saves")
    }

    /// A new batch number.
    pub fn new_batch(&self) -> u64 {
        let mut u = self.used.lock().unwrap_or_else(|p| p.into_inner());
        u.2 += 1;
        u.2
    }

    /// Reserves `name` in batch `batch` for a file of (up to) `len` bytes: the path to write,
    /// or why not.
    pub fn reserve(&self, batch: u64, name: &str, len: u64) -> Result<PathBuf, String> {
        check_name(name)?;
        let mut u = self.used.lock().unwrap_or_else(|p| p.into_inner());
        if batch == 0 || batch > u.2 {
            return Err(format!("batch {batch} was not made by this server"));
        }
        if len > MAX_FILE {
            return Err(format!(
                "{name} is {len} bytes; uploads are at most {MAX_FILE}"
            ));
        }
        if u.0 + len > MAX_TOTAL || u.1 >= MAX_FILES {
            return Err(format!(
                "the uploads of this run would pass {MAX_TOTAL} bytes or {MAX_FILES} files"
            ));
        }
        let dir = self.uploads().join(batch.to_string());
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let path = dir.join(name);
        if path.exists() {
            return Err(format!("{name} is already in batch {batch}"));
        }
        u.0 += len;
        u.1 += 1;
        Ok(path)
    }

    /// Gives back what a reservation of `len` bytes did not use (a failed upload).
    pub fn release(&self, len: u64) {
        let mut u = self.used.lock().unwrap_or_else(|p| p.into_inner());
        u.0 = u.0.saturating_sub(len);
    }
}

impl Drop for TempSpace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A file name an upload may have: one plain name, no path.
pub fn check_name(name: &str) -> Result<(), String> {
    let bad = name.is_empty()
        || name.len() > 255
        || name == "."
        || name == ".."
        || name.starts_with('.')
        || name.contains(['/', '\\', '\0'])
        || name.chars().any(char::is_control);
    if bad {
        return Err(format!(
            "'{}' is not a plain file name",
            name.escape_debug()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_caps() {
        for bad in ["", ".", "..", "a/b", "..\\x", ".hidden", "a\0b", "a\nb"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        let t = TempSpace::create().unwrap();
        let dir = t.path().to_path_buf();
        assert!(t.reserve(1, "a.m2", 10).is_err(), "no batch yet");
        let b = t.new_batch();
        let p = t.reserve(b, "a.m2", 10).unwrap();
        assert!(p.starts_with(t.uploads()));
        assert!(t.reserve(b, "big.m2", MAX_FILE + 1).is_err());
        drop(t);
        assert!(!dir.exists(), "removed on drop");
    }
}
