//! The children of `psxrender batch`, run in the manifest's folder.
//!
//! `psxrender batch-worker` (hidden) takes job after job over a pipe, so a batch of many small
//! jobs starts a process per worker, not per job. Each job is the render command (same
//! arguments, same messages, same files written) run in the worker's main thread, its messages
//! closed by a line the batch gives, so the report still holds each job's own warnings, errors
//! and files read. A worker ends when its standard input ends: the batch is done with it or
//! gone, and it stops rather than render for nobody, even in the middle of a job.
//!
//! `psxrender batch-job` (hidden) is one job in a process of its own, for `psxrender serve`:
//! the render command's arguments, the same end with its parent, and the files read listed
//! last on standard output.

use std::ffi::OsString;
use std::io::{BufRead, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;

use clap::Args as ClapArgs;

use crate::cli::render;

/// Marks the line listing the files read.
pub(super) const READS_TAG: &str = "psxrender-batch-reads: ";

/// Longest job line a worker reads (bytes): a job's arguments, never near it.
const MAX_JOB_LINE: u64 = 1 << 20;

/// Runs one job of a batch: the render command's `args`.
pub fn run(args: render::Args) -> ExitCode {
    std::thread::spawn(|| {
        let mut stdin = std::io::stdin();
        let mut buf = [0u8; 64];
        while let Ok(n) = stdin.read(&mut buf) {
            if n == 0 {
                break;
            }
        }
        parent_gone()
    });
    let (code, reads) = render_recorded(args);
    outln!("{READS_TAG}{reads}");
    code
}

/// The batch that started this child is gone (or done with it): stop at once.
fn parent_gone() -> ! {
    std::process::exit(i32::from(crate::cli::EXIT_BAD_INPUT))
}

/// Renders `args`; the exit code and the files the loader read, as a JSON array.
fn render_recorded(args: render::Args) -> (ExitCode, String) {
    let (code, reads) = psxrender::formats::record_reads(|| {
        psxrender::formats::files::one_pass(|| render::run(args))
    });
    let reads: Vec<String> = reads
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    (code, serde_json::to_string(&reads).unwrap_or_default())
}

/// `psxrender batch-worker`: renders the jobs read from standard input, one JSON array of
/// render-command arguments a line.
#[derive(ClapArgs, Debug)]
pub struct WorkerArgs {
    /// Ends each job's output: on standard output `TAG CODE` (the job's exit code) after the
    /// line of files read, on standard error `TAG`.
    #[arg(long, value_name = "TAG")]
    pub tag: String,
    /// The texture cache of every job whose arguments name none.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
}

/// Runs the jobs of a worker until its standard input ends.
pub fn serve(worker: WorkerArgs) -> ExitCode {
    // Read on a thread of its own, always waiting for the next line, so that the end of input
    // stops a job in progress too. The batch sends a line only once the last job is done.
    let (tx, jobs) = mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        loop {
            let mut line = Vec::new();
            match (&mut stdin).take(MAX_JOB_LINE).read_until(b'\n', &mut line) {
                Ok(n) if n > 0 && line.ends_with(b"\n") => {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
                _ => break,
            }
        }
        parent_gone()
    });
    for line in jobs {
        let code = match job_args(&line, &worker) {
            Ok(args) => {
                let (code, reads) = render_recorded(args);
                // The batch makes the job's outputs durable before its report names them.
                psxrender::output::take_written();
                outln!("{READS_TAG}{reads}");
                code
            }
            Err(message) => {
                eprint!("{message}");
                ExitCode::from(crate::cli::EXIT_BAD_INPUT)
            }
        };
        outln!("{} {}", worker.tag, exit_number(code));
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", worker.tag);
        let _ = err.flush();
    }
    ExitCode::SUCCESS
}

/// The render command's arguments in a job line, with the worker's cache unless they name one;
/// else the message saying why not, as `batch-job` would print it.
fn job_args(line: &[u8], worker: &WorkerArgs) -> Result<render::Args, String> {
    let words: Vec<String> = serde_json::from_slice(line)
        .map_err(|e| format!("error: a bad job line from the batch: {e}\n"))?;
    let words = words.into_iter().map(OsString::from);
    let mut args = crate::cli::parse_batch_job(words).map_err(|e| e.render().to_string())?;
    if args.render.cache.is_none() {
        args.render.cache.clone_from(&worker.cache);
    }
    Ok(args)
}

/// The number an exit code stands for (a `std::process::ExitCode` does not tell it).
fn exit_number(code: ExitCode) -> u8 {
    (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .unwrap_or(1)
}
