//! Writing output files whole or not at all: everything goes to a temporary file beside the
//! target and is renamed over it once complete, and only over a regular file (or nothing).
//! [`plan`] checks a run's outputs before it starts.
//!
//! Whole-or-nothing is the rename's; surviving a power cut is a sync's, which waits for the
//! disk (a journal commit, on a spinning disk a cache flush). So an output is renamed into
//! place unsynced and synced later, off the path of the work: a command syncs what it wrote
//! ([`sync_written`]) before it exits, and a batch syncs each finished group of jobs' outputs
//! ([`make_durable`]) in its own process, while its workers render on, before its journal or
//! report names them. (A sync of the whole filesystem would be one call, but would wait for
//! every other program's writes too.)

pub mod plan;

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically (temp file in the same directory + rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

/// A file written as a stream and published whole: the bytes go to a temporary file beside
/// the target, which [`AtomicFile::commit`] renames over it. Dropped uncommitted (an error part
/// way), the temporary file is removed and the target left as it was.
pub struct AtomicFile {
    target: PathBuf,
    tmp: PathBuf,
    file: Option<io::BufWriter<fs::File>>,
}

impl AtomicFile {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        let tmp = temp_path(path);
        let open = || {
            fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
        };
        // A file of this name is a leftover of a killed process that had our id: never opened
        // as it is (it could be a FIFO that blocks the open), but replaced.
        let file = match open() {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let _ = fs::remove_file(&tmp);
                open()?
            }
            opened => opened?,
        };
        Ok(AtomicFile {
            target: path.to_path_buf(),
            tmp,
            file: Some(io::BufWriter::new(file)),
        })
    }

    /// Flushes and renames the file into place; [`sync_written`] makes it durable.
    pub fn commit(mut self) -> io::Result<()> {
        let Some(w) = self.file.take() else {
            return Err(io::Error::other("already committed"));
        };
        let result = (|| {
            w.into_inner().map_err(|e| e.into_error())?;
            // Checked again at the last moment: a rename replaces a device, FIFO or socket by
            // a plain file, so something that became one since the run's check is left alone.
            if let Some(kind) = plan::not_regular(&self.target) {
                return Err(io::Error::other(format!(
                    "it is {kind}, not a regular file: not replaced"
                )));
            }
            fs::rename(&self.tmp, &self.target)
        })();
        match result {
            Ok(()) => {
                remove_stale(&self.target);
                if let Ok(mut list) = UNSYNCED.lock() {
                    list.push(self.target.clone());
                }
            }
            Err(_) => {
                let _ = fs::remove_file(&self.tmp);
            }
        }
        result
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// The files this process committed and has not made durable yet.
static UNSYNCED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Makes every file this process committed since the last call durable (see the module docs):
/// what a command does before it exits.
pub fn sync_written() -> io::Result<()> {
    make_durable(&take_written())
}

/// The files this process committed since the last call (or [`sync_written`]), forgotten: a
/// batch's worker hands them to the batch, which makes them durable.
pub fn take_written() -> Vec<PathBuf> {
    UNSYNCED
        .lock()
        .map(|mut l| std::mem::take(&mut *l))
        .unwrap_or_default()
}

/// Makes `files` (written and renamed into place) durable: each file synced, then each of
/// their folders, for the names the renames put there (where a folder can be opened: Unix).
pub fn make_durable(files: &[PathBuf]) -> io::Result<()> {
    let mut folders: Vec<&Path> = Vec::new();
    for f in files {
        fs::File::open(f)?.sync_all()?;
        let dir = match f.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !folders.contains(&dir) {
            folders.push(dir);
        }
    }
    #[cfg(unix)]
    for dir in folders {
        fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// Whether `path` can be written, found before any work by creating (and removing) the same
/// temporary file [`write_atomic`] would: its directory must exist and be writable, and `path`
/// must not be a directory.
pub fn check_writable(path: &Path) -> io::Result<()> {
    if path.is_dir() {
        return Err(io::Error::other("it is a directory"));
    }
    let tmp = temp_path(path);
    fs::File::create(&tmp)?;
    fs::remove_file(&tmp)
}

/// Removes, once per folder and process, the temporary files (`.NAME.PID.tmp`) that processes
/// no longer running left beside finished outputs (a batch killed part way): one whose NAME is
/// a file of the folder and whose PID is not running. Once per folder, so a folder of 10,000
/// frames is listed once, not once a frame.
fn remove_stale(target: &Path) {
    static SWEPT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match SWEPT.lock() {
        Ok(mut swept) if !swept.iter().any(|d| d == dir) => swept.push(dir.to_path_buf()),
        _ => return,
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let file = file.to_string_lossy();
        let stale = (file.strip_prefix('.'))
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|rest| rest.rsplit_once('.'))
            .and_then(|(name, pid)| Some((name, pid.parse::<u32>().ok()?)))
            .is_some_and(|(name, pid)| {
                pid != std::process::id() && !process_alive(pid) && dir.join(name).is_file()
            });
        if stale {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// Whether process `pid` runs (Linux: `/proc/PID`); elsewhere assumed to, so nothing another
/// process may still write is removed.
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
}

fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Encodes 8-bit RGB pixels as PNG and writes them atomically.
pub fn save_png_rgb(path: &Path, width: u32, height: u32, rgb: &[u8]) -> io::Result<()> {
    save_png(path, width, height, rgb, image::ExtendedColorType::Rgb8)
}

/// Encodes 8-bit RGBA pixels as PNG (with its alpha channel) and writes them atomically.
pub fn save_png_rgba(path: &Path, width: u32, height: u32, rgba: &[u8]) -> io::Result<()> {
    save_png(path, width, height, rgba, image::ExtendedColorType::Rgba8)
}

fn save_png(
    path: &Path,
    width: u32,
    height: u32,
    pixels: &[u8],
    colour: image::ExtendedColorType,
) -> io::Result<()> {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::ImageEncoder;
    // Encoded straight into the file: no second copy of the picture in memory. One fixed row
    // filter, Up (each row as its difference from the row above: PS1 pictures are flat fills,
    // gradients and a plain background), with the fast deflater: half the instructions of
    // trying every filter on every row, for about a tenth more bytes (docs/perf.md). The
    // pixels are the same whatever the filter; every PNG of psxrender goes through here.
    let mut file = AtomicFile::create(path)?;
    PngEncoder::new_with_quality(&mut file, CompressionType::Fast, FilterType::Up)
        .write_image(pixels, width, height, colour)
        .map_err(io::Error::other)?;
    file.commit()
}

/// 5-bit channels widened the way a TV-facing DAC would, `(c << 3) | (c >> 2)`, as the GPU's
/// picture read-out does. (ps1-tests' reference PNGs use plain `c << 3`; `compare` accepts both.)
pub use gpu::picture::{bgr555_to_rgb, expand5};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writability_is_checked_without_leaving_a_file() {
        let dir = std::env::temp_dir().join(format!("psxr-check-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        assert!(check_writable(&dir.join("a.png")).is_ok());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
        assert!(check_writable(&dir.join("missing/a.png")).is_err());
        assert!(check_writable(&dir).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn atomic_write_replaces_whole_file() {
        let dir = std::env::temp_dir().join(format!("psxr-out-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.bin");
        write_atomic(&p, b"hello").unwrap();
        write_atomic(&p, b"hi").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"hi");
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "no temp file left behind"
        );
        // A stream abandoned part way leaves the old file and no temp file.
        let mut f = AtomicFile::create(&p).unwrap();
        f.write_all(b"partial").unwrap();
        drop(f);
        assert_eq!(fs::read(&p).unwrap(), b"hi");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        let mut f = AtomicFile::create(&p).unwrap();
        f.write_all(b"streamed").unwrap();
        f.commit().unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"streamed");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn committed_files_are_kept_for_one_sync_together() {
        let dir = std::env::temp_dir().join(format!("psxr-sync-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.png"), dir.join("b.png"));
        write_atomic(&a, b"a").unwrap();
        write_atomic(&b, b"b").unwrap();
        // Other tests commit files too: only ours are looked for.
        let written = take_written();
        assert!(written.contains(&a) && written.contains(&b), "{written:?}");
        assert!(!take_written().contains(&a), "handed over once");
        make_durable(&[a.clone(), b.clone()]).unwrap();
        assert!(make_durable(&[dir.join("gone.png")]).is_err());
        write_atomic(&a, b"a2").unwrap();
        sync_written().unwrap();
        assert!(!take_written().contains(&a), "synced once");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn stale_temporary_files_are_removed_and_specials_never_replaced() {
        let dir = std::env::temp_dir().join(format!("psxr-stale-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.png");
        // Process ids above the kernel's maximum (4194304) never run. Only a leftover beside
        // a finished output goes: b.png is not there (yet).
        fs::write(dir.join(".a.png.99999999.tmp"), b"left by a killed batch").unwrap();
        fs::write(dir.join(".b.png.99999999.tmp"), b"another output's").unwrap();
        write_atomic(&p, b"new").unwrap();
        let mut left: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".b.png.99999999.tmp", "a.png"]);
        // A folder made where the output goes while it was written is left alone.
        let mut f = AtomicFile::create(&dir.join("d")).unwrap();
        f.write_all(b"x").unwrap();
        fs::create_dir(dir.join("d")).unwrap();
        let e = f.commit().unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        assert!(dir.join("d").is_dir());
        fs::remove_dir_all(&dir).unwrap();
    }
}
