//! `psxrender info FILE [--json]`: what any file psxrender reads holds (see
//! [`psxrender::describe`]).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;

use super::model_args::ModelArgs;
use super::EXIT_BAD_INPUT;

/// Describe any file psxrender reads: models (FF9, NWN MDL, M2, glTF 2.0: structure, textures,
/// skins, animations),
/// textures (TIM, BLP2, DDS, BioWare DDS, TGA, PLT, PNG: depth, size, CLUTs, mips, layers, and
/// what the PS1 conversion makes of them), NWN .txi files, and GPU dumps and text streams
/// (words per port, frames, commands by kind, VRAM written). The format is found from the
/// content; a file nothing reads gets the list of formats tried and why each refused.
///
/// Examples: `psxrender info Rabbit2.m2`; `psxrender info texture.tim --json`.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The file (format detected from its content).
    pub file: PathBuf,
    /// Print the same facts as one JSON object (models and textures, GPU input too).
    #[arg(long)]
    pub json: bool,
    /// Most bytes a zstd/xz GPU dump may decode to, e.g. `2G` (as `replay --max-decoded`).
    #[arg(long = "max-decoded", value_name = "BYTES", value_parser = super::replay::parse_max_decoded,
          default_value = "auto", hide_default_value = true)]
    pub max_decoded: psxrender::capture::compressed::MaxDecoded,
    #[command(flatten)]
    pub model: ModelArgs,
}

pub fn run(args: Args) -> ExitCode {
    let d = match psxrender::describe::describe_with(
        &args.file,
        &args.model.load_options(),
        args.max_decoded,
    ) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    if args.json {
        match serde_json::to_string_pretty(&d.json(&args.file)) {
            Ok(s) => outln!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_BAD_INPUT);
            }
        }
    } else {
        out!("{}", d.text());
    }
    super::print_warnings(d.warnings());
    if let psxrender::describe::Description::Model(m) = &d {
        for n in m.notes() {
            eprintln!("note: {n}");
        }
    }
    ExitCode::SUCCESS
}
