//! Every `hwtests/gpu-probes` file, serial and banded: each `hw` probe must match the console.
mod common;

use psxrender::hwtest::conformance::{run_file, Report};

fn run_all(threads: usize) -> Report {
    let dir = common::shared("hwtests/gpu-probes");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut total = Report::default();
    for f in &files {
        let r = run_file(f, threads).unwrap_or_else(|e| panic!("{e}"));
        println!(
            "{}: {} passed, {} failed, todo {}/{}",
            f.file_name().unwrap().to_string_lossy(),
            r.passed,
            r.failed,
            r.todo_passed,
            r.todo_passed + r.todo_failed
        );
        total.merge(r);
    }
    for m in &total.mismatches {
        println!("MISMATCH {m}");
    }
    println!(
        "threads={threads}: {} passed, {} failed (todo {} passed, {} failed)",
        total.passed, total.failed, total.todo_passed, total.todo_failed
    );
    total
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/gpu-probes")]
fn hw_probes_serial() {
    let r = run_all(1);
    assert_eq!(r.failed, 0, "{} hw cases failed", r.failed);
    assert!(r.passed >= 498, "only {} hw cases ran", r.passed);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/gpu-probes")]
fn hw_probes_banded() {
    // Every batch drawn in bands (the runner sets no least load), at every `Pool(n)`.
    for threads in [0, 2, 3, 5, 8, 16, 33, 64] {
        let r = run_all(threads);
        assert_eq!(
            r.failed, 0,
            "threads {threads}: {} hw cases failed",
            r.failed
        );
        assert!(
            r.passed >= 498,
            "threads {threads}: only {} hw cases ran",
            r.passed
        );
    }
}

/// The CLI: per-file lines, the exact closing line, exit 0; exit 2 on an unreadable file;
/// exit 1 and a printed mismatch when a probe fails.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/gpu-probes")]
fn conformance_cli_output_and_exit_codes() {
    let dir = common::shared("hwtests/gpu-probes");
    let exe = env!("CARGO_BIN_EXE_psxrender");
    let out = std::process::Command::new(exe)
        .args(["conformance", "--threads", "1"])
        .arg(dir.join("phase01.txt"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.lines().last(), Some("50 passed, 0 failed"), "{text}");

    let missing = std::process::Command::new(exe)
        .args(["conformance", "/nonexistent/probe.txt"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));

    let tmp = std::env::temp_dir().join(format!("psxrender-probe-{}.txt", std::process::id()));
    std::fs::write(
        &tmp,
        "case x/wrong\ngp0 020000f8\ngp0 00000000\ngp0 00010010\nprobe 0 0 7c00 hw\nend\n",
    )
    .unwrap();
    let bad = std::process::Command::new(exe)
        .arg("conformance")
        .arg(&tmp)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&tmp);
    let text = String::from_utf8_lossy(&bad.stdout);
    assert_eq!(bad.status.code(), Some(1), "{text}");
    assert!(
        text.contains("x/wrong: (0, 0) expected 7c00, got 001f"),
        "{text}"
    );
    assert_eq!(text.lines().last(), Some("0 passed, 1 failed"), "{text}");
}
