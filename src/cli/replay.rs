//! `psxrender replay INPUT`: run a text stream or a GPU dump from power-on and save VRAM and/or
//! the displayed picture.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args as ClapArgs;

use psxrender::capture::compressed::MaxDecoded;
use psxrender::capture::crop::{self, Crop};
use psxrender::capture::input::Input;
use psxrender::capture::replay;
use psxrender::capture::{compressed, display, history, sequence};
use psxrender::output::{save_png_rgb, write_atomic};

/// Replay a GPU text stream or GPUDUMP (.psxgpu), plain or zstd/xz-compressed (dumps as
/// DuckStation writes them), from power-on; save VRAM and the display, at one frame or every
/// frame of a range.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Text stream (`gp0 HEX` / `gp1 HEX` / `frame` lines) or GPUDUMP file, plain or zstd/xz
    /// compressed; detected by content.
    pub input: PathBuf,
    /// Write the whole VRAM as a 1024x512 PNG (channels (c<<3)|(c>>2), mask bit dropped); with
    /// --frames a directory of numbered PNGs.
    #[arg(long, value_name = "PNG|DIR")]
    pub vram: Option<PathBuf>,
    /// Write the whole VRAM raw: exactly 1 MiB, 1024x512 little-endian u16, mask bit included.
    #[arg(long = "vram-raw", value_name = "BIN")]
    pub vram_raw: Option<PathBuf>,
    /// Write what the TV shows (GP1 display area and mode; black if the display is off); with
    /// --frames a directory of numbered PNGs (DIR/frame_0000.png, ...).
    #[arg(long, value_name = "PNG|DIR")]
    pub display: Option<PathBuf>,
    /// How --display frames the picture: `range` (the whole GP1 display range, as the GPU reads
    /// it out), or DuckStation's crops `overscan` (its default: 320x224 for the standard NTSC
    /// range), `borders` (the range, clamped to the active area) or `full` (the active area,
    /// black around the range). docs/commands.md gives each one's numbers.
    #[arg(long, value_name = "CROP", default_value = "range", value_parser = parse_crop)]
    pub crop: Crop,
    /// Also write the input as a GPUDUMP that emulator dump players open, in the --dump-form
    /// form; a name ending .zst or .xz writes it compressed.
    #[arg(long, value_name = "PSXGPU")]
    pub dump: Option<PathBuf>,
    /// The form of --dump: `duckstation` (its 14-byte magic and packet order; what its dump
    /// player opens) or `spec` (the ps1dev spec's 16-byte magic; PCSX-Redux).
    #[arg(long = "dump-form", value_name = "FORM", default_value = "duckstation",
          value_parser = super::render::parse_dump_form, requires = "dump")]
    pub dump_form: psxrender::capture::dump::Form,
    /// Every frame A to B-1 in one pass (memory of one frame, whatever the capture's length):
    /// with --display DIR and/or --vram DIR one numbered PNG per frame, with --gif an animation.
    /// Frame N is what the TV shows at the (N+1)-th frame mark (what --frame N+1 stops at).
    /// Example: `psxrender replay cap.psxgpu.zst --frames 0..300 --display shots/`
    #[arg(long, value_name = "A..B", value_parser = super::render::parse_range,
          conflicts_with_all = ["frame", "repeat", "history", "vram_raw", "dump"])]
    pub frames: Option<Range<u32>>,
    /// With --frames: an animated GIF of what the TV shows, each picture for as many fields
    /// (1/50 s PAL, 1/60 s NTSC) as it was shown.
    #[arg(long, value_name = "GIF", requires = "frames")]
    pub gif: Option<PathBuf>,
    /// Most bytes a zstd/xz input may decode to, e.g. `2G` (K, M, G: binary units). Default:
    /// 8192 times the file's size and at least 64 MiB, far above what a recording compresses
    /// to and below what a decompression bomb does. --history, --repeat and --dump hold the
    /// input whole: at most 256 MiB decoded.
    #[arg(long = "max-decoded", value_name = "BYTES", value_parser = parse_max_decoded,
          default_value = "auto", hide_default_value = true)]
    pub max_decoded: MaxDecoded,
    /// Stop after N frame marks (`frame` lines / VSync packets); 0 = before the first.
    /// Default: run to the end.
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = super::render::parse_frame)]
    pub frame: Option<u32>,
    /// Rasteriser threads: 0 = all cores, 1 = serial, N = N threads; batches too small to gain
    /// from threads are drawn on the calling thread either way.
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = super::precheck::parse_threads)]
    pub threads: usize,
    /// Print the pixel history of VRAM halfword X,Y: every command that touched it, in order,
    /// with its place in the input, its decoded words, the state it ran with, and at the pixel
    /// the interpolated colour and UV, the texel and the value written (repeatable).
    /// Example: `--history 129,125`
    #[arg(long, value_name = "X,Y", value_parser = parse_xy)]
    pub history: Vec<(u16, u16)>,
    /// With --history: print the histories as one JSON document on standard output (the other
    /// lines go to standard error); docs/serve.md lists its fields. Writes no pictures.
    #[arg(long, requires = "history",
          conflicts_with_all = ["vram", "vram_raw", "display", "dump", "repeat"])]
    pub json: bool,
    /// Time the GPU: parse once, then run N times (N up to 100000) on a fresh GPU (with
    /// --threads, up to --frame), each run timed from the first word to the end of drawing
    /// (parsing and GPU set-up not timed). Prints each run, `cpu X s per run` (user + system
    /// CPU of all threads, from /proc/self/stat; n/a elsewhere), and last `median X s, min Y s,
    /// Z M px/s`, where Z is the pixels the drawing commands cover over the median: triangles
    /// |cross|/2, quads as two triangles, rectangles and fills w*h, lines max(|dx|,|dy|)+1,
    /// before clipping (uploads and copies not counted). Outputs are written once, from the
    /// last run.
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(replay::MAX_REPEAT)))]
    pub repeat: Option<u32>,
}

/// `X,Y` inside VRAM.
fn parse_xy(s: &str) -> Result<(u16, u16), String> {
    let bad = || format!("'{s}' is not X,Y with X in 0..=1023 and Y in 0..=511");
    let (x, y) = s.split_once(',').ok_or_else(bad)?;
    let x: u16 = x.trim().parse().map_err(|_| bad())?;
    let y: u16 = y.trim().parse().map_err(|_| bad())?;
    if x > 1023 || y > 511 {
        return Err(bad());
    }
    Ok((x, y))
}

/// `--max-decoded`: `auto` (the relative default), or bytes with an optional K, M or G suffix
/// (binary units).
pub fn parse_max_decoded(s: &str) -> Result<MaxDecoded, String> {
    if s.eq_ignore_ascii_case("auto") {
        return Ok(MaxDecoded::Relative);
    }
    let bad = || format!("'{s}' is not a byte count (such as 300000000, 512M or 4G)");
    let t = s.trim();
    let (digits, shift) = match t.as_bytes().last().map(u8::to_ascii_uppercase) {
        Some(b'K') => (&t[..t.len() - 1], 10),
        Some(b'M') => (&t[..t.len() - 1], 20),
        Some(b'G') => (&t[..t.len() - 1], 30),
        _ => (t, 0),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    n.checked_mul(1 << shift)
        .map(MaxDecoded::Bytes)
        .ok_or_else(bad)
}

/// A `--crop` name.
pub fn parse_crop(s: &str) -> Result<Crop, String> {
    Crop::from_name(s)
        .ok_or_else(|| format!("'{s}' is not a crop: range, overscan, borders or full"))
}

/// Reports an output written (or not: exit status 3).
fn saved(path: &Path, result: std::io::Result<()>, status: &mut ExitCode) {
    match result {
        Ok(()) => outln!("wrote {}", path.display()),
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", path.display());
            *status = ExitCode::from(3);
        }
    }
}

pub fn run(args: Args) -> ExitCode {
    if let Some(range) = args.frames.clone() {
        let out = super::replay_frames::Outputs {
            display: args.display.as_deref(),
            vram: args.vram.as_deref(),
            gif: args.gif.as_deref(),
            crop: args.crop,
        };
        return super::replay_frames::run(&args.input, range, args.threads, args.max_decoded, &out);
    }
    let outputs = [
        (&args.vram, "--vram"),
        (&args.vram_raw, "--vram-raw"),
        (&args.display, "--display"),
        (&args.dump, "--dump"),
    ];
    let outputs = outputs
        .into_iter()
        .filter_map(|(p, what)| Some((p.as_ref()?, what)));
    if let Err(e) = super::precheck::check_outputs(outputs, &[&args.input]) {
        eprintln!("error: {e}");
        return ExitCode::from(3);
    }
    // With --json, standard output holds the JSON document alone.
    let say = |line: String| match args.json {
        true => eprintln!("{line}"),
        false => outln!("{line}"),
    };
    let mut status = ExitCode::SUCCESS;
    // --history, --repeat and --dump need the whole input at hand; a plain run plays it as it
    // is read, so a recording of any length replays in the memory of one packet.
    let whole = !args.history.is_empty() || args.repeat.is_some() || args.dump.is_some();
    let played = match whole {
        true => run_whole(&args, &say, &mut status),
        false => run_streamed(&args, &say),
    };
    let Played {
        mut done,
        input,
        timing,
    } = match played {
        Ok(p) => p,
        Err(code) => return code,
    };
    say(format!("ran {} frames", done.frames_run));
    let events = done.gpu.history().to_vec();
    let locate = |w| input.as_ref().and_then(|i| i.locate_gp0(w));
    let mut pixels = Vec::new();
    for &(x, y) in &args.history {
        let mine: Vec<_> = events.iter().filter(|e| (e.x, e.y) == (x, y)).collect();
        if args.json {
            pixels.push(history::json((x, y), &mine, locate));
            continue;
        }
        out!("{}", history::report((x, y), &mine, locate));
    }
    if args.json {
        outln!("{:#}", serde_json::json!({ "pixels": pixels }));
    }
    let shown = done.gpu.display();
    let (h, v) = done.gpu.display_ranges();
    let vram = done.gpu.vram();
    let mut save = |path: &Path, result| saved(path, result, &mut status);
    if let Some(p) = &args.vram {
        let pic = display::vram_picture(vram);
        save(p, save_png_rgb(p, pic.width, pic.height, &pic.rgb));
    }
    if let Some(p) = &args.vram_raw {
        save(p, write_atomic(p, &display::vram_raw(vram)));
    }
    if let Some(p) = &args.display {
        if !shown.enabled {
            eprintln!(
                "note: the display is disabled (GP1(03h)), so the TV shows black; \
                 use --vram to see VRAM"
            );
        }
        let pic = crop::shown(vram, &shown, h, v, args.crop);
        outln!(
            "display: {}x{} {}-bit at ({}, {})",
            pic.width,
            pic.height,
            if shown.depth24 { 24 } else { 15 },
            shown.x,
            shown.y
        );
        save(p, save_png_rgb(p, pic.width, pic.height, &pic.rgb));
    }
    for line in timing.into_iter().flatten() {
        outln!("{line}");
    }
    status
}

/// A replay run, and what it needs from the input afterwards.
struct Played {
    /// The GPU as the run left it.
    done: replay::Replayed,
    /// The input, when it was read whole (for --history).
    input: Option<Input>,
    /// The lines --repeat prints.
    timing: Option<Vec<String>>,
}

/// Loads the input whole (memory capped), writes --dump, and runs it (--repeat times).
fn run_whole(args: &Args, say: &dyn Fn(String), status: &mut ExitCode) -> Result<Played, ExitCode> {
    let input = Input::load(&args.input).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    if let Input::Dump(d) = &input {
        for w in &d.warnings {
            eprintln!("warning: {}: {w}", args.input.display());
        }
    }
    say(input.summary());
    if let Some(p) = &args.dump {
        match input.to_dump(args.dump_form) {
            Ok(bytes) => saved(p, compressed::write_dump(p, &bytes), status),
            Err(e) => {
                eprintln!("error: {e}");
                return Err(ExitCode::from(2));
            }
        }
    }
    let opts = replay::Options {
        frame: args.frame.map(u64::from),
        threads: args.threads,
        watch: args.history.clone(),
        ..Default::default()
    };
    let (result, timing) = match args.repeat {
        None => (replay::run(&input, opts), None),
        Some(n) => match replay::repeat(&input, &opts, n as usize) {
            Ok(t) => {
                let lines = timing_lines(&t);
                (Ok(t.last), Some(lines))
            }
            Err(e) => (Err(e), None),
        },
    };
    let done = result.map_err(|e| {
        eprintln!("error: {}: {e}", args.input.display());
        ExitCode::from(2)
    })?;
    Ok(Played {
        done,
        input: Some(input),
        timing,
    })
}

/// Plays the input as it is read ([`sequence::run_to`]), a compressed one decoding to at most
/// what --max-decoded allows.
fn run_streamed(args: &Args, say: &dyn Fn(String)) -> Result<Played, ExitCode> {
    let bad = |e: &dyn std::fmt::Display| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    };
    let mut opened = sequence::open(&args.input, args.max_decoded).map_err(|e| bad(&e))?;
    let mut gpu = replay::new_gpu(&replay::Options {
        threads: args.threads,
        ..Default::default()
    });
    let ran = sequence::run_to(&mut opened.packets, &mut gpu, args.frame.map(u64::from));
    for w in opened.packets.take_warnings() {
        eprintln!("warning: {}: {w}", args.input.display());
    }
    let frames_run = ran
        .map_err(|e| bad(&e))?
        .map_err(|e| bad(&format!("{}: {e}", args.input.display())))?;
    say(opened.summary());
    Ok(Played {
        done: replay::Replayed { gpu, frames_run },
        input: None,
        timing: None,
    })
}

/// What `--repeat` prints, in order: each run, the CPU time per run, and the summary line
/// (which must stay last: scripts read it).
fn timing_lines(t: &replay::Timing) -> Vec<String> {
    let mut lines: Vec<String> = (t.runs.iter().enumerate())
        .map(|(i, d)| format!("run {}: {:.4} s", i + 1, d.as_secs_f64()))
        .collect();
    lines.push(format!(
        "cpu {} s per run",
        psxrender::cpu_time::format_seconds(t.cpu_per_run)
    ));
    lines.push(t.summary());
    lines
}
