//! `psxrender demo [OUT.png]`: renders a model built into the binary, so a fresh clone can try
//! the renderer without any game file: the project's FF9-format test character
//! (`formats::ff9::demo_character`), or with `--robot` the renderer's own synthetic robot.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args as ClapArgs;

use psxrender::formats::{ff9, LoadOptions};
use psxrender::render::synthetic::Robot;

use super::render::{render_model, RenderArgs};
use super::EXIT_BAD_INPUT;

/// Render the built-in synthetic, textured, animated character.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Output PNG (with --gif: the GIF) [default: demo.png, or demo.gif with --gif].
    #[arg(value_name = "OUT.png")]
    pub out: Option<PathBuf>,
    /// Render the renderer's own synthetic robot (lit, M2/NWN-style textures) instead.
    #[arg(long)]
    pub robot: bool,
    #[command(flatten)]
    pub render: RenderArgs,
}

pub fn run(args: Args) -> ExitCode {
    let out = args.out.unwrap_or_else(|| {
        PathBuf::from(if args.render.gif {
            "demo.gif"
        } else {
            "demo.png"
        })
    });
    if args.robot {
        return render_model(
            &Robot::default(),
            Path::new("<robot>"),
            &[],
            &out,
            &args.render,
        );
    }
    let name = Path::new("<demo character>");
    match ff9::load(name, &ff9::demo_character(), &LoadOptions::default()) {
        Ok(model) => render_model(&model, name, &[], &out, &args.render),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}
