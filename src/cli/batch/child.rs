//! `psxrender batch-job` (hidden): one job of a batch, run by `psxrender batch` as a child
//! process in the manifest's folder. It is the render command (same arguments, same messages,
//! same files written) plus two duties: it ends when its parent does (its standard input is a
//! pipe from the batch; end of file means the batch is gone), and its last line of standard
//! output lists the files the loader read, the job's inputs for the report's hashes.

use std::io::Read;
use std::process::ExitCode;

use crate::cli::render;

/// Marks the line listing the files read.
pub(super) const READS_TAG: &str = "psxrender-batch-reads: ";

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
        // The batch that started this job is gone: stop rather than render for nobody.
        std::process::exit(i32::from(crate::cli::EXIT_BAD_INPUT));
    });
    let (code, reads) = psxrender::formats::record_reads(|| render::run(args));
    let reads: Vec<String> = reads
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    outln!(
        "{READS_TAG}{}",
        serde_json::to_string(&reads).unwrap_or_default()
    );
    code
}
