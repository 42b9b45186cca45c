//! `psxrender batch` against hostile or careless input (issue 66, rows 6-8, 10-11, and the
//! messages): every cap holds while reading, `--merge-reports` refuses incomplete or mixed
//! sets, and each message says what happened.

mod cli_run;
mod common;

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use cli_run::{demo_dir, psxrender, run, write_manifest};

fn workdir(name: &str) -> PathBuf {
    demo_dir("batch_hostile", name)
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// Runs psxrender under an address-space limit of `bytes` (one malloc arena, so the limit
/// measures data, not per-thread reservations); `None` when `prlimit` is missing outside CI.
fn limited(bytes: u64, args: &[&OsStr]) -> Option<(Option<i32>, String)> {
    if Command::new("prlimit").arg("--version").output().is_err() {
        assert!(std::env::var("CI").is_err(), "prlimit is needed in CI");
        eprintln!("skipped: no prlimit");
        return None;
    }
    Some(run(Command::new("prlimit")
        .arg(format!("--as={bytes}"))
        .arg(env!("CARGO_BIN_EXE_psxrender"))
        .args(args)
        .env("MALLOC_ARENA_MAX", "1")))
}

#[test]
fn a_64_mib_manifest_is_read_in_bounded_memory() {
    let dir = workdir("big");
    // One line holding 1.9 M short strings, as in the issue: refused at the list cap.
    let m = dir.join("strings.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&m).unwrap());
    write!(
        f,
        "{{\"model\": \"demo.ff9\", \"out\": \"a.png\", \"texture\": ["
    )
    .unwrap();
    for i in 0..1_900_000 {
        write!(f, "{}\"{:030}\"", if i > 0 { "," } else { "" }, i).unwrap();
    }
    writeln!(f, "]}}").unwrap();
    drop(f);
    let size = std::fs::metadata(&m).unwrap().len();
    assert!(size > 60_000_000 && size <= 64 << 20, "{size}");
    let start = Instant::now();
    let Some((code, text)) = limited(512 << 20, &[os("batch"), m.as_os_str(), os("--dry-run")])
    else {
        return;
    };
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("key \"texture\": a list of more than"),
        "{text}"
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    // 64 MiB of many jobs (one long value each): every job parsed, within 512 MiB.
    let m = dir.join("jobs.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&m).unwrap());
    let pad = "x".repeat(60_000);
    let mut n = 0;
    while n * 60_100 < (63 << 20) {
        writeln!(
            f,
            "{}",
            json!({"model": "demo.ff9", "out": format!("o{n}.png"), "anim": pad})
        )
        .unwrap();
        n += 1;
    }
    drop(f);
    let Some((code, text)) = limited(512 << 20, &[os("batch"), m.as_os_str(), os("--dry-run")])
    else {
        return;
    };
    // The render command refuses the animation name only when a job runs: the plan is whole.
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains(&format!("{n} jobs, {n} in shard 0/1")),
        "{text}"
    );
}

#[test]
fn devices_are_refused_after_a_capped_read() {
    let start = Instant::now();
    let (code, text) = psxrender([os("batch"), os("/dev/zero"), os("--dry-run")]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("more than 67108864 bytes"), "{text}");
    let dir = workdir("merge-zero");
    let out = dir.join("merged.json");
    let (code, text) = psxrender([
        os("batch"),
        os("--merge-reports"),
        os("/dev/zero"),
        os("--report"),
        out.as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("/dev/zero is a device, not a report"),
        "{text}"
    );
    assert!(start.elapsed() < Duration::from_secs(10));
}

/// A report `r.json` of one ok job keyed `a.png` whose `inputs` are `inputs`. (Resume tests
/// name their report: the default name changed with issue 66.)
fn report_with_inputs(dir: &Path, inputs: Value) {
    let r = json!({"psxrender": "0.1.0", "manifest": "jobs.jsonl", "shard": null, "jobs": [
        {"line": 1, "model": "demo.ff9", "key": "a.png", "status": "ok", "outputs": ["a.png"],
         "hashes": {"inputs": "00", "outputs": ["00"]}, "inputs": inputs, "frames": 1,
         "seconds": 0.1}]});
    std::fs::write(dir.join("r.json"), serde_json::to_vec(&r).unwrap()).unwrap();
}

#[test]
fn resume_never_hangs_on_a_reports_inputs() {
    let dir = workdir("inputs");
    let m = write_manifest(&dir, &[json!({"model": "demo.ff9", "out": "a.png"})]);
    let many: Vec<&str> = vec!["demo.ff9"; 200_000];
    for inputs in [json!(["/dev/zero"]), json!(many)] {
        report_with_inputs(&dir, inputs);
        let start = Instant::now();
        let r = dir.join("r.json");
        let (code, text) = psxrender([
            os("batch"),
            m.as_os_str(),
            os("--resume"),
            os("--report"),
            r.as_os_str(),
        ]);
        assert_eq!(code, Some(0), "{text}");
        assert!(text.contains("1 ok, 0 skipped"), "{text}");
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "{:?}",
            start.elapsed()
        );
    }
}

#[test]
fn resume_reads_a_100k_job_journal_as_a_stream() {
    let dir = workdir("journal");
    let m = write_manifest(&dir, &[json!({"model": "demo.ff9", "out": "a.png"})]);
    let partial = dir.join("r.json.partial");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&partial).unwrap());
    let warning = "w".repeat(1500);
    for i in 0..100_000 {
        let e = json!({"line": i + 2, "model": "demo.ff9", "key": format!("k/{i}.png"),
            "status": "ok", "outputs": [format!("k/{i}.png")],
            "hashes": {"inputs": "00", "outputs": ["00"]}, "inputs": ["demo.ff9"],
            "frames": 1, "seconds": 0.5, "warnings": [warning]});
        serde_json::to_writer(&mut f, &e).unwrap();
        f.write_all(b"\n").unwrap();
    }
    drop(f);
    assert!(std::fs::metadata(&partial).unwrap().len() > 150 << 20);
    let r = dir.join("r.json");
    let args = [
        os("batch"),
        m.as_os_str(),
        os("--resume"),
        os("--report"),
        r.as_os_str(),
    ];
    let Some((code, text)) = limited(256 << 20, &args) else {
        return;
    };
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("1 jobs: 1 ok"), "{text}");
}

#[test]
fn merge_reports_refuses_missing_shards_and_other_manifests() {
    let dir = workdir("merge");
    let lines: Vec<Value> = (0..6)
        .map(|i| json!({"model": "demo.ff9", "out": format!("o{i}.png"), "frame": i}))
        .collect();
    let m = write_manifest(&dir, &lines);
    // Each shard's report named, so the test holds whatever the default names.
    let shard = |i: u32| dir.join(format!("s{i}.json"));
    let run_shard = |i: u32| {
        let (code, text) = psxrender([
            os("batch"),
            m.as_os_str(),
            os("--shard"),
            os(&format!("{i}/3")),
            os("--report"),
            shard(i).as_os_str(),
        ]);
        assert_eq!(code, Some(0), "{text}");
    };
    (0..3).for_each(run_shard);
    let merged = dir.join("merged.json");
    let merge = |files: &[PathBuf]| {
        let mut args: Vec<&OsStr> = vec![os("batch"), os("--merge-reports")];
        args.extend(files.iter().map(|f| f.as_os_str()));
        args.extend([os("--report"), merged.as_os_str()]);
        psxrender(args)
    };
    let (code, text) = merge(&[shard(0), shard(2)]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("shard 1/3 of"), "{text}");
    assert!(!merged.exists());
    let r: Value = serde_json::from_slice(&std::fs::read(shard(1)).unwrap()).unwrap();
    assert_eq!(r["shard"], "1/3");
    assert_eq!(r["manifest_hash"].as_str().map(str::len), Some(32));
    // A shard of an edited manifest is another manifest's.
    let mut edited = lines.clone();
    edited.push(json!({"model": "demo.ff9", "out": "extra.png"}));
    write_manifest(&dir, &edited);
    run_shard(1);
    let (code, text) = merge(&[shard(0), shard(1), shard(2)]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("is a report of another manifest than"),
        "{text}"
    );
    write_manifest(&dir, &lines);
    run_shard(1);
    let (code, text) = merge(&[shard(0), shard(1), shard(2)]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("6 jobs: 6 ok"), "{text}");
    // The merged report may not replace a shard's.
    let (code, text) = psxrender([
        os("batch"),
        os("--merge-reports"),
        shard(0).as_os_str(),
        os("--report"),
        shard(0).as_os_str(),
    ]);
    assert_eq!(code, Some(3), "{text}");
}

/// Writes `text` as the manifest `<dir>/<name>`; asserts `batch --dry-run` refuses it with
/// exit 2 saying `want`, and no internal marker.
fn refused_by_dry_run(dir: &str, name: &str, text: &str, want: &str) {
    let m = workdir(dir).join(name);
    std::fs::write(&m, text).unwrap();
    let (code, out) = psxrender([os("batch"), m.as_os_str(), os("--dry-run")]);
    assert_eq!(code, Some(2), "{text}: {out}");
    assert!(
        out.contains(want) && !out.contains("$__"),
        "{text}\n got: {out}\nwant: {want}"
    );
}

#[test]
fn a_nul_in_a_manifest_value_is_refused_by_dry_run() {
    refused_by_dry_run(
        "nul",
        "jobs.jsonl",
        "{\"model\": \"demo.ff9\", \"out\": \"a\\u0000b.png\"}\n",
        "line 1, key \"out\": holds a NUL character",
    );
}

#[test]
fn a_duplicate_json_key_is_refused() {
    refused_by_dry_run(
        "duplicate",
        "jobs.jsonl",
        "{\"model\": \"demo.ff9\", \"out\": \"a.png\", \"frame\": 1, \"frame\": 2}\n",
        "line 1, key \"frame\": given twice in one job",
    );
}

#[test]
fn a_byte_order_mark_is_no_part_of_the_first_line() {
    refused_by_dry_run(
        "bom",
        "jobs.jsonl",
        "\u{feff}{\"model\": \"demo.ff9\", \"out\": \"a.png\", \"frame\": }\n",
        "jobs.jsonl line 1: not valid JSON (column 48)",
    );
    let m = workdir("bom-passes").join("jobs.jsonl");
    std::fs::write(
        &m,
        "\u{feff}{\"model\": \"demo.ff9\", \"out\": \"a.png\"}\n",
    )
    .unwrap();
    let (code, out) = psxrender([os("batch"), m.as_os_str(), os("--dry-run")]);
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn the_last_frame_number_in_a_manifest_is_not_an_empty_range() {
    refused_by_dry_run(
        "last-frame",
        "jobs.jsonl",
        "{\"model\": \"demo.ff9\", \"out\": \"a.png\", \"frames\": \"4294967295..=4294967295\"}\n",
        "a range reaches frame 4294967294 at most",
    );
}

#[test]
fn toml_infinities_and_dates_are_named_as_such() {
    refused_by_dry_run(
        "toml",
        "jobs.toml",
        "[[job]]\nmodel = \"demo.ff9\"\nout = \"a.png\"\nyaw = inf\n",
        "jobs.toml line 1, key \"yaw\": inf (not a finite number) is not a value",
    );
    refused_by_dry_run(
        "toml",
        "jobs.toml",
        "[[job]]\nmodel = \"demo.ff9\"\nout = \"a.png\"\nanim = 1979-05-27\n",
        "key \"anim\": the date/time 1979-05-27",
    );
}

#[test]
fn batch_help_names_toml_and_labels_its_files() {
    let (_, help) = psxrender([os("batch"), os("--help")]);
    assert!(
        help.contains("TOML") && help.contains("MANIFEST|REPORTS"),
        "{help}"
    );
    assert!(!help.contains("<JOBS.jsonl>"), "{help}");
}

#[test]
fn gif_frames_last_exactly_one_thirtieth_of_a_second_on_average() {
    let dir = workdir("gif");
    let gif = dir.join("walk.gif");
    let (code, text) = psxrender([
        dir.join("demo.ff9").as_os_str(),
        gif.as_os_str(),
        os("--frames"),
        os("0..30"),
        os("--gif"),
        os("--size"),
        os("256x240"),
    ]);
    assert_eq!(code, Some(0), "{text}");
    let ms = common::gif_delays_ms(&gif);
    assert_eq!(ms.len(), 30);
    assert_eq!(&ms[..3], [30, 40, 30], "{ms:?}");
    assert_eq!(ms.iter().sum::<u32>(), 1000, "{ms:?}");
    // A sheet says what it wrote, as every other render does.
    let sheet = dir.join("sheet.png");
    let (code, text) = psxrender([
        dir.join("demo.ff9").as_os_str(),
        sheet.as_os_str(),
        os("--frames"),
        os("0..2"),
        os("--sheet"),
        os("auto"),
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("wrote ") && text.contains("sheet.json"),
        "{text}"
    );
}

#[test]
fn compare_says_which_frames_are_alone_and_which_files_were_left_out() {
    let dir = workdir("compare");
    let (a, b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let px = [10u8; 4 * 4 * 3];
    for p in [
        a.join("frame_0000.png"),
        a.join("frame_0001.png"),
        a.join("cover.png"),
        b.join("frame_0000.png"),
    ] {
        psxrender::output::save_png_rgb(&p, 4, 4, &px).unwrap();
    }
    let (code, text) = psxrender([os("compare"), a.as_os_str(), b.as_os_str()]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("differing: 0,"), "{text}");
    assert!(text.contains("first differing frame: none"), "{text}");
    assert!(
        text.contains("first frame only one sequence has: 1"),
        "{text}"
    );
    assert!(
        text.contains("no frame number in the name left out (cover.png)"),
        "{text}"
    );
}

#[test]
fn a_clash_inside_one_job_names_its_keys_and_a_glob_only_when_there_is_one() {
    let dir = workdir("own");
    // One plain job whose --dump-gp0 is one of its own numbered frames: no glob in sight.
    let m = write_manifest(
        &dir,
        &[
            json!({"model": "demo.ff9", "out": "o.png", "frames": "0..3",
                 "dump-gp0": "o_0001.png"}),
        ],
    );
    let (code, text) = psxrender([os("batch"), m.as_os_str(), os("--dry-run")]);
    assert_eq!(code, Some(3), "{text}");
    assert!(
        text.contains("o_0001.png (line 1, key \"dump-gp0\") is also written as")
            && text.contains("(line 1, key \"out\", frame 1)")
            && !text.contains("glob"),
        "{text}"
    );
    // Two files of one glob writing one file: each named by its model.
    std::fs::copy(dir.join("demo.ff9"), dir.join("b.ff9")).unwrap();
    let m = write_manifest(
        &dir,
        &[json!({"model": "*.ff9", "out": "{stem}.png", "vram": "v.png"})],
    );
    let (code, text) = psxrender([os("batch"), m.as_os_str(), os("--dry-run")]);
    assert_eq!(code, Some(3), "{text}");
    assert!(
        text.contains("v.png (line 1, key \"vram\", model demo.ff9) is also written as")
            && text.contains("(line 1, key \"vram\", model b.ff9)"),
        "{text}"
    );
}
