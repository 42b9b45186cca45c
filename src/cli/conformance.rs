//! `psxrender conformance FILE...`: runs hwtests probe files through the emulated GPU.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;

use psxrender::hwtest::conformance::{run_file, Report};

/// Run GPU probe files (hwtests/gpu-probes format): per-file pass counts, every mismatch,
/// `todo` probes counted apart, and a closing `N passed, N failed` line. Exit 1 if any `hw`
/// probe failed, 2 if a file could not be read.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Probe files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Rasteriser threads (0 = all cores for heavy batches, 1 = serial, N = N for every batch).
    #[arg(long, default_value_t = 0, value_parser = super::precheck::parse_threads)]
    pub threads: usize,
}

pub fn run(args: Args) -> ExitCode {
    let mut total = Report::default();
    let mut unreadable = false;
    for f in &args.files {
        match run_file(f, args.threads) {
            Ok(r) => {
                for m in &r.mismatches {
                    outln!("mismatch {m}");
                }
                outln!(
                    "{}: {} passed, {} failed; todo {} passed, {} failed",
                    f.display(),
                    r.passed,
                    r.failed,
                    r.todo_passed,
                    r.todo_failed
                );
                total.merge(r);
            }
            Err(e) => {
                eprintln!("error: {e}");
                unreadable = true;
            }
        }
    }
    if total.todo_passed + total.todo_failed > 0 {
        outln!(
            "todo (unconfirmed on hardware): {} passed, {} failed",
            total.todo_passed,
            total.todo_failed
        );
    }
    outln!("{} passed, {} failed", total.passed, total.failed);
    if unreadable {
        ExitCode::from(2)
    } else if total.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
