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
    run(Command::new(env!("CARGO_BIN_EXE_psxrender")).args(args))
}

/// Runs `cmd`; returns the exit code and stdout followed by stderr. Fails the test if the
/// process panicked.
pub fn run(cmd: &mut Command) -> (Option<i32>, String) {
    let o = cmd.output().unwrap();
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

/// An empty directory `target/tmp/<group>/<name>` holding the FF9 demo character as `demo.ff9`.
pub fn demo_dir(group: &str, name: &str) -> PathBuf {
    let dir = tmp(group, name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("demo.ff9"),
        psxrender::formats::ff9::demo_character(),
    )
    .unwrap();
    dir
}

/// `lines` written as the batch manifest `dir/jobs.jsonl`, one JSON object a line.
pub fn write_manifest(dir: &Path, lines: &[serde_json::Value]) -> PathBuf {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let p = dir.join("jobs.jsonl");
    std::fs::write(&p, text).unwrap();
    p
}
