//! Saves: PNG, GIF and sprite sheet written by the render command itself — the server runs
//! `psxrender batch-job` (the render command's arguments and files, ending when its parent
//! does) in a folder of the run's temporary space, so a save is the very file the command line
//! the page shows writes. One save runs at a time; its files are served for download until
//! the server stops.
//!
//! Progress: the render command reports nothing per frame to a pipe, so the page is told the
//! time gone and an estimate — frames × the time this server measured for one frame of the
//! model — and the true state (running, done, failed) as soon as it changes.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Jobs remembered (finished ones beyond this are forgotten, their files removed).
const MAX_JOBS: usize = 32;
/// Bytes of a job's messages read.
const MAX_MESSAGES: usize = 16 * 1024;
/// The file a job's messages (standard error) go to.
const MESSAGES: &str = "messages.txt";

/// What a save writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One frame as PNG.
    Png,
    /// `--frames A..B --gif`.
    Gif,
    /// `--frames A..B --sheet …` (PNG and its JSON index).
    Sheet,
}

/// The state of one save.
struct Job {
    id: u64,
    command: String,
    dir: PathBuf,
    files: Vec<String>,
    frames: u32,
    estimate: Duration,
    started: Instant,
    child: Option<Child>,
    state: State,
}

#[derive(Clone, Debug, PartialEq)]
enum State {
    Running,
    Done { seconds: f64 },
    Failed { message: String },
}

/// Every save of the run.
pub struct Jobs {
    root: PathBuf,
    exe: PathBuf,
    jobs: Mutex<Vec<Job>>,
    next: Mutex<u64>,
    busy: Arc<AtomicBool>,
}

/// A save to start.
pub struct Request<'a> {
    /// What to write.
    pub kind: Kind,
    /// The model's real path (the child reads it).
    pub model: &'a Path,
    /// Arguments after the model and output (checked values only).
    pub args: Vec<String>,
    /// The output's file name.
    pub out: String,
    /// The command line to show (the model as the user names it).
    pub command: String,
    /// Frames it renders.
    pub frames: u32,
    /// The measured time of one frame of this model.
    pub frame_time: Duration,
}

impl Jobs {
    /// Jobs writing below `root`, run with the binary `exe`.
    pub fn new(root: PathBuf, exe: PathBuf) -> Jobs {
        Jobs {
            root,
            exe,
            jobs: Mutex::new(Vec::new()),
            next: Mutex::new(1),
            busy: Arc::new(AtomicBool::new(false)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Job>> {
        self.jobs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts a save; `Err(None)` when one is running already (the caller answers 503).
    pub fn start(&self, r: Request) -> Result<u64, Option<String>> {
        for job in self.lock().iter_mut() {
            self.check(job);
        }
        if self.busy.swap(true, Ordering::SeqCst) {
            return Err(None);
        }
        let id = {
            let mut n = self.next.lock().unwrap_or_else(|p| p.into_inner());
            *n += 1;
            *n - 1
        };
        let dir = self.root.join(format!("save-{id}"));
        let spawned = std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot make {}: {e}", dir.display()))
            .and_then(|()| {
                // Messages to a file, not a pipe: a pipe nobody reads would stop a chatty child.
                let log = std::fs::File::create(dir.join(MESSAGES))
                    .map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
                Command::new(&self.exe)
                    .arg("batch-job")
                    .args(&r.args)
                    .arg("--")
                    .arg(r.model)
                    .arg(&r.out)
                    .current_dir(&dir)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(log)
                    .spawn()
                    .map_err(|e| format!("cannot start {}: {e}", self.exe.display()))
            });
        let child = match spawned {
            Ok(c) => c,
            Err(e) => {
                self.busy.store(false, Ordering::SeqCst);
                return Err(Some(e));
            }
        };
        let mut files = vec![r.out.clone()];
        if r.kind == Kind::Sheet {
            files.push(
                Path::new(&r.out)
                    .with_extension("json")
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        let mut jobs = self.lock();
        while jobs.len() >= MAX_JOBS {
            let old = jobs.remove(0);
            let _ = std::fs::remove_dir_all(&old.dir);
        }
        jobs.push(Job {
            id,
            command: r.command,
            dir,
            files,
            frames: r.frames,
            estimate: r.frame_time * r.frames,
            started: Instant::now(),
            child: Some(child),
            state: State::Running,
        });
        Ok(id)
    }

    /// Notes how `job`'s process ended, if it has.
    fn check(&self, job: &mut Job) {
        let Some(child) = &mut job.child else { return };
        let Ok(Some(status)) = child.try_wait() else {
            return;
        };
        let mut buf = Vec::new();
        if let Ok(f) = std::fs::File::open(job.dir.join(MESSAGES)) {
            use std::io::Read;
            let _ = f.take(MAX_MESSAGES as u64).read_to_end(&mut buf);
        }
        let messages = String::from_utf8_lossy(&buf);
        job.state = if status.success() {
            State::Done {
                seconds: job.started.elapsed().as_secs_f64(),
            }
        } else {
            let errors: Vec<&str> = messages
                .lines()
                .filter_map(|l| l.strip_prefix("error: "))
                .collect();
            State::Failed {
                message: if errors.is_empty() {
                    format!("the render command ended with {status}")
                } else {
                    errors.join("; ")
                },
            }
        };
        job.child = None;
        self.busy.store(false, Ordering::SeqCst);
    }

    /// The state of job `id`, checking on its process.
    pub fn status(&self, id: u64) -> Option<Value> {
        let mut jobs = self.lock();
        let job = jobs.iter_mut().find(|j| j.id == id)?;
        self.check(job);
        let elapsed = job.started.elapsed().as_secs_f64();
        let (state, estimate) = match &job.state {
            State::Running => {
                let est = job.estimate.as_secs_f64();
                (
                    "running",
                    if est > 0.0 {
                        (elapsed / est).min(0.99)
                    } else {
                        0.0
                    },
                )
            }
            State::Done { .. } => ("done", 1.0),
            State::Failed { .. } => ("failed", 1.0),
        };
        Some(json!({
            "id": job.id,
            "state": state,
            "command": job.command,
            "frames": job.frames,
            "elapsed_s": elapsed,
            "estimated_fraction": estimate,
            "seconds": match job.state { State::Done { seconds } => Some(seconds), _ => None },
            "error": match &job.state { State::Failed { message } => Some(message.clone()), _ => None },
            "files": if matches!(job.state, State::Done { .. }) { job.files.clone() } else { Vec::new() },
        }))
    }

    /// The path of file `name` of finished job `id` (only the files it was asked to write).
    pub fn file(&self, id: u64, name: &str) -> Option<PathBuf> {
        let jobs = self.lock();
        let job = jobs.iter().find(|j| j.id == id)?;
        let done = matches!(job.state, State::Done { .. });
        (done && job.files.iter().any(|f| f == name)).then(|| job.dir.join(name))
    }

    /// Ends every running save (their processes killed and waited for).
    pub fn stop_all(&self) {
        for job in self.lock().iter_mut() {
            if let Some(mut c) = job.child.take() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        self.stop_all();
    }
}
