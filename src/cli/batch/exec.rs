//! Running a batch's jobs: a few child processes at a time (`psxrender batch-job`, each in the
//! manifest's folder), their messages captured into the report, each finished job appended to
//! the journal at once, and progress shown as a bar on a terminal or one line per job
//! otherwise.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use psxrender::batch::hash;
use psxrender::batch::report::{input_hash, Entry, Hashes, Journal, Kept, Previous, Status};

use super::child::READS_TAG;
use super::plan::Job;

/// Most bytes of a job's messages kept (the rest is read and dropped).
const MAX_MESSAGES: usize = 256 << 10;

/// How jobs are run.
pub(super) struct Runner {
    /// The psxrender binary (this one).
    pub exe: PathBuf,
    /// The manifest's folder: jobs run there, paths are relative to it.
    pub base: PathBuf,
    /// The texture cache given to every job whose manifest line names none.
    pub cache: Option<PathBuf>,
    /// Jobs at once.
    pub workers: usize,
    /// `--threads` given to a job whose manifest line does not set it.
    pub threads_per_job: usize,
    /// With `--resume`: the last record of every job.
    pub previous: Previous,
}

/// The version that goes into every input hash.
pub(super) const VERSION: &str = env!("CARGO_PKG_VERSION");

impl Runner {
    /// Runs `jobs`, appending each finished one to `journal`; where each record is, in `jobs`
    /// order (records are dropped once in the journal: the parent's memory holds the plan, not
    /// the results).
    pub fn run(&self, jobs: &[&Job], journal: &mut Journal) -> Vec<Kept> {
        let next = AtomicUsize::new(0);
        let mut done: Vec<Option<Kept>> = (0..jobs.len()).map(|_| None).collect();
        let mut progress = Progress::new(jobs);
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|s| {
            for _ in 0..self.workers.max(1) {
                let tx = tx.clone();
                let next = &next;
                s.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    if tx.send((i, self.job(job))).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            for (i, entry) in rx {
                progress.finished(&entry);
                done[i] = Some(match journal.append(&entry) {
                    Ok(at) => Kept::Journal(at),
                    Err(e) => {
                        progress.note(&format!("warning: cannot append to the journal: {e}"));
                        Kept::Held(Box::new(entry))
                    }
                });
            }
        });
        progress.close();
        done.into_iter().flatten().collect()
    }

    /// One job: skipped when its previous record still holds, else rendered.
    fn job(&self, job: &Job) -> Entry {
        if let Some(prev) = self.previous.get(&job.key) {
            let now = input_hash(VERSION, &job.identity(), &self.base, &prev.inputs);
            if prev.outputs == job.outputs && prev.still_valid(&self.base, now.as_deref()) {
                return Entry {
                    line: job.line,
                    model: job.model.clone(),
                    status: Status::Skipped,
                    seconds: 0.0,
                    ..prev
                };
            }
        }
        let start = Instant::now();
        let mut entry = Entry {
            line: job.line,
            model: job.model.clone(),
            key: job.key.clone(),
            status: Status::Failed,
            outputs: job.outputs.clone(),
            hashes: Hashes::default(),
            inputs: Vec::new(),
            frames: job.frames,
            seconds: 0.0,
            warnings: Vec::new(),
            error: None,
        };
        match self.render(job, &mut entry) {
            Ok(()) => entry.status = Status::Ok,
            Err(e) => {
                // Whatever a failed job left is not its output.
                entry.outputs.clear();
                entry.error = Some(e);
            }
        }
        entry.seconds = start.elapsed().as_secs_f64();
        entry
    }

    /// Runs the child for `job`, filling `entry`'s messages, inputs and hashes.
    fn render(&self, job: &Job, entry: &mut Entry) -> Result<(), String> {
        for o in &job.outputs {
            if let Some(dir) = self.base.join(o).parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
        }
        let mut cmd = Command::new(&self.exe);
        cmd.arg("batch-job").args(&job.options);
        if !job.sets_threads {
            cmd.arg(format!("--threads={}", self.threads_per_job));
        }
        let own_cache = job.options.iter().any(|o| o.starts_with("--cache"));
        if let Some(dir) = self.cache.as_ref().filter(|_| !own_cache) {
            cmd.arg("--cache").arg(dir);
        }
        cmd.args(["--", job.model.as_str(), job.out.as_str()])
            .current_dir(&self.base)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.exe.display()))?;
        // Held open until the child is done: its end of file tells the child we are gone.
        let stdin = child.stdin.take();
        let err_pipe = child.stderr.take();
        let errors = std::thread::spawn(move || err_pipe.map(read_capped).unwrap_or_default());
        let stdout = child.stdout.take().map(read_capped).unwrap_or_default();
        let status = child
            .wait()
            .map_err(|e| format!("lost the job's process: {e}"));
        drop(stdin);
        let stderr = errors.join().unwrap_or_default();
        let mut errors = Vec::new();
        for l in stderr.lines() {
            if let Some(w) = l.strip_prefix("warning: ") {
                entry.warnings.push(w.to_string());
            } else if let Some(e) = l.strip_prefix("error: ") {
                errors.push(e.to_string());
            }
        }
        let status = status?;
        if !status.success() {
            if errors.is_empty() {
                // No message of ours: say how it ended, with a panic's message if there is one.
                errors.push(exit_description(status));
                errors.extend(
                    stderr
                        .lines()
                        .skip_while(|l| !l.contains("panicked at"))
                        .take(3)
                        .map(str::to_string),
                );
            }
            return Err(errors.join("; "));
        }
        entry.inputs = stdout
            .lines()
            .filter_map(|l| l.strip_prefix(READS_TAG))
            .filter_map(|l| serde_json::from_str::<Vec<String>>(l).ok())
            .next_back()
            .ok_or("the job did not list the files it read")?;
        let mut outputs = Vec::with_capacity(job.outputs.len());
        for o in &job.outputs {
            let h =
                hash::file(&self.base.join(o)).map_err(|e| format!("{o} was not written: {e}"))?;
            outputs.push(h);
        }
        entry.hashes = Hashes {
            inputs: input_hash(VERSION, &job.identity(), &self.base, &entry.inputs),
            outputs,
        };
        Ok(())
    }
}

fn read_capped(mut r: impl Read) -> String {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    while let Ok(n) = r.read(&mut buf) {
        if n == 0 {
            break;
        }
        let room = MAX_MESSAGES.saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

fn exit_description(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("the job's process was killed by signal {sig}");
        }
    }
    match status.code() {
        Some(c) => format!("the job's process exited with code {c}"),
        None => "the job's process ended abnormally".into(),
    }
}

/// Progress: a bar (jobs done, frames/s, ETA) on a terminal, else a line per finished job.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    jobs: usize,
    done: usize,
    failed: usize,
}

impl Progress {
    fn new(jobs: &[&Job]) -> Progress {
        let frames: u64 = jobs.iter().map(|j| j.frames).sum();
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(frames);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{bar:30} {msg}, {pos}/{len} frames, {per_sec}, ETA {eta}",
            ) {
                bar.set_style(style);
            }
            bar.set_message(format!("jobs 0/{}", jobs.len()));
            bar
        });
        Progress {
            bar,
            jobs: jobs.len(),
            done: 0,
            failed: 0,
        }
    }

    fn note(&self, line: &str) {
        match &self.bar {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }

    fn finished(&mut self, e: &Entry) {
        self.done += 1;
        let status = match e.status {
            Status::Ok => "ok",
            Status::Skipped => "skipped",
            Status::Failed => {
                self.failed += 1;
                "failed"
            }
        };
        let error = e
            .error
            .as_deref()
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        let line = format!(
            "[{}/{}] {status} line {} {} ({} frames, {:.1} s){error}",
            self.done, self.jobs, e.line, e.key, e.frames, e.seconds
        );
        match &self.bar {
            Some(bar) => {
                if e.status == Status::Skipped {
                    bar.set_length(bar.length().unwrap_or(0).saturating_sub(e.frames));
                } else {
                    bar.inc(e.frames);
                }
                let failed = match self.failed {
                    0 => String::new(),
                    n => format!(" ({n} failed)"),
                };
                bar.set_message(format!("jobs {}/{}{failed}", self.done, self.jobs));
                if e.status == Status::Failed {
                    bar.println(line);
                }
            }
            None => eprintln!("{line}"),
        }
    }

    fn close(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
