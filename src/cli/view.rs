//! `psxrender view MODEL`: the live preview window (feature `preview`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args as ClapArgs;

use psxrender::formats::{ff9, LoadOptions};
use psxrender::render::camera::{View, DEFAULT_FOV};
use psxrender::render::RenderOptions;
use psxrender::scene::Model;
use psxrender::texture::TextureDepth;

use super::model_args::ModelArgs;
use super::render::{
    camera_angles, parse_depth, parse_finite, parse_fov, parse_rgb, parse_size, OnOff,
};
use super::EXIT_BAD_INPUT;

/// Show a model in a window, animating at 30 fps through the emulated GTE and GPU.
///
/// Keys: arrows orbit, +/- zoom, space pause, `,`/`.` step a frame, `[`/`]` previous/next
/// animation, D dither on/off, S save a PNG, Esc quit. The title shows model, animation, frame
/// and milliseconds per frame.
#[derive(ClapArgs, Debug)]
#[command(group(clap::ArgGroup::new("shown").required(true).args(["model", "demo"])))]
pub struct Args {
    /// The model file (FF9 / NWN MDL / M2 / glTF 2.0, detected from its content).
    pub model: Option<PathBuf>,
    /// View the built-in demo character instead of a file.
    #[arg(long, conflicts_with = "model")]
    pub demo: bool,
    /// Animation to start with, by name (case-insensitive) or index.
    #[arg(long, value_name = "NAME|INDEX")]
    pub anim: Option<String>,
    /// Frame to start at.
    #[arg(long, default_value_t = 0, value_name = "N", allow_negative_numbers = true,
          value_parser = super::render::parse_frame)]
    pub frame: u32,
    /// Camera yaw in degrees (0 = facing the model's front) [default: 35; NWN tiles: 200].
    #[arg(long, allow_negative_numbers = true, value_parser = parse_finite)]
    pub yaw: Option<f32>,
    /// Camera pitch in degrees (positive looks down) [default: 15; NWN tiles: 50].
    #[arg(long, allow_negative_numbers = true, value_parser = parse_finite)]
    pub pitch: Option<f32>,
    /// Horizontal field of view in degrees.
    #[arg(long, default_value_t = DEFAULT_FOV, allow_negative_numbers = true, value_parser = parse_fov)]
    pub fov: f32,
    /// Display size, a PS1 mode: width 256/320/368/512/640, height 240/480.
    #[arg(long, default_value = "320x240", value_parser = parse_size, value_name = "WxH")]
    pub size: (u32, u32),
    /// Background colour.
    #[arg(long, default_value = "202030", value_parser = parse_rgb, value_name = "RRGGBB")]
    pub bg: [u8; 3],
    /// Start with GPU dithering on or off (D toggles it).
    #[arg(long, value_enum, default_value_t = OnOff::On, value_name = "on|off")]
    pub dither: OnOff,
    /// Skip lighting: faces keep their own colours.
    #[arg(long)]
    pub unlit: bool,
    /// Texture depth: 4 or 8 (CLUT) or 15 (direct).
    #[arg(long, value_parser = parse_depth, value_name = "4|8|15")]
    pub depth: Option<TextureDepth>,
    /// Integer scale of the PS1 frame on screen (1-4).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=4))]
    pub scale: u32,
    /// Quit by itself after this many frames (scripted runs).
    #[arg(long, value_name = "N")]
    pub exit_after: Option<u64>,
    /// GPU rasteriser threads (0 = all cores).
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = super::precheck::parse_threads)]
    pub threads: usize,
    #[command(flatten)]
    pub loader: ModelArgs,
}

pub fn run(args: Args) -> ExitCode {
    let (model, name): (Box<dyn Model>, String) = if args.demo {
        match ff9::load(
            Path::new("demo"),
            &ff9::demo_character(),
            &LoadOptions::default(),
        ) {
            Ok(m) => (Box::new(m), "demo".to_string()),
            Err(e) => return fail(&e.to_string()),
        }
    } else {
        let path = args.model.clone().unwrap_or_default();
        match psxrender::detect::load(&path, &args.loader.load_options()) {
            Ok(m) => {
                let name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
                (m, name.unwrap_or_else(|| "model".into()))
            }
            Err(e) => return fail(&e.to_string()),
        }
    };
    super::print_warnings(
        (args.loader.ignored_by(model.format()).into_iter())
            .chain(model.warnings().iter().cloned()),
    );
    // After loading, so a bad model is reported as such with or without a display.
    if cfg!(feature = "preview") {
        if let Err(e) = super::precheck::check_display() {
            return fail(&e);
        }
    }
    let clip = match &args.anim {
        None => None,
        Some(sel) => match model.find_animation(sel) {
            Some(i) => Some(i),
            None => return fail(&format!("{name}: no animation '{sel}'")),
        },
    };
    let (yaw, pitch) = camera_angles(args.yaw, args.pitch, model.as_ref());
    let opts = RenderOptions {
        width: args.size.0,
        height: args.size.1,
        background: args.bg,
        dither: args.dither == OnOff::On,
        lighting: !args.unlit,
        depth: args.depth.unwrap_or_default(),
        view: View {
            yaw,
            pitch,
            distance: None,
            fov: args.fov,
        },
        threads: args.threads,
        ..RenderOptions::default()
    };
    let mut session = match psxrender::preview::Session::new(model.as_ref(), opts, clip, args.frame)
    {
        Ok(s) => s,
        Err(e) => return fail(&format!("{name}: {e}")),
    };
    show(&mut session, &name, &args)
}

#[cfg(feature = "preview")]
fn show(session: &mut psxrender::preview::Session<'_>, name: &str, args: &Args) -> ExitCode {
    let cfg = psxrender::preview::WindowConfig {
        name: name.to_string(),
        scale: args.scale,
        exit_after: args.exit_after,
        save_dir: PathBuf::from("."),
    };
    match psxrender::preview::run_window(session, &cfg) {
        Ok(frames) => {
            eprintln!("{name}: showed {frames} frames");
            ExitCode::SUCCESS
        }
        Err(e) if e.starts_with("cannot open a window") => fail(&format!(
            "{e} (is the display server on DISPLAY/WAYLAND_DISPLAY running?); {}",
            super::precheck::HEADLESS
        )),
        Err(e) => fail(&e),
    }
}

#[cfg(not(feature = "preview"))]
fn show(_: &mut psxrender::preview::Session<'_>, _: &str, _: &Args) -> ExitCode {
    fail("this psxrender was built without the `preview` feature (no window support)")
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(EXIT_BAD_INPUT)
}
