//! Outputs never destroy what they should not (issue 66, rows 1-5 and 12): every command
//! resolves its outputs before it runs and refuses, with exit 3 and both names, an output that
//! is an input, another output, or not a regular file; a batch manifest's paths stay inside its
//! folder unless `--allow-outside`.

mod cli_run;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use cli_run::{demo_dir, psxrender, tmp, write_manifest};

/// An empty directory `target/tmp/output_safety/<name>` holding the FF9 demo character.
fn workdir(name: &str) -> PathBuf {
    demo_dir("output_safety", name)
}

fn run<S: AsRef<OsStr>>(args: &[S]) -> (Option<i32>, String) {
    psxrender(args)
}

/// Runs `batch` with `extra` arguments; asserts exit 3 naming `want`, nothing rendered, and
/// every file in `keep` as it was.
fn refused(dir: &Path, extra: &[&OsStr], want: &[&str], keep: &[&Path]) {
    let before: Vec<Vec<u8>> = keep.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let m = dir.join("jobs.jsonl");
    let mut args = vec![OsStr::new("batch"), m.as_os_str()];
    args.extend_from_slice(extra);
    let (code, text) = run(&args);
    assert_eq!(code, Some(3), "{args:?}: {text}");
    for w in want {
        assert!(text.contains(w), "{args:?}: want {w:?} in {text}");
    }
    for (p, b) in keep.iter().zip(before) {
        assert_eq!(std::fs::read(p).unwrap(), b, "{} changed", p.display());
    }
    assert!(!dir.join("a.png").exists(), "rendered before refusing");
}

#[test]
fn batch_report_never_replaces_an_input_an_output_or_a_device() {
    let dir = workdir("report");
    let m = write_manifest(
        &dir,
        &[
            json!({"model": "demo.ff9", "out": "a.png"}),
            json!({"model": "demo.ff9", "out": "b.png", "frame": 2}),
        ],
    );
    std::fs::write(dir.join("b.png"), b"an earlier picture").unwrap();
    let model = dir.join("demo.ff9");
    let keep = [m.as_path(), model.as_path(), &dir.join("b.png")];
    refused(
        &dir,
        &[OsStr::new("--report"), m.as_os_str()],
        &["(--report) is the input", "(the manifest)"],
        &keep,
    );
    refused(
        &dir,
        &[OsStr::new("--report"), model.as_os_str()],
        &["(--report) is the input", "line 1, key \"model\""],
        &keep,
    );
    let b = dir.join("b.png");
    refused(
        &dir,
        &[OsStr::new("--report"), b.as_os_str()],
        &["(--report) is also written as", "line 2, key \"out\""],
        &keep,
    );
    refused(
        &dir,
        &[OsStr::new("--report"), OsStr::new("/dev/null")],
        &["/dev/null (--report) is a device, not a regular file"],
        &keep,
    );
    // The report's journal is an output too.
    let partial = dir.join("r.json.partial");
    std::fs::write(&partial, b"{}\n").unwrap();
    std::fs::write(&b, b"an earlier picture").unwrap();
    write_manifest(
        &dir,
        &[json!({"model": "demo.ff9", "out": "r.json.partial"})],
    );
    refused(
        &dir,
        &[OsStr::new("--report"), dir.join("r.json").as_os_str()],
        &[
            "(the report's journal) is also written as",
            "(line 1, key \"out\")",
        ],
        &[partial.as_path()],
    );
}

#[test]
#[cfg(unix)]
fn a_fifo_named_as_the_report_is_still_a_fifo_afterwards() {
    use std::os::unix::fs::FileTypeExt;
    let dir = workdir("fifo");
    write_manifest(&dir, &[json!({"model": "demo.ff9", "out": "a.png"})]);
    let fifo = dir.join("report.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        assert!(std::env::var("CI").is_err(), "mkfifo is needed in CI");
        eprintln!("skipped: no mkfifo");
        return;
    }
    refused(
        &dir,
        &[OsStr::new("--report"), fifo.as_os_str()],
        &["(--report) is a FIFO (named pipe), not a regular file"],
        &[],
    );
    let t = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(t.is_fifo(), "the FIFO was replaced");
    // A model that is a FIFO, a folder or a device is named as what it is, not "no such file".
    for (model, kind) in [
        (fifo.clone(), "is a FIFO"),
        (dir.clone(), "is a directory"),
        (PathBuf::from("/dev/zero"), "is a device"),
    ] {
        write_manifest(
            &dir,
            &[json!({"model": model.to_string_lossy(), "out": "a.png"})],
        );
        let m = dir.join("jobs.jsonl");
        let (code, text) = run(&[
            OsStr::new("batch"),
            m.as_os_str(),
            OsStr::new("--allow-outside"),
        ]);
        assert_eq!(code, Some(2), "{text}");
        assert!(
            text.contains(kind) && !text.contains("no such file"),
            "{text}"
        );
    }
}

#[test]
fn batch_job_outputs_never_replace_the_manifest_the_report_or_each_other() {
    let dir = workdir("jobs");
    let m = dir.join("jobs.jsonl");
    write_manifest(
        &dir,
        &[
            json!({"model": "demo.ff9", "out": "a.png"}),
            json!({"model": "demo.ff9", "out": "jobs.jsonl"}),
        ],
    );
    refused(
        &dir,
        &[],
        &[
            "jobs.jsonl (line 2, key \"out\") is the input",
            "(the manifest)",
        ],
        &[m.as_path()],
    );
    for out in ["jobs.jsonl.report.json", "jobs.jsonl.report.json.partial"] {
        std::fs::write(dir.join(out), b"earlier").unwrap();
        write_manifest(
            &dir,
            &[
                json!({"model": "demo.ff9", "out": "a.png"}),
                json!({"model": "demo.ff9", "out": out}),
            ],
        );
        refused(&dir, &[], &["(line 2, key \"out\")"], &[&dir.join(out)]);
    }
    // One file by two spellings: through a symbolic link to a folder, and (where the manifest
    // may reach outside) by its absolute path; in every shard alike.
    std::fs::create_dir_all(dir.join("real")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("real", dir.join("link")).unwrap();
        write_manifest(
            &dir,
            &[
                json!({"model": "demo.ff9", "out": "real/c.png"}),
                json!({"model": "demo.ff9", "out": "link/c.png", "frame": 3}),
            ],
        );
        for shard in ["0/2", "1/2"] {
            refused(
                &dir,
                &[OsStr::new("--shard"), OsStr::new(shard)],
                &[
                    "link/c.png (line 2, key \"out\") is also written as",
                    "real/c.png (line 1",
                ],
                &[],
            );
        }
    }
    let abs = dir.join("real/c.png");
    write_manifest(
        &dir,
        &[
            json!({"model": "demo.ff9", "out": "real/c.png"}),
            json!({"model": "demo.ff9", "out": abs.to_string_lossy(), "frame": 3}),
        ],
    );
    refused(
        &dir,
        &[OsStr::new("--allow-outside")],
        &["is also written as"],
        &[],
    );
    assert!(!abs.exists());
}

#[test]
fn commands_refuse_one_file_written_twice() {
    let dir = workdir("commands");
    let model = dir.join("demo.ff9");
    let o = dir.join("o.png");
    let cases: Vec<(Vec<PathBuf>, &str)> = vec![
        (
            vec![model.clone(), o.clone(), "--vram".into(), o.clone()],
            "o.png (--vram) is also written as",
        ),
        (
            vec![
                model.clone(),
                o.clone(),
                "--frames".into(),
                "0..3".into(),
                "--dump-gp0".into(),
                dir.join("o_0001.png"),
            ],
            "o_0001.png (--dump-gp0) is also written as",
        ),
        (
            vec![
                model.clone(),
                o.clone(),
                "--frames".into(),
                "0..3".into(),
                "--sheet".into(),
                "auto".into(),
                "--vram".into(),
                dir.join("o.json"),
            ],
            "o.json (--vram) is also written as",
        ),
        (
            vec![model.clone(), o.clone(), "--vram".into(), model.clone()],
            "(--vram) is the input",
        ),
    ];
    for (args, want) in cases {
        let (code, text) = run(&args);
        assert_eq!(code, Some(3), "{args:?}: {text}");
        assert!(text.contains(want), "{args:?}: {text}");
        assert!(!o.exists() && !dir.join("o_0000.png").exists(), "{args:?}");
    }
    // replay: --display and --vram naming one folder write each frame twice.
    let input = dir.join("cap.txt");
    std::fs::write(&input, "gp1 03000000\nframe\nframe\nframe\n").unwrap();
    let same = dir.join("same");
    let (code, text) = run(&[
        OsStr::new("replay"),
        input.as_os_str(),
        OsStr::new("--frames"),
        OsStr::new("0..3"),
        OsStr::new("--display"),
        same.as_os_str(),
        OsStr::new("--vram"),
        same.as_os_str(),
    ]);
    assert_eq!(code, Some(3), "{text}");
    assert!(
        text.contains("(--vram, frame 0) is also written as")
            && text.contains("(--display, frame 0)"),
        "{text}"
    );
    assert!(!same.exists());
    let (code, text) = run(&[
        OsStr::new("replay"),
        input.as_os_str(),
        OsStr::new("--vram"),
        o.as_os_str(),
        OsStr::new("--display"),
        o.as_os_str(),
    ]);
    assert_eq!(code, Some(3), "{text}");
    assert!(text.contains("(--display) is also written as"), "{text}");
}

#[test]
fn manifests_stay_inside_their_folder_unless_allowed() {
    let root = tmp("output_safety", "confine");
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("m");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("demo.ff9"),
        psxrender::formats::ff9::demo_character(),
    )
    .unwrap();
    let secret = root.join("secret.bin");
    std::fs::write(&secret, b"SECRET-BYTES-0123456789").unwrap();
    let outside = root.join("x.png");
    let cases = [
        (
            json!({"model": "demo.ff9", "out": "../x.png"}),
            "key \"out\": ../x.png leads outside",
        ),
        (
            json!({"model": "demo.ff9", "out": outside.to_string_lossy()}),
            "key \"out\"",
        ),
        (
            json!({"model": "demo.ff9", "out": "a.png", "vram": outside.to_string_lossy()}),
            "key \"vram\"",
        ),
        (
            json!({"model": "demo.ff9", "out": "a.png", "dump-gp0": "../d.psxgpu"}),
            "key \"dump-gp0\"",
        ),
        (
            json!({"model": secret.to_string_lossy(), "out": "a.png"}),
            "key \"model\"",
        ),
        (
            json!({"model": "../secret.bin", "out": "a.png"}),
            "key \"model\": ../secret.bin leads outside",
        ),
        (
            json!({"model": "demo.ff9", "out": "a.png", "tim": ["../secret.bin"]}),
            "key \"tim\": ../secret.bin leads outside",
        ),
    ];
    for (line, want) in cases {
        let m = write_manifest(&dir, std::slice::from_ref(&line));
        let (code, text) = run(&[OsStr::new("batch"), m.as_os_str()]);
        assert_eq!(code, Some(2), "{line}: {text}");
        assert!(
            text.contains(want) && text.contains("--allow-outside"),
            "{line}: {text}"
        );
        assert!(
            !text.contains("SECRET"),
            "{line}: echoed input bytes: {text}"
        );
        assert!(!outside.exists() && !dir.join("a.png").exists(), "{line}");
    }
    // A --search-path folder lends inputs, never outputs.
    let m = write_manifest(
        &dir,
        &[json!({"model": "../secret.bin", "out": "a.png", "frame": 1})],
    );
    let (code, text) = run(&[
        OsStr::new("batch"),
        m.as_os_str(),
        OsStr::new("--search-path"),
        root.as_os_str(),
        OsStr::new("--dry-run"),
    ]);
    assert_eq!(code, Some(0), "{text}");
    // With --allow-outside the job runs; the unreadable model's bytes are not echoed.
    let (code, text) = run(&[
        OsStr::new("batch"),
        m.as_os_str(),
        OsStr::new("--allow-outside"),
    ]);
    assert_eq!(code, Some(1), "{text}");
    assert!(!text.contains("SECRET"), "{text}");
    let report = std::fs::read_to_string(dir.join("jobs.jsonl.report.json")).unwrap();
    assert!(!report.contains("SECRET"), "{report}");
    let m = write_manifest(&dir, &[json!({"model": "demo.ff9", "out": "../x.png"})]);
    let (code, text) = run(&[
        OsStr::new("batch"),
        m.as_os_str(),
        OsStr::new("--allow-outside"),
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(outside.exists());
}

#[test]
fn jsonl_and_toml_manifests_in_one_folder_keep_their_own_reports() {
    let dir = workdir("reports");
    let j = write_manifest(&dir, &[json!({"model": "demo.ff9", "out": "a.png"})]);
    let t = dir.join("jobs.toml");
    std::fs::write(&t, "[[job]]\nmodel = \"demo.ff9\"\nout = \"b.png\"\n").unwrap();
    for m in [&j, &t] {
        let (code, text) = run(&[OsStr::new("batch"), m.as_os_str()]);
        assert_eq!(code, Some(0), "{text}");
    }
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    assert!(read("jobs.jsonl.report.json").contains("\"a.png\""));
    assert!(read("jobs.toml.report.json").contains("\"b.png\""));
    let (code, text) = run(&[
        OsStr::new("batch"),
        j.as_os_str(),
        OsStr::new("--shard"),
        OsStr::new("0/1"),
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(dir.join("jobs.jsonl.shard-0-of-1.report.json").exists());
}

#[test]
#[cfg(target_os = "linux")]
fn temporary_files_left_by_a_killed_run_are_swept() {
    let dir = workdir("stale");
    // No process has an id above the kernel's largest (4194304): these runs are gone.
    let beside_output = dir.join(".o.png.99999999.tmp");
    let beside_nothing = dir.join(".p.png.99999999.tmp");
    for p in [&beside_output, &beside_nothing] {
        std::fs::write(p, b"left by a killed run").unwrap();
    }
    let (code, text) = run(&[dir.join("demo.ff9"), dir.join("o.png")]);
    assert_eq!(code, Some(0), "{text}");
    assert!(dir.join("o.png").is_file());
    assert!(
        !beside_output.exists(),
        "the stale temporary file is still there"
    );
    // Only a leftover beside a finished output is known to be one of ours.
    assert!(beside_nothing.exists());
}
