//! `psxrender info FILE`: what a model file holds.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;

use super::model_args::ModelArgs;

/// Describe a model file: structure, textures, animations.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The model file (format detected from its content).
    pub file: PathBuf,
    #[command(flatten)]
    pub model: ModelArgs,
}

pub fn run(args: Args) -> ExitCode {
    match psxrender::formats::load(&args.file, &args.model.load_options()) {
        Ok(model) => {
            print!("{}", model.info());
            for w in model.warnings() {
                eprintln!("warning: {w}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
