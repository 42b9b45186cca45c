//! `psxrender view MODEL`: the live preview window (feature `preview`).
//!
//! It takes the render command's own options ([`RenderArgs`]) and turns them into renderer
//! options through the same [`RenderArgs::options`], so the window's first picture is the PNG
//! `psxrender MODEL OUT.png` writes with the same options, byte for byte; the options that only
//! name files to write (`--frames`, `--vram`, `--dump-gp0`) are refused.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;

use psxrender::formats::{ff9, LoadOptions};
use psxrender::preview::Session;
use psxrender::render::{default_animation, RenderOptions};
use psxrender::scene::Model;

use super::model_args::ModelArgs;
use super::render::RenderArgs;
use super::EXIT_BAD_INPUT;

/// Show a model in a window, animating at 30 fps through the emulated GTE and GPU.
///
/// Takes the render command's options (`psxrender --help`), and its first picture is the PNG
/// that command writes with them. Keys: arrows orbit, +/- zoom, space pause, `,`/`.` step a
/// frame, `[`/`]` previous/next animation, D dither on/off, S save the frame as the render
/// command would name it, Esc quit. The title shows model, animation, frame and milliseconds
/// per frame.
#[derive(ClapArgs, Debug)]
#[command(group(clap::ArgGroup::new("shown").required(true).args(["model", "demo"])))]
#[command(
    mut_arg("frames", |a| a.hide(true)),
    mut_arg("gif", |a| a.hide(true)),
    mut_arg("sheet", |a| a.hide(true)),
    mut_arg("yaw_steps", |a| a.hide(true)),
    mut_arg("vram", |a| a.hide(true)),
    mut_arg("dump_gp0", |a| a.hide(true)),
    mut_arg("dump_form", |a| a.hide(true))
)]
pub struct Args {
    /// The model file (FF9 / NWN MDL / M2 / glTF 2.0, detected from its content).
    pub model: Option<PathBuf>,
    /// View the built-in demo character (as `psxrender demo` renders it) instead of a file.
    #[arg(long, conflicts_with = "model")]
    pub demo: bool,
    /// Integer scale of the PS1 frame on screen (1-4) [default: the largest that fits the
    /// screen]; never more than fits the screen.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4))]
    pub scale: Option<u32>,
    /// Start paused at --frame (space plays).
    #[arg(long)]
    pub paused: bool,
    /// Quit by itself after showing this many frames (scripted runs; 60 a second at most).
    #[arg(long, value_name = "N")]
    pub exit_after: Option<u64>,
    #[command(flatten)]
    pub render: RenderArgs,
    #[command(flatten)]
    pub loader: ModelArgs,
}

/// A loaded model and the names the viewer gives it.
struct Shown {
    model: Box<dyn Model>,
    /// For the title and messages.
    name: String,
    /// The model file (the demo: a name in angle brackets, as `demo` says it).
    #[cfg_attr(not(feature = "preview"), allow(dead_code))] // read by S, in the window only
    source: PathBuf,
    /// The render command's default output for it (S numbers it by frame, as `--frames`).
    #[cfg_attr(not(feature = "preview"), allow(dead_code))]
    out: PathBuf,
}

pub fn run(args: Args) -> ExitCode {
    if let Some(option) = file_option(&args.render) {
        return fail(&format!(
            "{option} names files to write, which `view` does not: render them with \
             `psxrender MODEL OUT.png {option} ...` (in the window, S saves the frame shown)"
        ));
    }
    let shown = match load(&args) {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let model = shown.model.as_ref();
    super::print_warnings(
        (args.loader.ignored_by(model.format()).into_iter())
            .chain(model.warnings().iter().cloned()),
    );
    for n in model.notes() {
        eprintln!("note: {n}");
    }
    // After loading, so a bad model is reported as such with or without a display.
    if cfg!(feature = "preview") {
        if let Err(e) = super::precheck::check_display() {
            return fail(&e);
        }
    }
    let start = match start_options(model, &args, &shown.name) {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
    let mut session = match Session::new(model, start) {
        Ok(s) => s,
        Err(e) => return fail(&format!("{}: {e}", shown.name)),
    };
    if args.paused {
        session.apply(psxrender::preview::Action::TogglePause);
    }
    show(&mut session, &shown, &args)
}

/// The first of the render command's options that only name files to write.
fn file_option(r: &RenderArgs) -> Option<&'static str> {
    // --gif, --sheet and --yaw-steps cannot be given without --frames.
    [
        (r.frames.is_some(), "--frames"),
        (r.vram.is_some(), "--vram"),
        (r.dump_gp0.is_some(), "--dump-gp0"),
    ]
    .into_iter()
    .find_map(|(given, name)| given.then_some(name))
}

fn load(args: &Args) -> Result<Shown, String> {
    if args.demo {
        let source = PathBuf::from("<demo character>");
        let model = ff9::load(&source, &ff9::demo_character(), &LoadOptions::default())
            .map_err(|e| e.to_string())?;
        return Ok(Shown {
            model: Box::new(model),
            name: "demo".into(),
            source,
            out: PathBuf::from("demo.png"),
        });
    }
    let path = args.model.clone().unwrap_or_default();
    let model =
        psxrender::detect::load(&path, &args.loader.load_options()).map_err(|e| e.to_string())?;
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    Ok(Shown {
        model,
        name: name.unwrap_or_else(|| "model".into()),
        out: super::precheck::default_output(&path, false),
        source: path,
    })
}

/// The render command's options for `args`: its animation choice (`--anim`, else the first
/// idle one) and [`RenderArgs::options`].
fn start_options(model: &dyn Model, args: &Args, name: &str) -> Result<RenderOptions, String> {
    let animation = match &args.render.anim {
        None => default_animation(model),
        Some(sel) => Some(model.find_animation(sel).ok_or_else(|| {
            let names: Vec<String> = model.animations().into_iter().map(|a| a.name).collect();
            format!(
                "{name}: no animation '{sel}' (it has: {})",
                names.join(", ")
            )
        })?),
    };
    Ok(args.render.options(model, animation))
}

/// S: writes the frame on screen at 1x to the name the render command gives frame N of
/// `--frames` (`MODEL.psx_0012.png`), in the current directory, and says which render command
/// writes the same picture.
#[cfg(feature = "preview")]
fn save(shown: &Shown, session: &Session<'_>, frame: &psxrender::render::Frame) {
    let v = session.viewer();
    let path = super::render::numbered(&shown.out, v.frame);
    if let Err(e) = super::precheck::check_outputs([(&path, "the saved frame")], &[&shown.source]) {
        eprintln!("error: {e}");
        return;
    }
    match psxrender::output::save_png_rgb(&path, frame.width, frame.height, &frame.rgb) {
        Ok(()) => eprintln!(
            "wrote {} (as the render command with {})",
            path.display(),
            equivalent(session)
        ),
        Err(e) => eprintln!("error: cannot write {}: {e}", path.display()),
    }
}

/// The render options that give the viewer's current picture, beside those given at the start.
#[cfg(feature = "preview")]
fn equivalent(session: &Session<'_>) -> String {
    let v = session.viewer();
    let mut args = Vec::new();
    if let Some(c) = v.clip {
        args.push(format!("--anim {c}"));
    }
    args.push(format!("--frames {}..={}", v.framing, v.frame));
    args.push(format!("--yaw {} --pitch {}", v.yaw, v.pitch));
    if v.zoom_steps != 0 {
        args.push(format!("--distance {}", session.distance()));
    }
    if !v.dither {
        args.push("--dither off".into());
    }
    args.join(" ")
}

#[cfg(feature = "preview")]
fn show(session: &mut Session<'_>, shown: &Shown, args: &Args) -> ExitCode {
    let cfg = psxrender::preview::WindowConfig {
        name: shown.name.clone(),
        scale: args.scale,
        exit_after: args.exit_after,
    };
    let mut on_save = |s: &Session<'_>, f: &psxrender::render::Frame| save(shown, s, f);
    match psxrender::preview::run_window(session, &cfg, &mut on_save) {
        Ok(frames) => {
            eprintln!("{}: showed {frames} frames", shown.name);
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
fn show(_: &mut Session<'_>, _: &Shown, _: &Args) -> ExitCode {
    fail("this psxrender was built without the `preview` feature (no window support)")
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(EXIT_BAD_INPUT)
}

#[cfg(test)]
mod tests {
    use super::super::{Cli, Command};
    use super::*;
    use clap::Parser;
    use std::path::Path;

    /// `psxrender ARGV`, parsed as `main` parses it.
    fn parse(argv: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("psxrender").chain(argv.iter().copied()))
            .unwrap_or_else(|e| panic!("{argv:?}: {e}"))
    }

    /// The render command's PNG for `model` (a path, or `demo`) with `options`, and the
    /// viewer's first frame for the same: equal byte for byte.
    fn first_frame_is_the_render_commands(model: &str, options: &[&str]) {
        let dir = std::env::temp_dir().join(format!(
            "psxrender-view-{}-{}",
            std::process::id(),
            model.replace(['/', '.'], "_")
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("cli.png");
        let out_arg = out.to_str().unwrap();
        let (render, view) = if model == "demo" {
            (vec!["demo", out_arg], vec!["view", "--demo"])
        } else {
            (vec![model, out_arg], vec!["view", model])
        };
        let cli = parse(&[&render[..], options].concat());
        let code = match cli.command {
            Some(Command::Demo(a)) => super::super::demo::run(a),
            None => super::super::render::run(cli.render),
            other => panic!("not a render: {other:?}"),
        };
        assert_eq!(code, ExitCode::SUCCESS, "{model} {options:?}");
        let png = image::open(&out).unwrap().to_rgb8();
        std::fs::remove_dir_all(&dir).unwrap();

        let Some(Command::View(args)) = parse(&[&view[..], options].concat()).command else {
            panic!("not a view command");
        };
        let shown = load(&args).unwrap();
        let start = start_options(shown.model.as_ref(), &args, &shown.name).unwrap();
        let mut session = Session::new(shown.model.as_ref(), start).unwrap();
        let first = session.frame().unwrap();
        assert_eq!((first.width, first.height), png.dimensions(), "{model}");
        let differ = first
            .rgb
            .chunks(3)
            .zip(png.as_raw().chunks(3))
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(differ, 0, "{model} {options:?}: pixels differ from the PNG");
    }

    #[test]
    fn first_frame_is_the_render_commands_for_the_demo() {
        first_frame_is_the_render_commands("demo", &[]);
        // Every camera and picture option goes the same way.
        first_frame_is_the_render_commands(
            "demo",
            &[
                "--frame", "7", "--yaw", "-20", "--pitch", "30", "--size", "368x480", "--dither",
                "off", "--fov", "70", "--bg", "102030",
            ],
        );
    }

    #[test]
    #[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
    fn first_frame_is_the_render_commands_for_nwn_m2_and_gltf() {
        let shared = Path::new(env!("PSXRENDER_SHARED_DIR"));
        for model in [
            "samples/nwn/c_aribeth.mdl",
            "samples/m2/Rabbit2.m2",
            "samples/gltf/Fox.glb",
        ] {
            let path = shared.join(model);
            first_frame_is_the_render_commands(path.to_str().unwrap(), &[]);
        }
        let rabbit = shared.join("samples/m2/Rabbit2.m2");
        first_frame_is_the_render_commands(
            rabbit.to_str().unwrap(),
            &["--frame", "5", "--distance", "3.5", "--depth", "15"],
        );
    }

    #[test]
    fn file_options_are_refused_and_the_rest_parse() {
        let Some(Command::View(a)) = parse(&["view", "--demo", "--vram", "v.png"]).command else {
            panic!("not a view command");
        };
        assert_eq!(file_option(&a.render), Some("--vram"));
        let Some(Command::View(a)) =
            parse(&["view", "m.mdl", "--paused", "--bg", "none", "--scale", "3"]).command
        else {
            panic!("not a view command");
        };
        assert_eq!(
            (file_option(&a.render), a.paused, a.scale),
            (None, true, Some(3))
        );
        assert!(Cli::try_parse_from(["psxrender", "view", "--demo", "--scale", "5"]).is_err());
    }

    #[test]
    #[cfg(feature = "preview")]
    fn save_names_and_the_equivalent_command() {
        let args = match parse(&["view", "--demo", "--frame", "3"]).command {
            Some(Command::View(a)) => a,
            _ => unreachable!(),
        };
        let shown = load(&args).unwrap();
        let start = start_options(shown.model.as_ref(), &args, &shown.name).unwrap();
        let mut s = Session::new(shown.model.as_ref(), start).unwrap();
        assert_eq!(
            super::super::render::numbered(&shown.out, s.viewer().frame),
            Path::new("demo_0003.png")
        );
        assert_eq!(
            equivalent(&s),
            "--anim 0 --frames 3..=3 --yaw 35 --pitch 15"
        );
        s.apply(psxrender::preview::Action::OrbitRight);
        s.apply(psxrender::preview::Action::StepForward);
        s.apply(psxrender::preview::Action::ToggleDither);
        s.frame().unwrap();
        assert_eq!(
            equivalent(&s),
            "--anim 0 --frames 3..=4 --yaw 50 --pitch 15 --dither off"
        );
    }
}
