//! Manifest entries into jobs: each key becomes the render command's long option and the
//! whole line is parsed by the render command's own clap parser, so a manifest accepts exactly
//! what the command line does; errors name the manifest line and key. Before anything renders:
//! unknown keys, bad values, missing models and paths leading outside the manifest's folder
//! are refused ([`plan`]), then two jobs writing one file, an output that is an input and an
//! output that is not a regular file ([`claim`]).

use std::path::Path;

use clap::error::{ContextKind, ContextValue};
use clap::{ArgAction, CommandFactory, FromArgMatches, Parser};

use psxrender::batch::confine::Confinement;
use psxrender::batch::glob;
use psxrender::batch::manifest::{normalize, Entry, ManifestError, OptionValue, MAX_JOBS};
use psxrender::output::plan::{OutputPlan, Refusal};

use crate::cli::render::{self, Written};

/// A render command line, parsed exactly as the default command parses it.
#[derive(Parser, Debug)]
#[command(name = "psxrender")]
struct RenderLine {
    #[command(flatten)]
    args: render::Args,
}

/// Manifest keys spelt differently from their option: `model` is the model path, so the FF9
/// cluster index `--model N` is `model-index`.
const RENAMED: [(&str, &str); 1] = [("model-index", "model")];
/// Long options of the parser that are not render options.
const NOT_OPTIONS: [&str; 2] = ["help", "version"];

/// One job, ready to run.
#[derive(Clone, Debug)]
pub(super) struct Job {
    /// Its manifest line.
    pub line: usize,
    /// The model, relative to the manifest's folder.
    pub model: String,
    /// Whether `model` is one file of its line's glob (messages then name it).
    pub from_glob: bool,
    /// The main output, relative to the manifest's folder.
    pub out: String,
    /// `out` normalized: the job's identity for shards, reports and resume.
    pub key: String,
    /// The render options as arguments (`--key=value`, `--switch`).
    pub options: Vec<String>,
    /// Every file the job writes, relative to the manifest's folder.
    pub outputs: Vec<String>,
    /// What each of `outputs` is.
    pub written: Vec<Written>,
    /// The files its options name for the loader (textures...), with the option.
    pub reads: Vec<(String, &'static str)>,
    /// Frames it renders (frames × yaw steps for a turntable sheet).
    pub frames: u64,
    /// Whether the manifest set `threads` for it.
    pub sets_threads: bool,
}

impl Job {
    /// What the job's picture depends on besides its input files: model, output and options
    /// (`threads` left out: any thread count draws the same picture).
    pub fn identity(&self) -> Vec<String> {
        let mut v = vec![format!("model={}", self.model), format!("out={}", self.out)];
        v.extend(
            self.options
                .iter()
                .filter(|o| !o.starts_with("--threads="))
                .cloned(),
        );
        v
    }
}

/// Plans every job of `entries` (read from `file`; paths relative to `base`), every path
/// confined by `confine`.
pub(super) fn plan(
    file: &Path,
    base: &Path,
    entries: &[Entry],
    confine: &Confinement,
) -> Result<Vec<Job>, ManifestError> {
    let mut cmd = RenderLine::command();
    cmd.build();
    let mut jobs = Vec::new();
    for e in entries {
        let options = arguments(file, e, &cmd)?;
        for x in e.expand(file, base)? {
            let options: Vec<String> = options
                .iter()
                .map(|o| o.replace("{stem}", &x.stem))
                .collect();
            let argv = ["psxrender".to_string()]
                .into_iter()
                .chain(options.iter().cloned())
                .chain(["--".into(), x.model.clone(), x.out.clone()]);
            // The one parser for every line: building it is most of a line's cost.
            let parsed = (cmd.try_get_matches_from_mut(argv))
                .and_then(|mut m| RenderLine::from_arg_matches_mut(&mut m))
                .map_err(|err| clap_error(file, e.line, &err))?;
            let (written, frames) = parsed.args.render.outputs(Path::new(&x.out));
            let err = |key: &str, m: String| ManifestError::new(file, e.line, Some(key), m);
            confine
                .check(Path::new(&x.model), true)
                .map_err(|m| err("model", m))?;
            let named = parsed.args.loader.paths();
            for p in &named {
                let key = p.option.trim_start_matches("--");
                confine.check(p.path, true).map_err(|m| err(key, m))?;
            }
            for (p, w) in &written {
                confine.check(p, false).map_err(|m| err(w.key(), m))?;
            }
            if jobs.len() >= MAX_JOBS {
                return Err(err("model", format!("more than {MAX_JOBS} jobs")));
            }
            let s = |p: &Path| p.to_string_lossy().into_owned();
            jobs.push(Job {
                line: e.line,
                key: normalize(Path::new(&x.out)).to_string_lossy().into_owned(),
                reads: (named.iter())
                    .filter(|p| !p.folder)
                    .map(|p| (s(p.path), p.option))
                    .collect(),
                model: x.model,
                from_glob: glob::is_pattern(e.model()),
                out: x.out,
                options,
                outputs: written.iter().map(|(p, _)| s(p)).collect(),
                written: written.iter().map(|(_, w)| *w).collect(),
                frames,
                sets_threads: e.sets("threads"),
            });
        }
    }
    Ok(jobs)
}

/// Every file of the batch claimed before anything runs ([`OutputPlan`]): the manifest, each
/// job's model and texture files as inputs, each job's outputs, and `extra` (the report and
/// its journal). `Err` names both paths of the first clash.
pub(super) fn claim(
    file: &Path,
    base: &Path,
    jobs: &[&Job],
    extra: &[(&Path, &str)],
) -> Result<(), Refusal> {
    let mut plan = OutputPlan::new();
    plan.input(file, "the manifest")?;
    // A file of a glob line is named by its model too: the line alone does not tell them apart.
    let at = |j: &Job, key: &str| match j.from_glob {
        true => format!("line {}, key \"{key}\", model {}", j.line, j.model),
        false => format!("line {}, key \"{key}\"", j.line),
    };
    for j in jobs {
        plan.input(&base.join(&j.model), at(j, "model"))?;
        for (p, option) in &j.reads {
            plan.input(&base.join(p), at(j, option.trim_start_matches("--")))?;
        }
    }
    for j in jobs {
        for (o, w) in j.outputs.iter().zip(&j.written) {
            let what = match w {
                Written::Frame(n) => format!("{}, frame {n}", at(j, "out")),
                Written::SheetIndex => format!("{}, its sheet index", at(j, "out")),
                _ => at(j, w.key()),
            };
            plan.output(&base.join(o), what)?;
        }
    }
    for (p, what) in extra {
        plan.output(p, *what)?;
    }
    Ok(())
}

/// The entry's keys as render arguments, each checked against the option it names.
fn arguments(file: &Path, e: &Entry, cmd: &clap::Command) -> Result<Vec<String>, ManifestError> {
    let mut argv = Vec::new();
    for (key, value) in &e.options() {
        let err = |m: String| ManifestError::new(file, e.line, Some(key), m);
        let long = RENAMED
            .iter()
            .find(|(k, _)| k == key)
            .map_or(key.as_str(), |(_, l)| l);
        let arg = (!NOT_OPTIONS.contains(&key.as_str()))
            .then(|| cmd.get_arguments().find(|a| a.get_long() == Some(long)))
            .flatten()
            .ok_or_else(|| {
                err(
                    "unknown key: not a long option of the render command (`psxrender --help`)"
                        .into(),
                )
            })?;
        match (arg.get_action(), value) {
            (ArgAction::SetTrue, OptionValue::Switch(on)) => {
                if *on {
                    argv.push(format!("--{long}"));
                }
            }
            (ArgAction::SetTrue, _) => return Err(err("is a switch: true or false".into())),
            (_, OptionValue::Switch(_)) => {
                return Err(err("takes a value, not true/false".into()));
            }
            (ArgAction::Append, OptionValue::List(items)) => {
                argv.extend(items.iter().map(|v| format!("--{long}={v}")));
            }
            (_, OptionValue::List(_)) => return Err(err("takes one value, not a list".into())),
            (_, OptionValue::Text(v)) => argv.push(format!("--{long}={v}")),
        }
    }
    Ok(argv)
}

/// A parse error of a job's arguments as a manifest error naming the key it is about.
fn clap_error(file: &Path, line: usize, err: &clap::Error) -> ManifestError {
    let key = match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => key_of(s),
        Some(ContextValue::Strings(v)) => v.first().and_then(|s| key_of(s)),
        _ => None,
    };
    // clap's message up to its usage and help hints, on one line.
    let text = err.to_string();
    let message: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !(l.starts_with("Usage:") || l.starts_with("For more information")))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect();
    let first = message.join(" ").trim_start_matches("error: ").to_string();
    ManifestError::new(file, line, key.as_deref(), first)
}

/// `--frames <A..B>` → `frames`; the positionals → `model` / `out`.
fn key_of(arg: &str) -> Option<String> {
    if let Some(rest) = arg.strip_prefix("--") {
        let long = rest.split([' ', '=']).next().unwrap_or(rest);
        let key = RENAMED
            .iter()
            .find(|(_, l)| *l == long)
            .map_or(long, |(k, _)| k);
        return Some(key.to_string());
    }
    if arg.contains("MODEL") {
        Some("model".into())
    } else if arg.contains("OUT") {
        Some("out".into())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use psxrender::batch::manifest::parse_jsonl;

    /// Plans `text` as a manifest in a scratch folder of its own (tests run in parallel),
    /// removed afterwards.
    fn plan_text(text: &str) -> Result<Vec<Job>, String> {
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("psxr-plan-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for m in ["a.glb", "b.glb"] {
            std::fs::write(dir.join(m), b"x").unwrap();
        }
        let file = dir.join("jobs.jsonl");
        let confine = Confinement::new(&dir, &[], false).unwrap();
        let planned = parse_jsonl(&file, text)
            .and_then(|e| plan(&file, &dir, &e, &confine))
            .map_err(|e| e.to_string())
            .and_then(|jobs| {
                let mine: Vec<&Job> = jobs.iter().collect();
                claim(&file, &dir, &mine, &[]).map_err(|e| e.to_string())?;
                Ok(jobs)
            });
        let _ = std::fs::remove_dir_all(&dir);
        planned
    }

    #[test]
    fn keys_become_render_options() {
        let jobs = plan_text(
            r#"{"model": "a.glb", "out": "o/a.gif", "frames": "0..30", "gif": true, "yaw": -20, "model-index": 1, "unlit": false}
{"model": "*.glb", "out": "o/{stem}.png", "frames": "2..4", "vram": "o/{stem}-vram.png"}
{"model": "b.glb", "out": "s.png", "frames": "0..3", "sheet": "auto", "yaw-steps": 2, "threads": 1}"#,
        )
        .unwrap();
        assert_eq!(jobs.len(), 4);
        assert_eq!(
            jobs[0].options,
            ["--frames=0..30", "--gif", "--yaw=-20", "--model=1"]
        );
        assert_eq!((jobs[0].outputs.len(), jobs[0].frames), (1, 30));
        assert_eq!(
            jobs[1].outputs,
            ["o/a_0002.png", "o/a_0003.png", "o/a-vram.png"]
        );
        assert_eq!(jobs[2].key, "o/b.png");
        assert_eq!(
            (jobs[3].outputs.clone(), jobs[3].frames),
            (vec!["s.png".to_string(), "s.json".into()], 6)
        );
        assert!(jobs[3].sets_threads && !jobs[0].sets_threads);
        assert!(!jobs[3].identity().iter().any(|o| o.contains("threads")));
    }

    #[test]
    fn refuses_bad_lines_naming_line_and_key() {
        let e = |t: &str| plan_text(t).unwrap_err();
        let ok = r#"{"model": "a.glb", "out": "a.png"}"#;
        let cases = [
            (
                r#"{"model": "a.glb", "out": "x.png", "colour": 3}"#,
                "line 2, key \"colour\": unknown key",
            ),
            (
                r#"{"model": "a.glb", "out": "x.png", "help": true}"#,
                "key \"help\": unknown key",
            ),
            (
                r#"{"model": "a.glb", "out": "x.png", "frames": "5..5"}"#,
                "key \"frames\": invalid value",
            ),
            (
                r#"{"model": "a.glb", "out": "x.png", "gif": true}"#,
                "line 2, key \"frames\"",
            ),
            (
                r#"{"model": "a.glb", "out": "x.png", "gif": "yes"}"#,
                "key \"gif\": is a switch",
            ),
            (
                r#"{"model": "a.glb", "out": "x.png", "frame": true}"#,
                "key \"frame\": takes a value",
            ),
            (
                r#"{"model": "a.glb", "out": "x.png", "size": ["320x240"]}"#,
                "key \"size\": takes one value",
            ),
            (
                r#"{"model": "nope.glb", "out": "x.png"}"#,
                "line 2, key \"model\": no such file",
            ),
            (
                r#"{"model": "z*.glb", "out": "x.png"}"#,
                "key \"model\": no file matches",
            ),
            (
                r#"{"model": "*.glb", "out": "x.png"}"#,
                "key \"out\": the model glob matches 2 files",
            ),
            (
                r#"{"model": "b.glb", "out": "./a.png"}"#,
                "./a.png (line 2, key \"out\") is also written as ",
            ),
            (
                r#"{"model": "b.glb", "out": "v.png", "vram": "a.png"}"#,
                "a.png (line 2, key \"vram\") is also written as ",
            ),
            (
                r#"{"model": "b.glb", "out": "b.glb"}"#,
                "(line 2, key \"out\") is the input ",
            ),
            (
                r#"{"model": "b.glb", "out": "jobs.jsonl"}"#,
                "(the manifest)",
            ),
            (
                r#"{"model": "b.glb", "out": "../x.png"}"#,
                "line 2, key \"out\": ../x.png leads outside the manifest's folder",
            ),
            (
                r#"{"model": "/etc/passwd", "out": "x.png"}"#,
                "line 2, key \"model\": /etc/passwd leads outside",
            ),
            (
                r#"{"model": "b.glb", "out": "x.png", "dump-gp0": "/tmp/x.psxgpu"}"#,
                "line 2, key \"dump-gp0\": /tmp/x.psxgpu leads outside",
            ),
        ];
        for (line, want) in cases {
            let got = e(&format!("{ok}\n{line}"));
            assert!(got.contains(want), "{line}\n got: {got}\nwant: {want}");
        }
    }
}
