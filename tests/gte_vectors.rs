//! The GTE against console-captured vectors (hwtests `gte/`, FORMAT.md §2). Every wrong
//! register of every failing case is printed by psx-spx name, in hex.

mod common;

use std::path::Path;

use psxrender::gte_vectors::run_file;

/// Runs a vector file, printing every failure; fails on any failing case and, when `cases` is
/// given, on a different case count.
fn check_file(path: &Path, cases: Option<usize>) {
    let name = path.display();
    let report = run_file(path).unwrap_or_else(|e| panic!("{e}"));
    print!("{}", report.failures());
    println!(
        "{name}: {} passed, {} failed",
        report.passed(),
        report.failed()
    );
    if let Some(n) = cases {
        assert_eq!(report.cases.len(), n, "{name}: case count");
    }
    assert_eq!(report.failed(), 0, "{name}: failing cases listed above");
}

/// 1150 cases: 22 commands × 50 random register files and command bits, 50 register-only.
#[test]
fn ps1tests_fuzz() {
    if let Some(path) = common::shared("hwtests/gte/ps1tests-fuzz.txt") {
        check_file(&path, Some(1150));
    }
}

/// 23 console dumps (case 10's impossible SZ0 dump value is handled by the 16-bit store).
#[test]
fn rustation() {
    if let Some(path) = common::shared("hwtests/gte/rustation.txt") {
        check_file(&path, Some(23));
    }
}

/// pcsx-redux GTE tests, run when the file is present (FORMAT.md documents it; it is not
/// shipped in every checkout, so absence is not a failure even in CI).
#[test]
fn pcsxredux_if_present() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/hwtests/gte/pcsxredux.txt");
    if path.exists() {
        check_file(&path, None);
    } else {
        eprintln!("skipping: {} not present", path.display());
    }
}
