//! The default command: `psxrender MODEL [OUT.png] [--frame N] ...` — load, render through the
//! emulated GTE and GPU, write the displayed area as PNG (or many frames, or a GIF).

use std::io::IsTerminal;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args as ClapArgs, ValueEnum};

use psxrender::formats::LoadOptions;
use psxrender::render::camera::{View, DEFAULT_FOV, DEFAULT_PITCH, DEFAULT_YAW};
use psxrender::render::{
    default_animation, vram_rgb, Frame, RenderOptions, Renderer, DEFAULT_BACKGROUND, HEIGHTS,
    WIDTHS,
};
use psxrender::scene::{Model, PoseRequest};
use psxrender::sheet::SheetSize;
use psxrender::texture::{self, TextureCache, TextureDepth};

pub(crate) mod sheet;
pub(super) mod stream;

use super::model_args::ModelArgs;
use super::{write_failed, EXIT_BAD_INPUT, EXIT_WRITE_FAILED};

/// Most frames one `--frames` range may ask for.
pub const MAX_FRAMES: u32 = 10_000;

/// Render a model the way a PS1 would draw it (the default command).
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The model file (FF9 / NWN MDL / M2 / glTF 2.0, detected from its content).
    /// (Required unless a subcommand is given.)
    #[arg(value_name = "MODEL", required = true)]
    pub model: Option<PathBuf>,
    /// Output PNG (with --frames: numbered as NAME_0000.png; with --gif: the GIF) [default:
    /// the model's name with .psx.png, or .psx.gif with --gif, in the current directory].
    #[arg(value_name = "OUT.png")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub render: RenderArgs,
    #[command(flatten)]
    pub loader: ModelArgs,
}

/// Options of every command that renders (the default command and `demo`).
#[derive(ClapArgs, Debug, Clone)]
pub struct RenderArgs {
    /// Frame to render (30 fps; FF9: stored frame), wrapping past the animation's end.
    #[arg(long, default_value_t = 0, value_name = "N", allow_negative_numbers = true,
          value_parser = parse_frame)]
    pub frame: u32,
    /// Animation by name (case-insensitive) or index; default: the first idle one (Stand,
    /// pause*, idle*), else the first (the rest pose when there is none). `psxrender info`
    /// lists them.
    #[arg(long, value_name = "NAME|INDEX")]
    pub anim: Option<String>,
    /// Render frames A to B-1 (`A..B`, or `A..=B`) to numbered PNGs, in parallel.
    #[arg(long, value_name = "A..B", value_parser = parse_range)]
    pub frames: Option<Range<u32>>,
    /// With --frames: write one animated GIF (30 fps) instead of numbered PNGs.
    #[arg(long, requires = "frames", conflicts_with = "sheet")]
    pub gif: bool,
    /// With --frames: one sprite-sheet PNG, a grid of COLSxROWS frames (`auto`: near-square, or
    /// frames x yaw steps), plus OUT.json listing each frame's rectangle, frame number and time.
    /// Example: `psxrender Rabbit2.m2 walk.png --anim Walk --frames 0..12 --sheet auto`.
    #[arg(long, requires = "frames", value_name = "COLSxROWS|auto", value_parser = parse_sheet)]
    pub sheet: Option<SheetSize>,
    /// With --sheet: a turntable, N camera angles around the model, one per row (yaw = --yaw,
    /// default 0, plus row x 360/N), the frames in columns; one camera distance for all.
    /// Example: `psxrender Rabbit2.m2 turn.png --frames 0..12 --sheet auto --yaw-steps 8`.
    #[arg(long, requires = "sheet", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=360))]
    pub yaw_steps: Option<u32>,
    /// Camera yaw in degrees (0 = facing the model's front) [default: 35; NWN tiles: 200].
    #[arg(long, allow_negative_numbers = true, value_parser = parse_finite)]
    pub yaw: Option<f32>,
    /// Camera pitch in degrees (positive looks down) [default: 15; NWN tiles: 50].
    #[arg(long, allow_negative_numbers = true, value_parser = parse_finite)]
    pub pitch: Option<f32>,
    /// Camera distance from the model's centre, in model units (default: fit the model).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_positive)]
    pub distance: Option<f32>,
    /// Horizontal field of view in degrees; sets the GTE's H = (width/2)/tan(fov/2).
    #[arg(long, default_value_t = DEFAULT_FOV, allow_negative_numbers = true, value_parser = parse_fov)]
    pub fov: f32,
    /// Display size, a PS1 mode: width 256/320/368/512/640, height 240/480.
    #[arg(long, default_value = "320x240", value_name = "WxH", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Background colour (cleared by GP0(02h)), or `none`: a PNG with alpha, opaque exactly
    /// where the GPU drew (primitives set the VRAM mask bit, GP0(E6h)); `none:RRGGBB` picks
    /// the colour cleared under it, which semi-transparent pixels blend with (default 202030,
    /// so the colours equal a plain render's).
    /// Example: `psxrender Rabbit2.m2 sprite.png --bg none`.
    #[arg(long, default_value = "202030", value_name = "RRGGBB|none", value_parser = parse_background)]
    pub bg: Background,
    /// GPU dithering of shaded/textured polygons.
    #[arg(long, default_value = "on", value_name = "on|off")]
    pub dither: OnOff,
    /// Skip lighting: faces keep their own colours.
    #[arg(long)]
    pub unlit: bool,
    /// Texture depth: 4 or 8 (CLUT) or 15 (direct); default: 4bpp for ≤16 colours, else 8bpp.
    #[arg(long, value_name = "4|8|15", value_parser = parse_depth)]
    pub depth: Option<TextureDepth>,
    /// Keep textures in PS1 form in DIR (created when needed) and take them from there next
    /// time: each texture is quantised once for every model and process that shares DIR. The
    /// pictures are the same with or without it.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Also write the whole 1024x512 VRAM as PNG.
    #[arg(long, value_name = "OUT.png")]
    pub vram: Option<PathBuf>,
    /// Also write the frame as a GPUDUMP (.psxgpu; .zst/.xz at the end compresses it): VRAM
    /// restore, the frame's GP0 words, a VSync; `psxrender replay --display` turns it back into
    /// the same PNG. With --frames: one capture of every frame (the restore once, then each
    /// frame's words and a VSync), which `replay --frames` turns back into the same PNGs.
    #[arg(long = "dump-gp0", value_name = "OUT.psxgpu", conflicts_with = "sheet")]
    pub dump_gp0: Option<PathBuf>,
    /// The form of --dump-gp0: `duckstation` (its 14-byte magic and packet order; what its dump
    /// player opens) or `spec` (the ps1dev spec's 16-byte magic; PCSX-Redux).
    #[arg(long = "dump-form", value_name = "FORM", default_value = "duckstation",
          value_parser = parse_dump_form, requires = "dump_gp0")]
    pub dump_form: psxrender::capture::dump::Form,
    /// Threads: frames rendered at once with --frames, else GPU rasteriser threads (0 = all).
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = super::precheck::parse_threads)]
    pub threads: usize,
    #[command(flatten)]
    pub effects: super::effect_args::EffectArgs,
}

/// Which of a render's outputs a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// OUT: the picture, GIF or sheet.
    Out,
    /// One numbered frame of `--frames`.
    Frame(u32),
    /// The sheet's JSON index.
    SheetIndex,
    /// `--vram`.
    Vram,
    /// `--dump-gp0`.
    DumpGp0,
}

impl Written {
    /// The option naming the file, without dashes (`out` for OUT and what is named after it).
    pub fn key(self) -> &'static str {
        match self {
            Written::Out | Written::Frame(_) | Written::SheetIndex => "out",
            Written::Vram => "vram",
            Written::DumpGp0 => "dump-gp0",
        }
    }
}

impl std::fmt::Display for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Written::Out => write!(f, "OUT"),
            Written::Frame(n) => write!(f, "OUT, frame {n}"),
            Written::SheetIndex => write!(f, "the --sheet index"),
            Written::Vram => write!(f, "--vram"),
            Written::DumpGp0 => write!(f, "--dump-gp0"),
        }
    }
}

/// What the frame is cleared to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Background {
    /// The colour GP0(02h) clears with.
    pub colour: [u8; 3],
    /// `none`: write alpha from the mask bit.
    pub transparent: bool,
}

fn parse_background(s: &str) -> Result<Background, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(Background {
            colour: DEFAULT_BACKGROUND,
            transparent: true,
        });
    }
    if let Some(c) = t.strip_prefix("none:") {
        return Ok(Background {
            colour: parse_rgb(c)?,
            transparent: true,
        });
    }
    Ok(Background {
        colour: parse_rgb(t)?,
        transparent: false,
    })
}

fn parse_sheet(s: &str) -> Result<SheetSize, String> {
    if s.trim().eq_ignore_ascii_case("auto") {
        return Ok(SheetSize::Auto);
    }
    let (c, r) = s
        .split_once(['x', 'X'])
        .ok_or("expected COLSxROWS (e.g. 4x3) or auto")?;
    let c: u32 = c
        .trim()
        .parse()
        .map_err(|_| format!("bad column count '{c}'"))?;
    let r: u32 = r
        .trim()
        .parse()
        .map_err(|_| format!("bad row count '{r}'"))?;
    if c == 0 || r == 0 {
        return Err(format!("{c}x{r} has no cells"));
    }
    Ok(SheetSize::Grid(c, r))
}

/// `on` / `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    /// Enabled.
    On,
    /// Disabled.
    Off,
}

/// `--frame N`: a frame number from 0; a negative one is named as such (clap would take it
/// for an option).
pub(super) fn parse_frame(s: &str) -> Result<u32, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if n < 0 => Err(format!("frames count from 0 (the first), not {n}")),
        Ok(n) => {
            u32::try_from(n).map_err(|_| format!("{n} is past the last frame number, {}", u32::MAX))
        }
        Err(_) => Err(format!("'{s}' is not a frame number")),
    }
}

pub(super) fn parse_finite(s: &str) -> Result<f32, String> {
    let v: f32 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("'{s}' is not a finite number"))
    }
}

fn parse_positive(s: &str) -> Result<f32, String> {
    let v = parse_finite(s)?;
    if v > 0.0 && v < 1e9 {
        Ok(v)
    } else {
        Err(format!("{v} is not a distance above 0 (and below 1e9)"))
    }
}

pub(super) fn parse_fov(s: &str) -> Result<f32, String> {
    let v = parse_finite(s)?;
    if (1.0..=170.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "{v} is outside the 1-170 degree field of view range"
        ))
    }
}

pub(super) fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or("expected WxH, e.g. 320x240")?;
    let w: u32 = w.trim().parse().map_err(|_| format!("bad width '{w}'"))?;
    let h: u32 = h.trim().parse().map_err(|_| format!("bad height '{h}'"))?;
    if !WIDTHS.contains(&w) || !HEIGHTS.contains(&h) {
        return Err(format!(
            "{w}x{h} is not a PS1 mode: width one of {WIDTHS:?}, height one of {HEIGHTS:?}"
        ));
    }
    Ok((w, h))
}

pub(super) fn parse_rgb(s: &str) -> Result<[u8; 3], String> {
    let s = s.trim_start_matches('#');
    if s.len() != 6 || !s.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("'{s}' is not RRGGBB hex"));
    }
    let v = u32::from_str_radix(s, 16).map_err(|e| e.to_string())?;
    Ok([(v >> 16) as u8, (v >> 8) as u8, v as u8])
}

pub(super) fn parse_depth(s: &str) -> Result<TextureDepth, String> {
    match s {
        "4" => Ok(TextureDepth::Bpp4),
        "8" => Ok(TextureDepth::Bpp8),
        "15" => Ok(TextureDepth::Bpp15),
        "16" => Err("16 is not a PS1 texture depth: direct colour is 15-bit (--depth 15)".into()),
        _ => Err(format!("'{s}' is not 4, 8 or 15")),
    }
}

pub(super) fn parse_range(s: &str) -> Result<Range<u32>, String> {
    let (a, b, inclusive) = if let Some((a, b)) = s.split_once("..=") {
        (a, b, true)
    } else if let Some((a, b)) = s.split_once("..") {
        (a, b, false)
    } else {
        return Err("expected A..B or A..=B".into());
    };
    let a: u32 = a.trim().parse().map_err(|_| format!("bad start '{a}'"))?;
    let b: u32 = b.trim().parse().map_err(|_| format!("bad end '{b}'"))?;
    let b = match (inclusive, b.checked_add(1)) {
        (false, _) => b,
        (true, Some(end)) => end,
        (true, None) => {
            return Err(format!(
                "{s} ends at frame {b}; a range reaches frame {} at most",
                u32::MAX - 1
            ))
        }
    };
    if b <= a {
        return Err(format!("empty range {s}"));
    }
    if b - a > MAX_FRAMES {
        return Err(format!("{} frames asked, at most {MAX_FRAMES}", b - a));
    }
    Ok(a..b)
}

impl RenderArgs {
    /// Every file a render into `out` writes, each with its role, and the frames it renders
    /// (frames x yaw steps for a turntable sheet).
    pub fn outputs(&self, out: &Path) -> (Vec<(PathBuf, Written)>, u64) {
        let main = || (out.to_path_buf(), Written::Out);
        let (mut files, frames) = match (&self.frames, self.sheet, self.gif) {
            (None, _, _) => (vec![main()], 1),
            (Some(r), Some(_), _) => (
                vec![main(), (sheet::index_path(out), Written::SheetIndex)],
                r.len() as u64 * u64::from(self.yaw_steps.unwrap_or(1)),
            ),
            (Some(r), None, true) => (vec![main()], r.len() as u64),
            (Some(r), None, false) => (
                r.clone()
                    .map(|n| (numbered(out, n), Written::Frame(n)))
                    .collect(),
                r.len() as u64,
            ),
        };
        files.extend(self.vram.iter().map(|p| (p.clone(), Written::Vram)));
        files.extend(self.dump_gp0.iter().map(|p| (p.clone(), Written::DumpGp0)));
        (files, frames)
    }

    /// The renderer options these arguments describe, for `animation` of `model`.
    pub fn options(&self, model: &dyn Model, animation: Option<usize>) -> RenderOptions {
        let (yaw, pitch) = camera_angles(self.yaw, self.pitch, model);
        let mut opts = RenderOptions {
            width: self.size.0,
            height: self.size.1,
            background: self.bg.colour,
            transparent: self.bg.transparent,
            dither: self.dither == OnOff::On,
            lighting: !self.unlit,
            depth: self.depth.unwrap_or_default(),
            view: View {
                yaw,
                pitch,
                distance: self.distance,
                fov: self.fov,
            },
            threads: self.threads,
            framing: PoseRequest {
                animation,
                frame: self.frames.as_ref().map_or(self.frame, |r| r.start),
                camera: None,
            },
            texture_cache: self
                .cache
                .as_deref()
                .map(|dir| Arc::new(TextureCache::new(dir, texture::cache::DEFAULT_LIMIT))),
            ..RenderOptions::default()
        };
        self.effects.apply(&mut opts);
        opts
    }
}

/// The camera angles: the user's, else the model's preferred view, else the 3/4 front view;
/// pitch kept within ±89°.
pub(super) fn camera_angles(yaw: Option<f32>, pitch: Option<f32>, model: &dyn Model) -> (f32, f32) {
    let (pref_yaw, pref_pitch) = model
        .preferred_view()
        .unwrap_or((DEFAULT_YAW, DEFAULT_PITCH));
    (
        yaw.unwrap_or(pref_yaw),
        pitch.unwrap_or(pref_pitch).clamp(-89.0, 89.0),
    )
}

/// Loads and renders per `args`.
pub fn run(args: Args) -> ExitCode {
    let Some(path) = args.model else {
        eprintln!("error: a MODEL to render or a subcommand is required (see --help)");
        return ExitCode::from(EXIT_BAD_INPUT);
    };
    let load_options = LoadOptions {
        texture_cache: (args.render.cache.as_deref())
            .map(|dir| Arc::new(TextureCache::new(dir, texture::cache::DEFAULT_LIMIT))),
        ..args.loader.load_options()
    };
    let model = match psxrender::detect::load(&path, &load_options) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    let told = model.warnings().len();
    super::print_warnings(
        (args.loader.ignored_by(model.format()).into_iter())
            .chain(model.warnings().iter().cloned()),
    );
    for n in model.notes() {
        eprintln!("note: {n}");
    }
    let out = args
        .out
        .unwrap_or_else(|| super::precheck::default_output(&path, args.render.gif));
    let mut inputs = args.loader.files();
    inputs.push(&path);
    let code = render_model(model.as_ref(), &path, &inputs, &out, &args.render);
    // What the frames read when first drawn (an NWN animation's node tree) may warn too.
    super::print_warnings(model.warnings().into_iter().skip(told));
    code
}

/// Renders `model` (named `source` in messages) per `args` into `out`. `inputs` are the files
/// it was read from: no output may replace one.
pub fn render_model(
    model: &dyn Model,
    source: &Path,
    inputs: &[&Path],
    out: &Path,
    args: &RenderArgs,
) -> ExitCode {
    let animation = match &args.anim {
        None => default_animation(model),
        Some(sel) => match model.find_animation(sel) {
            Some(i) => Some(i),
            None => {
                let names: Vec<String> = model.animations().into_iter().map(|a| a.name).collect();
                eprintln!(
                    "error: {}: no animation '{sel}' (has {}: {})",
                    source.display(),
                    names.len(),
                    names.join(", ")
                );
                return ExitCode::from(EXIT_BAD_INPUT);
            }
        },
    };
    if let Err(e) = super::precheck::check_outputs(
        args.outputs(out)
            .0
            .into_iter()
            .map(|(p, w)| (p, w.to_string())),
        inputs,
    ) {
        eprintln!("error: {e}");
        return ExitCode::from(EXIT_WRITE_FAILED);
    }
    let opts = args.options(model, animation);
    let mut renderer = match Renderer::new(model, &opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}: {e}", source.display());
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    // A turntable sheet fits one distance to every angle and names it when done.
    let turntable = args.sheet.is_some() && args.yaw_steps.unwrap_or(1) > 1;
    eprintln!(
        "{}: {} model, scale {:.3} GTE units per model unit{}{}",
        source.display(),
        model.format(),
        renderer.scale(),
        if turntable {
            String::new()
        } else {
            format!(", camera distance {:.3}", renderer.distance())
        },
        match renderer.texture_shrink() {
            0 => String::new(),
            n => format!(", textures halved {n}x to fit VRAM"),
        }
    );
    let result = match (&args.frames, args.sheet) {
        (None, _) => single(&mut renderer, animation, out, args),
        (Some(range), None) => many(&renderer, animation, range.clone(), out, args),
        (Some(range), Some(size)) => {
            sheet::render(model, source, animation, range.clone(), size, out, args)
        }
    };
    if let Err(code) = result {
        return code;
    }
    if let Some(path) = &args.vram {
        let rgb = vram_rgb(renderer.gpu().vram());
        if let Err(code) = save(path, gpu::VRAM_WIDTH as u32, gpu::VRAM_HEIGHT as u32, &rgb) {
            return code;
        }
        eprintln!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}

fn save(path: &Path, w: u32, h: u32, rgb: &[u8]) -> Result<(), ExitCode> {
    psxrender::output::save_png_rgb(path, w, h, rgb).map_err(|e| write_failed(path, e))
}

/// Writes `frame` as PNG: RGBA when it has alpha (`--bg none`), else RGB.
pub(super) fn save_frame(path: &Path, frame: &Frame) -> Result<(), ExitCode> {
    let r = match &frame.alpha {
        Some(_) => psxrender::output::save_png_rgba(path, frame.width, frame.height, &frame.rgba()),
        None => psxrender::output::save_png_rgb(path, frame.width, frame.height, &frame.rgb),
    };
    r.map_err(|e| write_failed(path, e))
}

pub(super) fn report(frame: &Frame) {
    let s = frame.stats;
    eprintln!(
        "drew {} polygons ({} back faces, {} clipped, {} invalid, {} clamped vertices)",
        s.drawn, s.back_faces, s.clipped, s.invalid, s.clamped_vertices
    );
    super::effect_args::report(&s);
}

fn single(
    renderer: &mut Renderer,
    animation: Option<usize>,
    out: &Path,
    args: &RenderArgs,
) -> Result<(), ExitCode> {
    let req = PoseRequest {
        animation,
        frame: args.frame,
        camera: None,
    };
    let frame = renderer.render(&req).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(EXIT_BAD_INPUT)
    })?;
    report(&frame);
    save_frame(out, &frame)?;
    eprintln!("wrote {}", out.display());
    if let Some(path) = &args.dump_gp0 {
        write_capture(renderer, args, path, &[&frame.gp0])?;
    }
    Ok(())
}

/// `duckstation` or `spec`: a `--dump-form`.
pub fn parse_dump_form(s: &str) -> Result<psxrender::capture::dump::Form, String> {
    psxrender::capture::dump::Form::from_name(s)
        .ok_or_else(|| format!("'{s}' is not a dump form: duckstation or spec"))
}

/// Writes `frames` (each frame's GP0 words, in order) as one GPUDUMP capture in the form
/// `args` asks for.
fn write_capture(
    renderer: &Renderer,
    args: &RenderArgs,
    path: &Path,
    frames: &[&[u32]],
) -> Result<(), ExitCode> {
    let comment = format!(
        "psxrender {} ({} model)",
        env!("CARGO_PKG_VERSION"),
        renderer.model().format()
    );
    let initial = renderer.initial_vram();
    let dump = psxrender::capture::dump::capture(
        args.dump_form,
        &comment,
        &initial,
        renderer.gp1_setup(),
        frames,
    );
    psxrender::capture::compressed::write_dump(path, &dump).map_err(|e| write_failed(path, e))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// `NAME.png` → `NAME_0012.png`.
pub fn numbered(out: &Path, n: u32) -> PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = out
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or("png".into());
    out.with_file_name(format!("{stem}_{n:04}.{ext}"))
}

fn many(
    renderer: &Renderer,
    animation: Option<usize>,
    range: Range<u32>,
    out: &Path,
    args: &RenderArgs,
) -> Result<(), ExitCode> {
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(range.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let template = renderer.template();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| {
            eprintln!("error: cannot start threads: {e}");
            ExitCode::from(EXIT_BAD_INPUT)
        })?;
    let gif = args.gif;
    let keep_gp0 = args.dump_gp0.is_some();
    // Each frame's GP0 words, in order, when a capture of the range is asked for.
    let mut words: Vec<Vec<u32>> = Vec::new();
    // Frames stream: numbered PNGs are written by the thread that rendered them, GIF frames
    // are encoded in order as they arrive; neither keeps the range in memory.
    let mut render_all = |sink: &mut dyn FnMut(&Frame) -> Result<(), ExitCode>| {
        stream::in_order(
            &pool,
            range.len() as u32,
            || template.renderer(1),
            |r, i| {
                let n = range.start + i;
                let req = PoseRequest {
                    animation,
                    frame: n,
                    camera: None,
                };
                let mut frame = r.render(&req).map_err(|e| {
                    eprintln!("error: frame {n}: {e}");
                    ExitCode::from(EXIT_BAD_INPUT)
                })?;
                bar.inc(1);
                let gp0 = if keep_gp0 {
                    std::mem::take(&mut frame.gp0)
                } else {
                    Vec::new()
                };
                if gif {
                    Ok((Some(frame), gp0))
                } else {
                    save_frame(&numbered(out, n), &frame)?;
                    Ok((None, gp0))
                }
            },
            |_, (f, gp0): (Option<Frame>, Vec<u32>)| {
                if keep_gp0 {
                    words.push(gp0);
                }
                f.map_or(Ok(()), |f| sink(&f))
            },
        )
    };
    if gif {
        stream::write_gif(out, &mut render_all)?;
    } else {
        render_all(&mut |_| Ok(()))?;
    }
    bar.finish_and_clear();
    eprintln!("rendered {} frames", range.len());
    if let Some(path) = &args.dump_gp0 {
        let each: Vec<&[u32]> = words.iter().map(Vec::as_slice).collect();
        write_capture(renderer, args, path, &each)?;
    }
    if gif {
        eprintln!("wrote {}", out.display());
    } else {
        eprintln!(
            "wrote {} to {}",
            numbered(out, range.start).display(),
            numbered(out, range.end - 1).display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsers() {
        assert_eq!(parse_size("368x480"), Ok((368, 480)));
        assert!(parse_size("300x240").is_err());
        assert_eq!(parse_rgb("#ff8001"), Ok([255, 128, 1]));
        assert!(parse_rgb("12345").is_err());
        assert_eq!(
            parse_background("none"),
            Ok(Background {
                colour: DEFAULT_BACKGROUND,
                transparent: true
            })
        );
        assert_eq!(
            parse_background("none:000000").map(|b| b.colour),
            Ok([0, 0, 0])
        );
        assert_eq!(parse_background("ff0000").map(|b| b.transparent), Ok(false));
        assert_eq!(parse_sheet("auto"), Ok(SheetSize::Auto));
        assert_eq!(parse_sheet("12x8"), Ok(SheetSize::Grid(12, 8)));
        assert!(parse_sheet("0x8").is_err() && parse_sheet("8").is_err());
        assert_eq!(parse_range("3..=5"), Ok(3..6));
        assert_eq!(parse_range("0..30"), Ok(0..30));
        assert!(parse_range("5..5").is_err());
        assert!(parse_range("0..4000000000").is_err());
        let e = parse_range("4294967295..=4294967295").unwrap_err();
        assert!(e.contains("reaches frame 4294967294 at most"), "{e}");
        assert_eq!(
            parse_range("4294967290..=4294967294"),
            Ok(4294967290..4294967295)
        );
        assert_eq!(parse_depth("15"), Ok(TextureDepth::Bpp15));
        assert!(parse_depth("16").unwrap_err().contains("15-bit"));
        assert!(parse_finite("nan").is_err() && parse_finite("-inf").is_err());
        assert_eq!(parse_finite("-12.5"), Ok(-12.5));
        assert!(parse_positive("0").is_err() && parse_fov("171").is_err());
        assert_eq!(
            numbered(Path::new("a/b.png"), 7),
            PathBuf::from("a/b_0007.png")
        );
    }
}
