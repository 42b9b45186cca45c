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
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::hash;

/// Largest report or journal read, bytes (counted while reading).
pub const MAX_BYTES: u64 = 1 << 30;
/// Most input files one job's record may list: a model with its supermodels and textures is
/// far below; a record listing more is not trusted to skip anything.
pub const MAX_INPUTS: usize = 4096;

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
    /// The hash of the manifest's bytes, so that shard reports of different manifests are
    /// never merged.
    #[serde(default)]
    pub manifest_hash: Option<String>,
    /// Every job of the run, in manifest order.
    pub jobs: Vec<Entry>,
}

/// The hash of a job's inputs: version, options (as render arguments) and the contents of
/// the files read (paths relative to `base`). A file that cannot be read, is not a regular
/// file (`/dev/zero` never ends), or a list of more than [`MAX_INPUTS`] counts as changed.
pub fn input_hash(
    version: &str,
    options: &[String],
    base: &Path,
    inputs: &[String],
) -> Option<String> {
    if inputs.len() > MAX_INPUTS
        || inputs
            .iter()
            .any(|i| crate::output::plan::not_regular(&base.join(i)).is_some())
    {
        return None;
    }
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

/// Reads a report, parsed as it is read (never whole in memory) through a cap of
/// [`MAX_BYTES`] counted while reading.
pub fn read(path: &Path) -> Result<Report, String> {
    let mut r = open_capped(path)?;
    let parsed: Result<Report, _> = serde_json::from_reader(&mut r);
    if r.get_ref().limit() == 0 {
        return Err(too_big(path));
    }
    parsed.map_err(|e| {
        format!(
            "{}: not a batch report (line {}, column {}): {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })
}

fn too_big(path: &Path) -> String {
    format!(
        "{}: more than {MAX_BYTES} bytes, the most a report may hold",
        path.display()
    )
}

/// `path` opened for reading through a cap one byte past [`MAX_BYTES`] (reaching it means
/// too big); a folder, device or FIFO is refused before it is opened.
fn open_capped(path: &Path) -> Result<io::BufReader<io::Take<std::fs::File>>, String> {
    if let Some(kind) = crate::output::plan::not_regular(path) {
        return Err(format!("{} is {kind}, not a report", path.display()));
    }
    let f =
        std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(io::BufReader::new(io::Read::take(f, MAX_BYTES + 1)))
}

/// Writes `report` to `path` whole (temporary file + rename).
pub fn write(path: &Path, report: &Report) -> io::Result<()> {
    let json = serde_json::to_vec_pretty(report).map_err(io::Error::other)?;
    crate::output::write_atomic(path, &json)
}

/// Writes a report to `path` whole (temporary file + rename), in the form [`write()`] gives
/// it, its jobs taken one at a time from `jobs` (never all in memory): `head` gives the rest
/// (its own `jobs` are not written). An `Err` from `jobs` abandons the write.
pub fn write_streamed(
    path: &Path,
    head: &Report,
    jobs: impl Iterator<Item = Result<Entry, String>>,
) -> io::Result<()> {
    /// [`Report`]'s fields in its order, the jobs a stream.
    #[derive(Serialize)]
    #[serde(bound(serialize = "Jobs<I>: Serialize"))]
    struct Streamed<'a, I> {
        psxrender: &'a str,
        manifest: &'a str,
        shard: &'a Option<String>,
        manifest_hash: &'a Option<String>,
        jobs: Jobs<I>,
    }
    /// The jobs, serialized as they come (serialized once).
    struct Jobs<I>(std::cell::RefCell<Option<I>>);
    impl<I: Iterator<Item = Result<Entry, String>>> Serialize for Jobs<I> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::{Error, SerializeSeq};
            let Some(jobs) = self.0.borrow_mut().take() else {
                return Err(S::Error::custom("the jobs were already written"));
            };
            let mut seq = s.serialize_seq(None)?;
            for j in jobs {
                seq.serialize_element(&j.map_err(S::Error::custom)?)?;
            }
            seq.end()
        }
    }
    let streamed = Streamed {
        psxrender: &head.psxrender,
        manifest: &head.manifest,
        shard: &head.shard,
        manifest_hash: &head.manifest_hash,
        jobs: Jobs(std::cell::RefCell::new(Some(jobs))),
    };
    let mut f = crate::output::AtomicFile::create(path)?;
    serde_json::to_writer_pretty(&mut f, &streamed).map_err(io::Error::other)?;
    f.commit()
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
    /// torn last one, which reading skips); returns the byte where its line starts.
    pub fn append(&mut self, entry: &Entry) -> io::Result<u64> {
        let mut line = serde_json::to_vec(entry).map_err(io::Error::other)?;
        line.push(b'\n');
        // The end of the file, not a count of our writes: a torn write before moves it too.
        let at = self.0.metadata()?.len();
        self.0.write_all(&line)?;
        Ok(at)
    }
}

/// Where a running batch keeps a finished job's record: its journal line (so the parent holds
/// a few bytes a job, not the record), or the record itself when the journal refused it.
#[derive(Debug)]
pub enum Kept {
    /// The journal line starting at this byte.
    Journal(u64),
    /// The record, which could not be appended.
    Held(Box<Entry>),
}

impl Kept {
    /// The record, read back from `journal` if it went there.
    pub fn entry(&self, journal: &Path) -> Result<Entry, String> {
        match self {
            Kept::Held(e) => Ok((**e).clone()),
            Kept::Journal(at) => journal_entry(journal, *at).ok_or_else(|| {
                format!(
                    "cannot read back the job record at byte {at} of {}",
                    journal.display()
                )
            }),
        }
    }
}

/// Most bytes of one journal line: an entry is a few kilobytes; a longer line is not one.
const MAX_LINE: u64 = 16 << 20;

/// What a previous run recorded, for `--resume`: the report's entries, and for the journal
/// (often the bigger, a line per job) only where each job's last line starts: it is read again
/// when the job comes up, so memory holds keys, not records.
#[derive(Debug, Default)]
pub struct Previous {
    report: HashMap<String, Entry>,
    journal: HashMap<String, u64>,
    journal_path: Option<PathBuf>,
}

impl Previous {
    /// The last record of the job keyed `key`, if any.
    pub fn get(&self, key: &str) -> Option<Entry> {
        if let (Some(&at), Some(path)) = (self.journal.get(key), &self.journal_path) {
            return journal_entry(path, at);
        }
        self.report.get(key).cloned()
    }

    /// How many jobs have a record.
    pub fn len(&self) -> usize {
        let only_journal = self
            .journal
            .keys()
            .filter(|k| !self.report.contains_key(*k));
        self.report.len() + only_journal.count()
    }

    /// Whether no job has a record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The entry on the journal line starting at byte `at`.
fn journal_entry(path: &Path, at: u64) -> Option<Entry> {
    use std::io::{Seek, SeekFrom};
    let mut f = std::fs::File::open(path).ok()?;
    f.seek(SeekFrom::Start(at)).ok()?;
    let mut line = Vec::new();
    io::BufReader::new(io::Read::take(f, MAX_LINE))
        .read_until(b'\n', &mut line)
        .ok()?;
    serde_json::from_slice(&line).ok()
}

/// Where each job's last journal line starts, the journal read as a stream; lines that do
/// not parse (a torn last write) are skipped.
fn index_journal(path: &Path) -> Result<HashMap<String, u64>, String> {
    /// Just the key of an entry.
    #[derive(Deserialize)]
    struct Key {
        key: String,
    }
    let mut r = open_capped(path)?;
    let mut index = HashMap::new();
    let mut line = Vec::new();
    let mut at = 0u64;
    loop {
        line.clear();
        let n = (&mut r)
            .take(MAX_LINE)
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        if let Ok(k) = serde_json::from_slice::<Key>(&line) {
            index.insert(k.key, at);
        }
        at += n as u64;
    }
    if r.get_ref().limit() == 0 {
        return Err(too_big(path));
    }
    Ok(index)
}

/// The entries of a journal, in order; lines that do not parse are skipped.
pub fn read_journal(path: &Path) -> Result<Vec<Entry>, String> {
    let mut r = open_capped(path)?;
    let mut entries = Vec::new();
    let mut line = Vec::new();
    while (&mut r)
        .take(MAX_LINE)
        .read_until(b'\n', &mut line)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        > 0
    {
        entries.extend(serde_json::from_slice::<Entry>(&line).ok());
        line.clear();
    }
    Ok(entries)
}

/// The last recorded entry of each job (by key) in a previous report and its journal, either
/// of which may be missing.
pub fn previous(report: &Path) -> Result<Previous, String> {
    let mut prev = Previous::default();
    if report.exists() {
        for e in read(report)?.jobs {
            prev.report.insert(e.key.clone(), e);
        }
    }
    let journal = journal_path(report);
    if journal.exists() {
        prev.journal = index_journal(&journal)?;
        prev.journal_path = Some(journal);
    }
    Ok(prev)
}

/// Why shard reports cannot be merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeError {
    /// Two reports hold the same job (overlapping shards, or one report given twice).
    Overlap(String),
    /// The reports are of different manifests, shard counts, or lack what shows which.
    Mismatch(String),
    /// Shards of the split are not among the reports.
    Missing(String),
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            MergeError::Overlap(m) | MergeError::Mismatch(m) | MergeError::Missing(m) => {
                f.write_str(m)
            }
        }
    }
}

/// Shard reports merged into one, jobs in manifest order. Every report must be of one
/// manifest (by its recorded hash) and one split into N shards, and every shard 0 to N-1 must
/// be there exactly once; two reports holding the same job is an error naming both.
pub fn merge(reports: &[(PathBuf, Report)]) -> Result<Report, MergeError> {
    check_shards(reports)?;
    let mut seen: HashMap<&str, &Path> = HashMap::new();
    let mut jobs = Vec::new();
    for (path, r) in reports {
        for j in &r.jobs {
            if let Some(first) = seen.insert(j.key.as_str(), path.as_path()) {
                return Err(MergeError::Overlap(format!(
                    "job {} (line {}) is in both {} and {}",
                    j.key,
                    j.line,
                    first.display(),
                    path.display()
                )));
            }
            jobs.push(j.clone());
        }
    }
    jobs.sort_by(|a, b| (a.line, &a.key).cmp(&(b.line, &b.key)));
    let first = &reports[0].1;
    Ok(Report {
        psxrender: env!("CARGO_PKG_VERSION").to_string(),
        manifest: first.manifest.clone(),
        shard: None,
        manifest_hash: first.manifest_hash.clone(),
        jobs,
    })
}

/// Checks that the reports are of one manifest and one split, every shard there once.
fn check_shards(reports: &[(PathBuf, Report)]) -> Result<(), MergeError> {
    let Some((first_path, first)) = reports.first() else {
        return Err(MergeError::Mismatch("no reports to merge".into()));
    };
    let shard_of = |p: &Path, r: &Report| -> Result<crate::batch::shard::Shard, MergeError> {
        match &r.shard {
            None => Ok(crate::batch::shard::Shard::ALL),
            Some(s) => s
                .parse()
                .map_err(|e| MergeError::Mismatch(format!("{}: shard {s:?}: {e}", p.display()))),
        }
    };
    let count = shard_of(first_path, first)?.count;
    let mut given: Vec<Option<&Path>> = vec![None; count as usize];
    for (path, r) in reports {
        if r.manifest_hash.is_none() || r.manifest_hash != first.manifest_hash {
            return Err(MergeError::Mismatch(format!(
                "{} is a report of another manifest than {} ({} and {}, hashes {} and {}):                  only shards of one manifest merge",
                path.display(),
                first_path.display(),
                r.manifest,
                first.manifest,
                r.manifest_hash.as_deref().unwrap_or("not recorded"),
                first.manifest_hash.as_deref().unwrap_or("not recorded"),
            )));
        }
        let s = shard_of(path, r)?;
        if s.count != count {
            return Err(MergeError::Mismatch(format!(
                "{} is shard {s} but {} is of {count} shards: only one split merges",
                path.display(),
                first_path.display()
            )));
        }
        if let Some(twice) = given[s.index as usize].replace(path) {
            return Err(MergeError::Overlap(format!(
                "{} and {} are both shard {s}",
                twice.display(),
                path.display()
            )));
        }
    }
    let missing: Vec<String> = (given.iter().enumerate())
        .filter(|(_, g)| g.is_none())
        .map(|(i, _)| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing(format!(
            "shard{} {} of {} missing: give every shard's report (or merge when they are done)",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", "),
            first.manifest
        )));
    }
    Ok(())
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
            manifest_hash: Some("1234".into()),
            jobs,
        }
    }

    fn shard(s: &str, jobs: Vec<Entry>) -> (PathBuf, Report) {
        let mut r = report(jobs);
        r.shard = Some(s.into());
        (PathBuf::from(format!("r{}.json", &s[..1])), r)
    }

    #[test]
    fn merge_orders_and_refuses_overlaps() {
        let a = shard("0/2", vec![entry("x.png", 3, Status::Ok)]);
        let b = shard("1/2", vec![entry("y.png", 1, Status::Failed)]);
        let m = merge(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(m.jobs.iter().map(|j| j.line).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(m.manifest_hash.as_deref(), Some("1234"));
        let e = merge(&[a.clone(), a.clone()]).unwrap_err().to_string();
        assert!(e.contains("r0.json") && e.contains("both shard 0/2"), "{e}");
        // A missing shard, another manifest, another split: refused, naming them.
        let e = merge(std::slice::from_ref(&a)).unwrap_err();
        assert!(matches!(e, MergeError::Missing(_)), "{e:?}");
        assert!(
            e.to_string().contains("shard 1/2 of jobs.jsonl missing"),
            "{e}"
        );
        let mut other = b.clone();
        other.1.manifest_hash = Some("5678".into());
        let e = merge(&[a.clone(), other]).unwrap_err().to_string();
        assert!(
            e.contains("r1.json is a report of another manifest than r0.json"),
            "{e}"
        );
        let e = merge(&[a, shard("1/3", vec![])]).unwrap_err().to_string();
        assert!(e.contains("only one split merges"), "{e}");
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
        assert_eq!(prev.get("x.png"), Some(e));
        assert_eq!(prev.get("z.png").map(|e| e.line), Some(5));
        assert_eq!(prev.get("w.png"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn streamed_report_is_the_whole_one_and_records_come_back_from_the_journal() {
        let dir = std::env::temp_dir().join(format!("psxr-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let jp = dir.join("r.json.partial");
        let mut j = Journal::open(&jp).unwrap();
        let (a, mut b) = (
            entry("a.png", 1, Status::Ok),
            entry("b.png", 2, Status::Failed),
        );
        b.error = Some("bad model".into());
        // Finished in another order than the manifest's; one record never reached the journal.
        let kept = [
            Kept::Held(Box::new(a.clone())),
            Kept::Journal(j.append(&b).unwrap()),
        ];
        assert_eq!(kept[1].entry(&jp), Ok(b.clone()));
        assert!(Kept::Journal(3).entry(&jp).is_err());
        // What a running batch keeps per finished job, whatever its record holds.
        assert!(std::mem::size_of::<Option<Kept>>() <= 16);
        let whole = report(vec![a, b]);
        let (w, s) = (dir.join("whole.json"), dir.join("streamed.json"));
        write(&w, &whole).unwrap();
        let head = report(Vec::new());
        write_streamed(&s, &head, kept.iter().map(|k| k.entry(&jp))).unwrap();
        assert_eq!(std::fs::read(&w).unwrap(), std::fs::read(&s).unwrap());
        assert_eq!(read(&s).unwrap(), whole);
        // A record that cannot be read back leaves the previous report as it was.
        let broken = [Ok(entry("c.png", 3, Status::Ok)), Err("gone".to_string())];
        assert!(write_streamed(&s, &head, broken.into_iter()).is_err());
        assert_eq!(read(&s).unwrap(), whole);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
