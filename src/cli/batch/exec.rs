//! Running a batch's jobs: a few at a time, each worker thread handing job after job to a child
//! process of its own (`psxrender batch-worker`, in the manifest's folder), their messages
//! captured into the report, each finished job appended to the journal at once, and progress
//! shown as a bar on a terminal or one line per job otherwise.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use psxrender::batch::hash;
use psxrender::batch::report::{input_hash, Entry, Hashes, Journal, Kept, Previous, Status};

use super::child::READS_TAG;
use super::plan::Job;
use super::worker::{End, Finished, Worker};

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
                s.spawn(move || {
                    // Started at its first job, ended (its input closed) when no job is left.
                    let mut worker = None;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break };
                        if tx.send((i, self.job(job, &mut worker))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            // Group commit: the jobs finished while the last group was being synced are synced
            // together, then journaled, so the journal never names an output a power cut could
            // still take, and a sync serves as many jobs as finish meanwhile.
            while let Ok(first) = rx.recv() {
                let mut group: Vec<(usize, Entry)> = vec![first];
                group.extend(rx.try_iter());
                self.make_durable(&mut group);
                for (i, entry) in group {
                    progress.finished(&entry);
                    done[i] = Some(match journal.append(&entry) {
                        Ok(at) => Kept::Journal(at),
                        Err(e) => {
                            progress.note(&format!("warning: cannot append to the journal: {e}"));
                            Kept::Held(Box::new(entry))
                        }
                    });
                }
            }
        });
        progress.close();
        done.into_iter().flatten().collect()
    }

    /// Syncs the outputs of the rendered jobs of `group` to disk (see `psxrender::output`); if
    /// that fails, those jobs failed, since their outputs may not survive a power cut.
    fn make_durable(&self, group: &mut [(usize, Entry)]) {
        let rendered = |e: &Entry| e.status == Status::Ok;
        let files: Vec<PathBuf> = (group.iter().map(|(_, e)| e))
            .filter(|e| rendered(e))
            .flat_map(|e| e.outputs.iter().map(|o| self.base.join(o)))
            .collect();
        if let Err(e) = psxrender::output::make_durable(&files) {
            for (_, entry) in group.iter_mut().filter(|(_, e)| rendered(e)) {
                entry.status = Status::Failed;
                entry.outputs.clear();
                entry.error = Some(format!("cannot sync its outputs to disk: {e}"));
            }
        }
    }

    /// One job: skipped when its previous record still holds, else rendered on `worker`.
    fn job(&self, job: &Job, worker: &mut Option<Worker>) -> Entry {
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
        match self.render(job, &mut entry, worker) {
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

    /// Has a worker render `job`, filling `entry`'s messages, inputs and hashes; `worker` is
    /// started when there is none and dropped when it dies.
    fn render(
        &self,
        job: &Job,
        entry: &mut Entry,
        worker: &mut Option<Worker>,
    ) -> Result<(), String> {
        for o in &job.outputs {
            if let Some(dir) = self.base.join(o).parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
        }
        let mut words = job.options.clone();
        if !job.sets_threads {
            words.push(format!("--threads={}", self.threads_per_job));
        }
        words.extend(["--".to_string(), job.model.clone(), job.out.clone()]);
        let done = self.hand_over(&words, worker)?;
        if !matches!(done.end, End::Code(_)) {
            *worker = None;
        }
        let mut errors = Vec::new();
        for l in done.stderr.lines() {
            if let Some(w) = l.strip_prefix("warning: ") {
                entry.warnings.push(w.to_string());
            } else if let Some(e) = l.strip_prefix("error: ") {
                errors.push(e.to_string());
            }
        }
        let ended = match done.end {
            End::Code(0) => None,
            End::Code(c) => Some(format!("the job's process exited with code {c}")),
            End::Died(status) => Some(exit_description(status)),
            End::Lost(e) => return Err(e),
        };
        if let Some(ended) = ended {
            if errors.is_empty() {
                // No message of ours: say how it ended, with a panic's message if there is one.
                errors.push(ended);
                errors.extend(
                    (done.stderr.lines())
                        .skip_while(|l| !l.contains("panicked at"))
                        .take(3)
                        .map(str::to_string),
                );
            }
            return Err(errors.join("; "));
        }
        entry.inputs = (done.stdout.lines())
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

    /// Runs `words` on `worker`, starting one when there is none, and once more on a new one
    /// when the old one had ended before it could take the job.
    fn hand_over(&self, words: &[String], worker: &mut Option<Worker>) -> Result<Finished, String> {
        let mut tries = 0;
        loop {
            let w = match worker {
                Some(w) => w,
                None => worker.insert(Worker::start(&self.exe, &self.base, self.cache.as_deref())?),
            };
            match w.run(words) {
                Ok(done) => return Ok(done),
                Err(e) => {
                    *worker = None;
                    tries += 1;
                    if tries == 2 {
                        return Err(e);
                    }
                }
            }
        }
    }
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
