//! Running the `psxrender` binary from integration tests (shared by the replay/compare tests).
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `psxrender ARGS…`; returns the exit code and stdout followed by stderr. Fails the test
/// if the process panicked.
pub fn psxrender<I, S>(args: I) -> (Option<i32>, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let o = Command::new(env!("CARGO_BIN_EXE_psxrender"))
        .args(args)
        .output()
        .unwrap();
    let t = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!t.contains("panicked"), "{t}");
    (o.status.code(), t)
}

/// `target/tmp/<group>/<name>`, the directory created.
pub fn tmp(group: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(group);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
