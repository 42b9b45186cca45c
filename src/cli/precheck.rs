//! What is checked before any work starts, so a run that cannot succeed fails at once with the
//! option named: the thread count, the outputs' names and writability, a display for `view`.

use std::path::{Path, PathBuf};

use psxrender::output::plan::OutputPlan;

/// Most threads `--threads` may ask for: far above any core count a render gains from, and
/// low enough that starting them is instant.
pub const MAX_THREADS: usize = 256;

/// `--threads N`: 0 (one per core) to [`MAX_THREADS`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a thread count"))?;
    if n > MAX_THREADS {
        return Err(format!(
            "{n} threads asked, at most {MAX_THREADS} (0 = one per core)"
        ));
    }
    Ok(n)
}

/// The output when none is named: the model's file name with `.psx.png` (`.psx.gif` with
/// `--gif`) in the current directory, so it never replaces a texture beside the model.
pub fn default_output(model: &Path, gif: bool) -> PathBuf {
    let stem = model
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "out".into());
    PathBuf::from(format!("{stem}.psx.{}", if gif { "gif" } else { "png" }))
}

/// `Err` naming the first of `outputs` (each with its role: `OUT`, `--vram`) that cannot be
/// written, and why: one of the command's `inputs` (`psxrender model.mdl model.mdl` must not
/// replace the model with a PNG), another of its outputs, not a regular file (a device, FIFO or
/// folder), a folder that is not there, or no permission ([`psxrender::output::plan`]).
pub fn check_outputs<P: AsRef<Path>, S: Into<String>>(
    outputs: impl IntoIterator<Item = (P, S)>,
    inputs: &[&Path],
) -> Result<(), String> {
    let mut plan = OutputPlan::new();
    for i in inputs {
        plan.input(i, "input").map_err(|e| e.to_string())?;
    }
    // Writability is a folder's: tried once per folder (10,000 frames share one).
    let mut folders = std::collections::HashSet::new();
    for (p, what) in outputs {
        let p = p.as_ref();
        plan.output(p, what).map_err(|e| e.to_string())?;
        if folders.insert(p.parent().map(Path::to_path_buf)) {
            psxrender::output::check_writable(p)
                .map_err(|e| format!("cannot write {}: {e} (nothing was written)", p.display()))?;
        }
    }
    Ok(())
}

/// `Err` with what to do when there is no display to open a window on: neither `DISPLAY` (X11)
/// nor `WAYLAND_DISPLAY` is set.
pub fn check_display() -> Result<(), String> {
    let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
    if cfg!(target_os = "linux") && !set("DISPLAY") && !set("WAYLAND_DISPLAY") {
        return Err(format!("no display: DISPLAY is not set (no X server), so `view` cannot open a window; {HEADLESS}"));
    }
    Ok(())
}

/// The hint given when no window can be opened.
pub const HEADLESS: &str =
    "rendering to a file needs no display: `psxrender MODEL OUT.png` (add --frames/--gif for animations)";

/// What `psxrender` with no arguments says: how to render, and every subcommand with its
/// one-line description (clap's own message names only the missing MODEL).
pub fn no_arguments(cli: &clap::Command) -> String {
    let mut s = String::from(
        "psxrender: renders 3D models exactly as PlayStation 1 hardware would draw them.\n\n\
         Render a model:  psxrender MODEL [OUT.png] [options]\n\
         Try it at once:  psxrender demo\n\nSubcommands:\n",
    );
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        // The first clause: the rest is in `SUBCOMMAND --help`.
        let first = about.split([':', ';', '\n']).next().unwrap_or("").trim();
        s.push_str(&format!("  {:<12} {first}\n", sub.get_name()));
    }
    s.push_str(
        "\n`psxrender --help` lists every option; `psxrender SUBCOMMAND --help` each one's.",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_are_capped() {
        assert_eq!(parse_threads("0"), Ok(0));
        assert_eq!(parse_threads("256"), Ok(256));
        assert!(parse_threads("100000").unwrap_err().contains("at most 256"));
        assert!(parse_threads("-1").is_err());
    }

    #[test]
    fn default_output_is_named_after_the_model() {
        assert_eq!(
            default_output(Path::new("a/Rabbit2.m2"), false),
            PathBuf::from("Rabbit2.psx.png")
        );
        assert_eq!(
            default_output(Path::new("Fox.glb"), true),
            PathBuf::from("Fox.psx.gif")
        );
    }
}
