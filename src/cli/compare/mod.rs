//! `psxrender compare A B`: two PS1 pictures compared in 15-bit space.

mod frames;
mod html;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;

use psxrender::capture::compare::{self, Capture, Source};
use psxrender::output::save_png_rgb;

/// Compare two captures (PNG screenshots or VRAM images, or raw 1 MiB VRAM) in 15-bit space,
/// or two sequences of them frame by frame (directories, or patterns like `shots/f_*.png`:
/// paired by the number in each name; one line per differing frame, then the first and the
/// worst). Exit 0 when equal within the tolerance, 1 when not, 2 on bad input or if --diff fails.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// First capture (PNG or raw 1 MiB VRAM), or a directory / pattern of numbered ones.
    pub a: PathBuf,
    /// Second capture, or sequence.
    pub b: PathBuf,
    /// Write a diff image: matching pixels dimmed, differences magenta (yellow if within
    /// the tolerance); for sequences a directory, one diff_NNNN.png per differing frame.
    #[arg(long, value_name = "PNG|DIR")]
    pub diff: Option<PathBuf>,
    /// Largest per-channel difference, in 5-bit units (0-31), still counted as equal.
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=31))]
    pub tolerance: u8,
    /// With two sequences: also write a static report, DIR/index.html and its pictures (per
    /// frame A, B and the difference; the counts; the first differing frame), opened from disk.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Pixels to leave out: a file of `rect X Y W H` lines (hwtests mask.txt format).
    #[arg(long, value_name = "FILE")]
    pub mask: Option<PathBuf>,
}

fn describe(c: &Capture) -> String {
    match c.source {
        Source::RawVram => "raw VRAM 1024x512".to_string(),
        Source::Png(e) => format!("PNG {}x{}, channels {e}", c.width, c.height),
    }
}

/// The rectangles `--mask` leaves out.
pub(super) fn mask(args: &Args) -> Result<Vec<compare::Rect>, psxrender::read::LoadError> {
    match &args.mask {
        None => Ok(Vec::new()),
        Some(m) => psxrender::read::read_file(m, "mask").and_then(|d| {
            compare::parse_mask(&String::from_utf8_lossy(&d)).map_err(|e| e.in_file(m))
        }),
    }
}

pub fn run(args: Args) -> ExitCode {
    if psxrender::capture::pairs::is_sequence(&args.a)
        || psxrender::capture::pairs::is_sequence(&args.b)
    {
        return frames::run(&args);
    }
    if args.html.is_some() {
        eprintln!("error: --html reports two sequences (directories or patterns)");
        return ExitCode::from(2);
    }
    // compare's contract (issue 8): 0 equal, 1 different, 2 any error, an unwritable --diff too.
    if let Err(e) =
        super::precheck::check_outputs(args.diff.iter().map(|d| (d, "--diff")), &[&args.a, &args.b])
    {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let loaded = Capture::load(&args.a).and_then(|a| Ok((a, Capture::load(&args.b)?)));
    let ignore = mask(&args);
    let ((a, b), ignore) = match (loaded, ignore) {
        (Ok(ab), Ok(ig)) => (ab, ig),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    outln!("A: {}: {}", args.a.display(), describe(&a));
    outln!("B: {}: {}", args.b.display(), describe(&b));
    for (name, c) in [("A", &a), ("B", &b)] {
        if c.source == Source::Png(compare::Expansion::Lossy) {
            eprintln!(
                "warning: {name} is not an expanded 15-bit image; channels truncated to 5 bits"
            );
        }
    }
    let aligned = match compare::align(a, b) {
        Ok(al) => al,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some((rect, a_larger)) = aligned.crop {
        outln!(
            "compared {rect} of {}: {} is a centred crop of it (as DuckStation's Overscan \
             screenshot is of the standard NTSC display)",
            if a_larger { "A" } else { "B" },
            if a_larger { "B" } else { "A" },
        );
    }
    if aligned.scale != (1, 1) {
        outln!(
            "undid a {}x{} upscale (nearest neighbour)",
            aligned.scale.0,
            aligned.scale.1
        );
        if aligned.mixed_blocks > 0 {
            eprintln!(
                "warning: {} upscaled blocks are not one colour (filtered upscale?); \
                 compared their top-left pixels",
                aligned.mixed_blocks
            );
        }
    }
    let opts = compare::Options {
        tolerance: args.tolerance,
        ignore,
    };
    let report = compare::compare(&aligned.a, &aligned.b, &opts);
    out!("{report}");
    if let Some(p) = &args.diff {
        let d = compare::diff_image(&aligned.a, &aligned.b, &opts);
        if let Err(e) = save_png_rgb(p, d.width, d.height, &d.rgb) {
            eprintln!("error: cannot write {}: {e}", p.display());
            // compare's contract (issue 8): 0 equal, 1 different, 2 any error.
            return ExitCode::from(2);
        }
        outln!("wrote {}", p.display());
    }
    verdict(report.passed())
}

/// Prints `EQUAL` (exit 0) or `DIFFERENT` (exit 1).
pub(super) fn verdict(passed: bool) -> ExitCode {
    if passed {
        outln!("EQUAL");
        ExitCode::SUCCESS
    } else {
        outln!("DIFFERENT");
        ExitCode::from(1)
    }
}
