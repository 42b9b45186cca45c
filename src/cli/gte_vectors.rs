//! `psxrender gte-vectors FILE...`: replays GTE hardware vector files.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;

/// Check the emulated GTE against hardware vector files (hwtests FORMAT.md §2).
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Vector files (`case`/`in`/`set`/`cmd`/`out`/`expect`/`end`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Prints every mismatching register of every failing case, a count line per file, and a
/// closing `N passed, N failed`. Exit 1 when a case fails, 2 when a file cannot be read.
pub fn run(args: Args) -> ExitCode {
    let (mut passed, mut failed, mut unreadable) = (0, 0, false);
    for file in &args.files {
        match psxrender::hwtest::gte_vectors::run_file(file) {
            Ok(report) => {
                out!("{}", report.failures());
                outln!(
                    "{}: {} passed, {} failed",
                    file.display(),
                    report.passed(),
                    report.failed()
                );
                passed += report.passed();
                failed += report.failed();
            }
            Err(e) => {
                eprintln!("error: {e}");
                unreadable = true;
            }
        }
    }
    outln!("{passed} passed, {failed} failed");
    if unreadable {
        ExitCode::from(2)
    } else if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
