//! `psxrender compare DIR_A DIR_B`: two sequences of pictures compared frame by frame
//! ([`psxrender::capture::pairs`]).

use std::process::ExitCode;

use psxrender::capture::compare::Options;
use psxrender::capture::pairs::{self, Outcome, Summary};
use psxrender::output::save_png_rgb;

use super::super::EXIT_BAD_INPUT;
use super::Args;

pub fn run(args: &Args) -> ExitCode {
    let listed = pairs::listing(&args.a).and_then(|a| Ok((a, pairs::listing(&args.b)?)));
    let ((a, b), ignore) = match (listed, super::mask(args)) {
        (Ok(ab), Ok(ig)) => (ab, ig),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    for (side, l) in [(&args.a, &a), (&args.b, &b)] {
        if l.unnumbered > 0 {
            eprintln!(
                "note: {}: {} picture file(s) with no frame number in the name left out ({}{})",
                side.display(),
                l.unnumbered,
                l.unnumbered_names.join(", "),
                if l.unnumbered > 3 { ", ..." } else { "" }
            );
        }
    }
    let (a, b) = (a.frames, b.frames);
    outln!("A: {}: {} numbered pictures", args.a.display(), a.len());
    outln!("B: {}: {} numbered pictures", args.b.display(), b.len());
    if let Some(dir) = &args.diff {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: cannot make directory {}: {e}", dir.display());
            // compare's contract: 0 equal, 1 different, 2 any error.
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    }
    let opts = Options {
        tolerance: args.tolerance,
        ignore,
    };
    let mut numbers: Vec<u64> = a.keys().chain(b.keys()).copied().collect();
    numbers.sort_unstable();
    numbers.dedup();
    let mut summary = Summary::default();
    let mut outcomes = Vec::new();
    for n in numbers {
        let outcome = match (a.get(&n), b.get(&n)) {
            (Some(pa), Some(pb)) => {
                match pairs::compare_files(pa, pb, &opts, args.diff.is_some()) {
                    Ok((report, diff)) => {
                        if let (Some(dir), Some(pic)) = (&args.diff, diff) {
                            let path = dir.join(format!("diff_{n:04}.png"));
                            if let Err(e) = save_png_rgb(&path, pic.width, pic.height, &pic.rgb) {
                                eprintln!("error: cannot write {}: {e}", path.display());
                                return ExitCode::from(EXIT_BAD_INPUT);
                            }
                        }
                        Outcome::Compared(report)
                    }
                    Err(e) => {
                        eprintln!("error: frame {n}: {e}");
                        return ExitCode::from(EXIT_BAD_INPUT);
                    }
                }
            }
            (Some(_), None) => Outcome::OnlyInA,
            _ => Outcome::OnlyInB,
        };
        if let Some(line) = pairs::line(n, &outcome) {
            outln!("{line}");
        }
        summary.add(n, &outcome);
        if args.html.is_some() {
            outcomes.push((n, outcome));
        }
    }
    out!("{summary}");
    if let Some(dir) = &args.html {
        let (sa, sb) = ((args.a.as_path(), &a), (args.b.as_path(), &b));
        if let Err(e) = super::html::write(dir, sa, sb, &opts, &outcomes, &summary) {
            eprintln!("error: --html: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
        outln!("wrote {}", dir.join("index.html").display());
    }
    super::verdict(summary.passed())
}
