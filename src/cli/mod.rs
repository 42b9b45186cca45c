//! Command-line parsing and dispatch. Each subcommand lives in its own module with its `Args`
//! and a `run` returning the process exit code.
//!
//! Exit codes: 0 success; 1 a check failed (conformance/compare mismatches); 2 bad input or
//! usage; 3 an output file could not be written.

mod compare;
mod conformance;
mod info;
mod model_args;
mod replay;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Renders 3D models exactly as PlayStation 1 hardware would draw them.
#[derive(Parser, Debug)]
#[command(name = "psxrender", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    Info(info::Args),
    /// Replay a GPU text stream or GPUDUMP from power-on; save VRAM and the displayed picture.
    Replay(replay::Args),
    /// Compare two captures (PNG or raw VRAM) in 15-bit space; exit 0 equal, 1 different.
    Compare(compare::Args),
    /// Run GPU probe files against the emulated GPU.
    Conformance(conformance::Args),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Info(a) => info::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Conformance(a) => conformance::run(a),
    }
}
