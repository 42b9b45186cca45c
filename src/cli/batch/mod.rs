//! `psxrender batch JOBS.jsonl`: renders every job of a manifest (one JSON object a line, the
//! render command's long options as keys), several at a time, each as a child process, a
//! failure reported and passed over; writes a report that `--resume` reads to skip finished
//! work, takes one shard of the jobs with `--shard I/N`, and merges shard reports with
//! `--merge-reports`. See docs/batch.md.

pub mod child;
mod exec;
mod plan;
mod worker;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Args as ClapArgs;

use psxrender::batch::confine::Confinement;
use psxrender::batch::manifest;
use psxrender::batch::report::{self, Journal, Kept, MergeError, Report, Status};
use psxrender::batch::shard::Shard;
use psxrender::output::plan::OutputPlan;

use super::{EXIT_BAD_INPUT, EXIT_WRITE_FAILED};

/// Render every job of a manifest (JSON Lines or TOML), resumable and shardable
/// (docs/batch.md).
///
/// A JSON Lines manifest holds one job a line: `{"model": PATH, "out": PATH, ...}`, every other
/// key a long option of the render command without its dashes (`"frames": "0..30"`, `"gif":
/// true`, `"texture": ["11=skin.blp"]`); a `.toml` one holds `[[job]]` tables with the same
/// keys. Paths are relative to the manifest's folder and must stay inside it (or a
/// --search-path folder) unless --allow-outside; a `model` glob (`*`, `?`) makes one job per
/// file, `{stem}` in `out` naming each.
///
/// Exit codes: 0 every job ok or skipped; 1 a job failed (or --merge-reports found a shard
/// missing or another manifest's report); 2 a bad manifest (nothing rendered); 3 an output
/// that would replace an input, another output or a non-file (nothing rendered), or the
/// report could not be written.
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The manifest (`.jsonl`, or `.toml`); with --merge-reports, the shard reports to merge.
    #[arg(value_name = "MANIFEST|REPORTS", required = true)]
    pub inputs: Vec<PathBuf>,
    /// The report [default: beside the manifest, JOBS.jsonl.report.json; with --shard I/N,
    /// JOBS.jsonl.shard-I-of-N.report.json]. With --merge-reports: the merged report.
    #[arg(long, value_name = "PATH")]
    pub report: Option<PathBuf>,
    /// Skip every job whose outputs are as the report recorded them and whose inputs (model
    /// and texture bytes, options, psxrender version) hash as they did.
    #[arg(long)]
    pub resume: bool,
    /// Take shard I of N (0 to N-1): the jobs whose output path hashes to I, the same part on
    /// every machine and in any job order. Example: `--shard $SLURM_ARRAY_TASK_ID/4`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// Jobs rendered at once [default: the number of CPUs]; a job whose line does not set
    /// `threads` gets CPUs / N threads.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,
    /// Where the jobs keep textures in PS1 form for each other (the render command's
    /// `--cache`) [default: beside the report, JOBS.texture-cache, shared by the shards]. The
    /// pictures are the same with or without it.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Every job converts its textures afresh.
    #[arg(long = "no-cache", conflicts_with = "cache")]
    pub no_cache: bool,
    /// Check the manifest and list the jobs (of this shard) without rendering.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// Let the manifest name models, textures and outputs outside its own folder (and the
    /// --search-path folders): for a manifest you wrote yourself.
    #[arg(long = "allow-outside")]
    pub allow_outside: bool,
    /// A folder the manifest's models and textures may also come from (repeatable); paths in
    /// the manifest stay relative to its own folder.
    #[arg(long = "search-path", value_name = "DIR")]
    pub search_paths: Vec<PathBuf>,
    /// Merge the reports given (one per shard) into the one --report names.
    #[arg(long = "merge-reports", requires = "report", conflicts_with_all = ["resume", "shard", "jobs", "dry_run"])]
    pub merge_reports: bool,
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    s.parse()
}

pub fn run(args: Args) -> ExitCode {
    if args.merge_reports {
        return merge(
            &args.inputs,
            args.report.as_deref().unwrap_or(Path::new("report.json")),
        );
    }
    let [manifest_path] = args.inputs.as_slice() else {
        eprintln!("error: batch takes one manifest (several files only with --merge-reports)");
        return ExitCode::from(EXIT_BAD_INPUT);
    };
    let base = match manifest_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let confine = match Confinement::new(&base, &args.search_paths, args.allow_outside) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    let planned = psxrender::formats::files::one_pass(|| {
        manifest::read(manifest_path)
            .and_then(|entries| plan::plan(manifest_path, &base, &entries, &confine))
    });
    let jobs = match planned {
        Ok(j) => j,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    let report_path = args
        .report
        .clone()
        .unwrap_or_else(|| default_report(manifest_path, args.shard));
    let journal_path = report::journal_path(&report_path);
    // Every job, not only this shard's: two jobs writing one file may fall in two shards.
    let all: Vec<&plan::Job> = jobs.iter().collect();
    let extra = [
        (report_path.as_path(), "--report"),
        (journal_path.as_path(), "the report's journal"),
    ];
    let claimed =
        psxrender::formats::files::one_pass(|| plan::claim(manifest_path, &base, &all, &extra));
    if let Err(e) = claimed {
        eprintln!("error: {e}");
        return ExitCode::from(EXIT_WRITE_FAILED);
    }
    let shard = args.shard.unwrap_or(Shard::ALL);
    let mine: Vec<&plan::Job> = jobs.iter().filter(|j| shard.takes(&j.key)).collect();
    if args.dry_run {
        for j in &mine {
            outln!(
                "line {}: {} -> {} ({} frames)",
                j.line,
                j.model,
                j.out,
                j.frames
            );
        }
        outln!("{} jobs, {} in shard {shard}", jobs.len(), mine.len());
        return ExitCode::SUCCESS;
    }
    let previous = if args.resume {
        match report::previous(&report_path) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: --resume: {e}");
                return ExitCode::from(EXIT_BAD_INPUT);
            }
        }
    } else {
        let _ = std::fs::remove_file(&journal_path);
        Default::default()
    };
    let mut journal = match Journal::open(&journal_path) {
        Ok(j) => j,
        Err(e) => return super::write_failed(&journal_path, e),
    };
    let runner = match runner(
        &args,
        manifest_path,
        &report_path,
        &base,
        mine.len(),
        previous,
    ) {
        Ok(r) => r,
        Err(code) => return code,
    };
    // The manifest as it was planned: --merge-reports merges only shards of one manifest.
    let manifest_hash = psxrender::batch::hash::file(manifest_path).ok();
    let start = Instant::now();
    let kept = runner.run(&mine, &mut journal);
    let seconds = start.elapsed().as_secs_f64();
    let head = Report {
        psxrender: exec::VERSION.to_string(),
        manifest: manifest_path.display().to_string(),
        shard: args.shard.map(|s| s.to_string()),
        manifest_hash,
        jobs: Vec::new(),
    };
    let code = finish(&kept, &head, &journal_path, &report_path, seconds);
    drop(journal);
    if code != ExitCode::from(EXIT_WRITE_FAILED) {
        let _ = std::fs::remove_file(&journal_path);
    }
    code
}

/// The runner of `jobs` jobs: how many at once, threads each, and the texture cache they share.
fn runner(
    args: &Args,
    manifest_path: &Path,
    report_path: &Path,
    base: &Path,
    jobs: usize,
    previous: report::Previous,
) -> Result<exec::Runner, ExitCode> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = args.jobs.map_or(cpus, |n| n as usize).clamp(1, jobs.max(1));
    let cache = (!args.no_cache).then(|| {
        let dir = args
            .cache
            .clone()
            .unwrap_or_else(|| default_cache(manifest_path, report_path));
        // Jobs run in the manifest's folder: the folder named from here, wherever that is.
        std::path::absolute(&dir).unwrap_or(dir)
    });
    match std::env::current_exe() {
        Ok(exe) => Ok(exec::Runner {
            exe,
            base: base.to_path_buf(),
            cache,
            workers,
            threads_per_job: (cpus / workers).max(1),
            previous,
        }),
        Err(e) => {
            eprintln!("error: cannot find the psxrender binary to run jobs: {e}");
            Err(ExitCode::from(EXIT_BAD_INPUT))
        }
    }
}

/// Writes the report from the records `kept` in the journal at `journal_path`, one at a time,
/// and prints the summary.
fn finish(
    kept: &[Kept],
    head: &Report,
    journal_path: &Path,
    report_path: &Path,
    seconds: f64,
) -> ExitCode {
    let mut tally = Tally::default();
    let records = kept.iter().map(|k| {
        let e = k.entry(journal_path)?;
        tally.add(&e);
        Ok(e)
    });
    if let Err(e) = report::write_streamed(report_path, head, records) {
        return super::write_failed(report_path, e);
    }
    let failures = (tally.failed.iter()).filter_map(|&i| kept[i].entry(journal_path).ok());
    summarize(&tally, failures, seconds, report_path)
}

/// `DIR/NAME.EXT.report.json` for `DIR/NAME.EXT`; `NAME.EXT.shard-I-of-N.report.json` for a
/// shard. The manifest's extension is kept, so `jobs.jsonl` and `jobs.toml` in one folder
/// never share a report (and its resume state).
fn default_report(manifest: &Path, shard: Option<Shard>) -> PathBuf {
    let stem = manifest
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "batch".into());
    let name = match shard {
        Some(s) => format!("{stem}.shard-{}-of-{}.report.json", s.index, s.count),
        None => format!("{stem}.report.json"),
    };
    manifest.with_file_name(name)
}

/// `JOBS.texture-cache` beside `report`, for the manifest `JOBS.jsonl`: one for all its shards.
fn default_cache(manifest: &Path, report: &Path) -> PathBuf {
    let stem = manifest
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "batch".into());
    report.with_file_name(format!("{stem}.texture-cache"))
}

/// A run's totals, counted one record at a time.
#[derive(Default)]
struct Tally {
    jobs: usize,
    ok: usize,
    skipped: usize,
    /// Frames of the jobs rendered.
    frames: u64,
    /// Which records (by position) are failures.
    failed: Vec<usize>,
}

impl Tally {
    fn add(&mut self, e: &report::Entry) {
        match e.status {
            Status::Ok => {
                self.ok += 1;
                self.frames += e.frames;
            }
            Status::Skipped => self.skipped += 1,
            Status::Failed => self.failed.push(self.jobs),
        }
        self.jobs += 1;
    }
}

/// Prints the totals and every failure (`failures`, the records `tally.failed` names); exit 1
/// if a job failed.
fn summarize(
    tally: &Tally,
    failures: impl Iterator<Item = report::Entry>,
    seconds: f64,
    path: &Path,
) -> ExitCode {
    let Tally {
        jobs,
        ok,
        skipped,
        frames,
        ..
    } = *tally;
    let failed = tally.failed.len();
    let rate = if seconds > 0.0 {
        format!(", {:.1} frames/s", frames as f64 / seconds)
    } else {
        String::new()
    };
    outln!(
        "{jobs} jobs: {ok} ok, {skipped} skipped, {failed} failed; {frames} frames in {seconds:.1} s{rate}; report {}",
        path.display()
    );
    for j in failures {
        outln!(
            "failed: line {} {} -> {}: {}",
            j.line,
            j.model,
            j.key,
            j.error.as_deref().unwrap_or("?")
        );
    }
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `--merge-reports`: the shard reports in `inputs` as one report at `out`.
fn merge(inputs: &[PathBuf], out: &Path) -> ExitCode {
    let mut plan = OutputPlan::new();
    let claimed = (inputs.iter())
        .try_for_each(|p| plan.input(p, "a report to merge"))
        .and_then(|()| plan.output(out, "--report"));
    if let Err(e) = claimed {
        eprintln!("error: {e}");
        return ExitCode::from(EXIT_WRITE_FAILED);
    }
    let mut reports = Vec::with_capacity(inputs.len());
    for p in inputs {
        match report::read(p) {
            Ok(r) => reports.push((p.clone(), r)),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_BAD_INPUT);
            }
        }
    }
    let merged = match report::merge(&reports) {
        Ok(m) => m,
        Err(e @ MergeError::Overlap(_)) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
        // Not bad input but an incomplete or mixed set: the merge "failed", as a job would.
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = report::write(out, &merged) {
        eprintln!("error: cannot write {}: {e}", out.display());
        return ExitCode::from(EXIT_WRITE_FAILED);
    }
    let seconds = merged.jobs.iter().map(|j| j.seconds).sum();
    let mut tally = Tally::default();
    merged.jobs.iter().for_each(|j| tally.add(j));
    let failures = tally.failed.iter().map(|&i| merged.jobs[i].clone());
    summarize(&tally, failures, seconds, out)
}
