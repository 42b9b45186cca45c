//! Batch reports: one entry per job with its status, outputs, hashes, time, warnings and
//! error; written whole at the end of a run, and a journal (`REPORT.partial`, one JSON entry a
//! line, appended as each job finishes) meanwhile, so a killed batch leaves a record to resume
//! from.
//!
//! Resume rule ([`Entry::still_valid`]): a job is skipped when its last entry says it finished,
//! every output it recorded is there with the bytes it recorded, and its inputs hash as then:
//! the psxrender version, the job's render options, and the contents of every file the loader
//! read for it (model, supermodels, textures, palettes, external buffers).

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::hash;

/// Largest report or journal read, bytes.
pub const MAX_BYTES: u64 = 1 << 30;

/// How a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Rendered and written.
    Ok,
    /// Rendering or writing failed; see `error`.
    Failed,
    /// Not run: `--resume` found its outputs up to date.
    Skipped,
}

/// The hashes that make a job resumable.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hashes {
    /// Of the version, the options and every input file.
    pub inputs: Option<String>,
    /// Of each output, in the order of `outputs`.
    pub outputs: Vec<String>,
}

/// One job's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The manifest line.
    pub line: usize,
    /// The model file (relative to the manifest's folder).
    pub model: String,
    /// The job's key: its main output, normalized.
    pub key: String,
    /// How it ended.
    pub status: Status,
    /// Every file written (relative to the manifest's folder); none when the job failed.
    pub outputs: Vec<String>,
    /// Hashes of inputs and outputs.
    pub hashes: Hashes,
    /// The files the loader read.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// Frames rendered.
    #[serde(default)]
    pub frames: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Warnings the loader or renderer gave.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<String>,
}

/// A whole report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The psxrender version that wrote it.
    pub psxrender: String,
    /// The manifest (or manifests, merged).
    pub manifest: String,
    /// `I/N` when this is one shard's report.
    #[serde(default)]
    pub shard: Option<String>,
    /// Every job of the run, in manifest order.
    pub jobs: Vec<Entry>,
}

/// The hash of a job's inputs: version, options (as render arguments) and the contents of
/// the files read (paths relative to `base`). A file that cannot be read counts as changed.
pub fn input_hash(
    version: &str,
    options: &[String],
    base: &Path,
    inputs: &[String],
) -> Option<String> {
    let mut h = hash::Hasher::default();
    h.field(version);
    for o in options {
        h.field(o);
    }
    h.field("--inputs--");
    for i in inputs {
        h.field(i);
        h.field(&hash::file(&base.join(i)).ok()?);
    }
    Some(h.hex())
}

impl Entry {
    /// Whether this finished job need not run again: `inputs_now` (its [`input_hash`] now)
    /// equals the recorded one and every output is there, unchanged.
    pub fn still_valid(&self, base: &Path, inputs_now: Option<&str>) -> bool {
        if self.status == Status::Failed
            || self.hashes.inputs.is_none()
            || self.hashes.inputs.as_deref() != inputs_now
            || self.hashes.outputs.len() != self.outputs.len()
        {
            return false;
        }
        self.outputs
            .iter()
            .zip(&self.hashes.outputs)
            .all(|(o, h)| hash::file(&base.join(o)).is_ok_and(|now| &now == h))
    }
}

/// Reads a report.
pub fn read(path: &Path) -> Result<Report, String> {
    let bytes = read_capped(path)?;
    serde_json::from_slice(&bytes).map_err(|e| {
        format!(
            "{}: not a batch report (line {}, column {}): {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })
}

fn read_capped(path: &Path) -> Result<Vec<u8>, String> {
    let len = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .len();
    if len > MAX_BYTES {
        return Err(format!(
            "{}: {len} bytes, at most {MAX_BYTES}",
            path.display()
        ));
    }
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Writes `report` to `path` whole (temporary file + rename).
pub fn write(path: &Path, report: &Report) -> io::Result<()> {
    let json = serde_json::to_vec_pretty(report).map_err(io::Error::other)?;
    crate::output::write_atomic(path, &json)
}

/// The journal kept beside `report` while a batch runs.
pub fn journal_path(report: &Path) -> PathBuf {
    let mut name = report.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    report.with_file_name(name)
}

/// An open journal: entries appended one a line as jobs finish.
pub struct Journal(std::fs::File);

impl Journal {
    /// Opens `path` for appending (created if missing).
    pub fn open(path: &Path) -> io::Result<Journal> {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map(Journal)
    }

    /// Appends one entry as a single write, so a killed batch leaves whole lines (at worst a
    /// torn last one, which reading skips).
    pub fn append(&mut self, entry: &Entry) -> io::Result<()> {
        let mut line = serde_json::to_vec(entry).map_err(io::Error::other)?;
        line.push(b'\n');
        self.0.write_all(&line)
    }
}

/// The entries of a journal; lines that do not parse (a torn last write) are skipped.
pub fn read_journal(path: &Path) -> Result<Vec<Entry>, String> {
    let bytes = read_capped(path)?;
    Ok(bytes
        .lines()
        .map_while(Result::ok)
        .filter_map(|l| serde_json::from_str(&l).ok())
        .collect())
}

/// The last recorded entry of each job (by key) in a previous report and its journal, either
/// of which may be missing.
pub fn previous(report: &Path) -> Result<HashMap<String, Entry>, String> {
    let mut by_key = HashMap::new();
    if report.exists() {
        for e in read(report)?.jobs {
            by_key.insert(e.key.clone(), e);
        }
    }
    let journal = journal_path(report);
    if journal.exists() {
        for e in read_journal(&journal)? {
            by_key.insert(e.key.clone(), e);
        }
    }
    Ok(by_key)
}

/// Shard reports merged into one, jobs in manifest order. Two reports holding the same job
/// (overlapping shards, or one shard's report given twice) is an error naming both.
pub fn merge(reports: &[(PathBuf, Report)]) -> Result<Report, String> {
    let mut seen: HashMap<&str, &Path> = HashMap::new();
    let mut jobs = Vec::new();
    let mut manifests: Vec<&str> = Vec::new();
    for (path, r) in reports {
        if !manifests.contains(&r.manifest.as_str()) {
            manifests.push(&r.manifest);
        }
        for j in &r.jobs {
            if let Some(first) = seen.insert(j.key.as_str(), path.as_path()) {
                return Err(format!(
                    "job {} (line {}) is in both {} and {}",
                    j.key,
                    j.line,
                    first.display(),
                    path.display()
                ));
            }
            jobs.push(j.clone());
        }
    }
    jobs.sort_by(|a, b| (a.line, &a.key).cmp(&(b.line, &b.key)));
    Ok(Report {
        psxrender: env!("CARGO_PKG_VERSION").to_string(),
        manifest: manifests.join(", "),
        shard: None,
        jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str, line: usize, status: Status) -> Entry {
        Entry {
            line,
            model: "m.glb".into(),
            key: key.into(),
            status,
            outputs: vec![key.into()],
            hashes: Hashes::default(),
            inputs: vec!["m.glb".into()],
            frames: 1,
            seconds: 0.5,
            warnings: vec![],
            error: None,
        }
    }

    fn report(jobs: Vec<Entry>) -> Report {
        Report {
            psxrender: "0".into(),
            manifest: "jobs.jsonl".into(),
            shard: None,
            jobs,
        }
    }

    #[test]
    fn merge_orders_and_refuses_overlaps() {
        let a = (
            PathBuf::from("a.json"),
            report(vec![entry("x.png", 3, Status::Ok)]),
        );
        let b = (
            PathBuf::from("b.json"),
            report(vec![entry("y.png", 1, Status::Failed)]),
        );
        let m = merge(&[a.clone(), b]).unwrap();
        assert_eq!(m.jobs.iter().map(|j| j.line).collect::<Vec<_>>(), [1, 3]);
        let e = merge(&[a.clone(), a]).unwrap_err();
        assert!(e.contains("x.png") && e.contains("a.json"), "{e}");
    }

    #[test]
    fn journal_resume_and_validity() {
        let dir = std::env::temp_dir().join(format!("psxr-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("m.glb"), b"model").unwrap();
        std::fs::write(dir.join("x.png"), b"picture").unwrap();
        let opts = vec!["--frame=3".to_string()];
        let inputs = input_hash("1", &opts, &dir, &["m.glb".into()]);
        let mut e = entry("x.png", 1, Status::Ok);
        e.hashes = Hashes {
            inputs: inputs.clone(),
            outputs: vec![hash::file(&dir.join("x.png")).unwrap()],
        };
        assert!(e.still_valid(&dir, inputs.as_deref()));
        // Another option, another version, a changed input or output: run again.
        let other = input_hash("1", &["--frame=4".into()], &dir, &["m.glb".into()]);
        assert!(!e.still_valid(&dir, other.as_deref()));
        assert_ne!(input_hash("2", &opts, &dir, &["m.glb".into()]), inputs);
        std::fs::write(dir.join("m.glb"), b"model2").unwrap();
        assert_ne!(input_hash("1", &opts, &dir, &["m.glb".into()]), inputs);
        std::fs::write(dir.join("x.png"), b"other").unwrap();
        assert!(!e.still_valid(&dir, inputs.as_deref()));

        let rp = dir.join("r.json");
        let mut j = Journal::open(&journal_path(&rp)).unwrap();
        j.append(&e).unwrap();
        j.append(&entry("y.png", 2, Status::Failed)).unwrap();
        // A torn last line is skipped.
        std::fs::OpenOptions::new()
            .append(true)
            .open(journal_path(&rp))
            .unwrap()
            .write_all(b"{\"line\": 3, \"mo")
            .unwrap();
        write(&rp, &report(vec![entry("z.png", 5, Status::Ok)])).unwrap();
        let prev = previous(&rp).unwrap();
        assert_eq!(prev.len(), 3);
        assert_eq!(prev["x.png"], e);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
