//! The batch's side of a `psxrender batch-worker` child (see `child.rs`): start it, hand it a
//! job, read back what the job printed and how it ended. A worker that dies in a job fails only
//! that job, and the next job gets a new worker.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

/// Most bytes of a job's messages kept on each of its outputs (the rest is read and dropped).
pub(super) const MAX_MESSAGES: usize = 256 << 10;

/// A worker process and the pipes to it.
pub(super) struct Worker {
    child: Child,
    /// Its job lines; closed (dropped) to end it.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// Each job's standard error, split at the tag by a thread of its own.
    errors: mpsc::Receiver<String>,
    /// The line that ends each job's output.
    tag: String,
}

/// What a job printed and how it ended.
pub(super) struct Finished {
    pub stdout: String,
    pub stderr: String,
    pub end: End,
}

/// How a job ended.
pub(super) enum End {
    /// The render command's exit code.
    Code(u8),
    /// The worker's process ended during the job, so.
    Died(ExitStatus),
    /// The worker's process ended during the job and could not be waited for.
    Lost(String),
}

impl Worker {
    /// Starts `exe batch-worker` in `base`, giving `cache` to every job that names none.
    pub fn start(exe: &Path, base: &Path, cache: Option<&Path>) -> Result<Worker, String> {
        static WORKERS: AtomicU64 = AtomicU64::new(0);
        let n = WORKERS.fetch_add(1, Ordering::Relaxed);
        let tag = format!("psxrender-batch-done-{}-{n}", std::process::id());
        let mut cmd = Command::new(exe);
        cmd.args(["batch-worker", "--tag", &tag]);
        if let Some(dir) = cache {
            cmd.arg("--cache").arg(dir);
        }
        cmd.current_dir(base)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("cannot open pipes to a job's process".into());
        };
        let (tx, errors) = mpsc::channel();
        let end = tag.clone();
        std::thread::spawn(move || split_at_tag(stderr, &end, &tx));
        Ok(Worker {
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            errors,
            tag,
        })
    }

    /// Hands the worker the job `words` (the render command's arguments) and waits for its end;
    /// an error if the worker could not take it (it had ended: the job did not start).
    pub fn run(&mut self, words: &[String]) -> Result<Finished, String> {
        let mut line = serde_json::to_vec(words).map_err(|e| e.to_string())?;
        line.push(b'\n');
        let stdin = self.stdin.as_mut().ok_or("the worker is closed")?;
        stdin
            .write_all(&line)
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("the job's process is gone: {e}"))?;
        let mut stdout = Capped::default();
        let mut code = None;
        let mut line = Vec::new();
        while let Some(text) = next_line(&mut self.stdout, &mut line) {
            let rest = text.trim_end().strip_prefix(&self.tag);
            if let Some(c) = rest.and_then(|r| r.strip_prefix(' ')) {
                code = Some(c.parse().unwrap_or(1));
                break;
            }
            stdout.push(&text);
        }
        let end = match code {
            Some(c) => End::Code(c),
            None => match self.child.wait() {
                Ok(status) => End::Died(status),
                Err(e) => End::Lost(format!("lost the job's process: {e}")),
            },
        };
        Ok(Finished {
            stdout: stdout.0,
            stderr: self.errors.recv().unwrap_or_default(),
            end,
        })
    }
}

impl Drop for Worker {
    /// Closes the worker's input, which ends it, and waits for it.
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// Text kept up to [`MAX_MESSAGES`] bytes.
#[derive(Default)]
struct Capped(String);

impl Capped {
    fn push(&mut self, text: &str) {
        let room = MAX_MESSAGES.saturating_sub(self.0.len());
        let mut end = text.len().min(room);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.0.push_str(&text[..end]);
    }
}

/// The next line of `r` (at most [`MAX_MESSAGES`] bytes of it; the rest comes as further
/// lines), read into `buf`; `None` at its end.
fn next_line<'a>(r: &mut impl BufRead, buf: &'a mut Vec<u8>) -> Option<std::borrow::Cow<'a, str>> {
    buf.clear();
    match r.take(MAX_MESSAGES as u64).read_until(b'\n', buf) {
        Ok(n) if n > 0 => Some(String::from_utf8_lossy(buf)),
        _ => None,
    }
}

/// Sends what `r` gives up to each line that is `tag` (one job's messages), then the rest at
/// its end.
fn split_at_tag(r: impl Read, tag: &str, tx: &mpsc::Sender<String>) {
    let mut r = BufReader::new(r);
    let mut chunk = Capped::default();
    let mut line = Vec::new();
    while let Some(text) = next_line(&mut r, &mut line) {
        if text.trim_end() == tag {
            if tx.send(std::mem::take(&mut chunk.0)).is_err() {
                return;
            }
        } else {
            chunk.push(&text);
        }
    }
    let _ = tx.send(chunk.0);
}
