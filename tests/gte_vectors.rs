//! The GTE against console-captured vectors (hwtests `gte/`, FORMAT.md §2). Every wrong
//! register of every failing case is printed by psx-spx name, in hex.

mod common;

use std::path::Path;

use psxrender::hwtest::gte_vectors::run_file;

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
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/gte")]
fn ps1tests_fuzz() {
    check_file(&common::shared("hwtests/gte/ps1tests-fuzz.txt"), Some(1150));
}

/// 23 console dumps (case 10's impossible SZ0 dump value is handled by the 16-bit store).
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/gte")]
fn rustation() {
    check_file(&common::shared("hwtests/gte/rustation.txt"), Some(23));
}

/// pcsx-redux GTE tests (FORMAT.md documents the file; it is not shipped in every checkout, so
/// its absence is no failure even in CI: `build.rs` sets `no_pcsxredux_vectors` then).
#[test]
#[cfg_attr(
    no_pcsxredux_vectors,
    ignore = "needs ../shared/hwtests/gte/pcsxredux.txt (not in every checkout)"
)]
fn pcsxredux() {
    check_file(&common::shared("hwtests/gte/pcsxredux.txt"), None);
}

mod cli_run;

/// The CLI names each wrong register in hex, counts per file, closes with `N passed, N failed`
/// and exits 1 on a failure, 2 on an unreadable file (and never panics).
#[test]
fn cli_reports_mismatches_by_name() {
    // NCLIP of (0,0) (16,0) (0,16) is 256; the second case expects 257.
    let good = "case 1 NCLIP\nset 12 00000000\nset 13 00000010\nset 14 00100000\n\
                cmd 4a001406\nexpect 24 00000100\nend\n";
    let bad = good
        .replace("case 1", "case 2")
        .replace("00000100\nend", "00000101\nend");
    let file = cli_run::tmp("gte_vectors", "mixed.txt");
    std::fs::write(&file, format!("{good}{bad}")).unwrap();
    let (code, out) = cli_run::psxrender([std::ffi::OsStr::new("gte-vectors"), file.as_os_str()]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("case 2 NCLIP: 1 register(s) wrong"), "{out}");
    assert!(
        out.contains("MAC0     (r24) got 00000100 expected 00000101"),
        "{out}"
    );
    assert!(out.contains(": 1 passed, 1 failed\n"), "{out}");
    assert!(out.ends_with("\n1 passed, 1 failed\n"), "{out}");

    let broken = cli_run::tmp("gte_vectors", "broken.txt");
    std::fs::write(&broken, "case 1 X\nin 00000000\nend\n").unwrap();
    let (code, out) = cli_run::psxrender([std::ffi::OsStr::new("gte-vectors"), broken.as_os_str()]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("line 2") && out.contains("at byte 0x9"),
        "{out}"
    );
}
