//! Command-line parsing and dispatch. Each subcommand lives in its own module with its `Args`
//! and a `run` returning the process exit code; with no subcommand, the arguments are the
//! default render command's (`psxrender MODEL [OUT.png] ...`).
//!
//! Exit codes: 0 success; 1 a check failed (conformance/compare mismatches); 2 bad input or
//! usage; 3 an output file could not be written.
//!
//! Standard output goes through [`stdout`]'s `outln!`/`out!`, never `println!`, so a closed
//! pipe ends the output quietly instead of panicking.
#![deny(clippy::print_stdout)]

#[macro_use]
mod stdout;

mod batch;
mod compare;
mod conformance;
mod demo;
mod effect_args;
mod gte_vectors;
mod info;
mod model_args;
mod precheck;
mod render;
mod replay;
mod replay_frames;
mod serve;
mod texture;
mod view;

use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit code: bad input or usage.
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code: an output file could not be written.
pub const EXIT_WRITE_FAILED: u8 = 3;

/// Warnings printed at most, the rest counted: a hostile file (60,000 texture slots naming
/// missing files) must not bury the terminal, and the first ones say what is wrong.
pub const MAX_WARNINGS_SHOWN: usize = 100;

/// Prints `warnings` as `warning: …` lines, at most [`MAX_WARNINGS_SHOWN`], then how many
/// more there were (`info --json` lists them all).
pub fn print_warnings<S: std::fmt::Display>(warnings: impl IntoIterator<Item = S>) {
    let mut more = 0usize;
    for (i, w) in warnings.into_iter().enumerate() {
        if i < MAX_WARNINGS_SHOWN {
            eprintln!("warning: {w}");
        } else {
            more += 1;
        }
    }
    if more > 0 {
        eprintln!("warning: … and {more} more warnings, not shown");
    }
}

/// Reports a failed write; the exit code for it.
pub fn write_failed(path: &Path, e: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: cannot write {}: {e}", path.display());
    ExitCode::from(EXIT_WRITE_FAILED)
}

/// Renders 3D models exactly as PlayStation 1 hardware would draw them.
///
/// With no subcommand: `psxrender MODEL [OUT.png] [options]` renders MODEL.
///
/// Exit codes: 0 success; 1 a check failed; 2 bad input or usage; 3 an output file could not be
/// written.
#[derive(Parser, Debug)]
#[command(
    name = "psxrender",
    version,
    about,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    render: render::Args,
}

#[derive(Subcommand, Debug)]
enum Command {
    Info(info::Args),
    Texture(texture::Args),
    /// Render the built-in demo model (no game files needed).
    Demo(demo::Args),
    /// Check the emulated GTE against hardware vector files; prints every wrong register.
    GteVectors(gte_vectors::Args),
    /// Replay a GPU text stream or GPUDUMP from power-on; save VRAM and the displayed picture.
    Replay(replay::Args),
    /// Run GPU probe files against the emulated GPU; closes with `N passed, N failed`.
    Conformance(conformance::Args),
    /// Compare two captures (PNG or raw VRAM) in 15-bit space; exit 0 equal, 1 different.
    Compare(compare::Args),
    // The help is view::Args's own: its second paragraph lists the keys.
    View(view::Args),
    Batch(batch::Args),
    Serve(serve::Args),
    /// One job of a batch, run by `psxrender serve` as a child process.
    #[command(hide = true)]
    BatchJob(render::Args),
    /// Job after job of a batch, run by `psxrender batch` as a child process.
    #[command(hide = true)]
    BatchWorker(batch::child::WorkerArgs),
}

/// The render command's arguments of a batch job, parsed as `psxrender batch-job WORDS`'s are.
pub(crate) fn parse_batch_job(
    words: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<render::Args, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    use std::cell::RefCell;
    thread_local! {
        // Built once per thread, not per job: building the whole command (every subcommand's
        // arguments) costs more than parsing a job's words with it.
        static COMMAND: RefCell<clap::Command> = RefCell::new(Cli::command());
    }
    let head = ["psxrender", "batch-job"].map(std::ffi::OsString::from);
    let cli = COMMAND.with(|c| {
        let mut c = c.borrow_mut();
        let mut matches = c.try_get_matches_from_mut(head.into_iter().chain(words))?;
        Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut c))
    })?;
    match cli.command {
        Some(Command::BatchJob(a)) => Ok(a),
        _ => Err(<Cli as clap::CommandFactory>::command()
            .error(clap::error::ErrorKind::InvalidSubcommand, "not a batch job")),
    }
}

pub fn main() -> ExitCode {
    if std::env::args_os().len() <= 1 {
        eprintln!(
            "{}",
            precheck::no_arguments(&<Cli as clap::CommandFactory>::command())
        );
        return ExitCode::from(EXIT_BAD_INPUT);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(EXIT_BAD_INPUT)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let code = match (cli.command, cli.render) {
        (Some(Command::Info(a)), _) => info::run(a),
        (Some(Command::Texture(a)), _) => texture::run(a),
        (Some(Command::Demo(a)), _) => demo::run(a),
        (Some(Command::GteVectors(a)), _) => gte_vectors::run(a),
        (Some(Command::Replay(a)), _) => replay::run(a),
        (Some(Command::Compare(a)), _) => compare::run(a),
        (Some(Command::View(a)), _) => view::run(a),
        (Some(Command::Conformance(a)), _) => conformance::run(a),
        (Some(Command::Batch(a)), _) => batch::run(a),
        (Some(Command::BatchJob(a)), _) => batch::child::run(a),
        (Some(Command::BatchWorker(a)), _) => batch::child::serve(a),
        (Some(Command::Serve(a)), _) => serve::run(a),
        (None, a) => psxrender::formats::files::one_pass(|| render::run(a)),
    };
    // Every output of the command made durable at once before it exits (a batch worker's are
    // its batch's to sync: it hands them over after each job).
    match psxrender::output::sync_written() {
        Ok(()) => code,
        Err(e) => {
            eprintln!("error: cannot sync the outputs to disk: {e}");
            ExitCode::from(EXIT_WRITE_FAILED)
        }
    }
}
