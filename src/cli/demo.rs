//! `psxrender demo [OUT.png]`: renders the model built into the binary, so a fresh clone can try
//! the renderer without any game file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args as ClapArgs;

use psxrender::render::synthetic::Robot;

use super::render::{render_model, RenderArgs};

/// Render the built-in synthetic, textured, animated character.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Output PNG.
    #[arg(value_name = "OUT.png", default_value = "demo.png")]
    pub out: PathBuf,
    #[command(flatten)]
    pub render: RenderArgs,
}

pub fn run(args: Args) -> ExitCode {
    let model = Robot::default();
    render_model(&model, Path::new("<demo>"), &args.out, &args.render)
}
