//! The GTE against console-captured vectors (hwtests `gte/`, FORMAT.md §2). Every wrong
//! register of every failing case is printed by psx-spx name, in hex.

mod common;

use psxrender::gte_vectors::run_file;

/// Runs `hwtests/gte/<name>`, expecting exactly `cases` cases, all passing.
fn check(name: &str, cases: usize) {
    let Some(path) = common::shared(&format!("hwtests/gte/{name}")) else {
        return;
    };
    let report = run_file(&path).unwrap_or_else(|e| panic!("{e}"));
    print!("{}", report.failures());
    println!("{name}: {} passed, {} failed", report.passed(), report.failed());
    assert_eq!(report.cases.len(), cases, "{name}: case count");
    assert_eq!(report.failed(), 0, "{name}: failing cases listed above");
}

/// 1150 cases: 22 commands × 50 random register files and command bits, 50 register-only.
#[test]
fn ps1tests_fuzz() {
    check("ps1tests-fuzz.txt", 1150);
}

/// 23 console dumps (case 10's impossible SZ0 dump value is handled by the 16-bit store).
#[test]
fn rustation() {
    check("rustation.txt", 23);
}

/// pcsx-redux GTE tests, run when the file is present (FORMAT.md documents it; it is not
/// shipped in every checkout, so absence is not a failure even in CI).
#[test]
fn pcsxredux_if_present() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/hwtests/gte/pcsxredux.txt");
    if !path.exists() {
        eprintln!("skipping: {} not present", path.display());
        return;
    }
    let report = run_file(&path).unwrap_or_else(|e| panic!("{e}"));
    print!("{}", report.failures());
    println!("pcsxredux.txt: {} passed, {} failed", report.passed(), report.failed());
    assert_eq!(report.failed(), 0, "pcsxredux.txt: failing cases listed above");
}
