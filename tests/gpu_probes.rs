//! Every `hwtests/gpu-probes` file, serial and banded: each `hw` probe must match the console.
mod common;

use psxrender::conformance::{run_file, Report};

fn run_all(threads: usize) -> Option<Report> {
    let dir = common::shared("hwtests/gpu-probes")?;
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
    Some(total)
}

#[test]
fn hw_probes_serial() {
    let Some(r) = run_all(1) else { return };
    assert_eq!(r.failed, 0, "{} hw cases failed", r.failed);
    assert!(r.passed >= 498, "only {} hw cases ran", r.passed);
}

#[test]
fn hw_probes_banded() {
    let Some(r) = run_all(0) else { return };
    assert_eq!(r.failed, 0, "{} hw cases failed", r.failed);
}
