//! Smoke test of the preview window: opens it for real under Xvfb (when `xvfb-run` is on the
//! machine; CI installs it) and lets it show a few frames of the demo character. The frame logic
//! itself is tested without a window in `src/preview.rs`.

use std::process::Command;

#[test]
#[cfg_attr(no_xvfb, ignore = "needs xvfb-run (apt-get install xvfb xauth)")]
#[cfg_attr(not(feature = "preview"), ignore = "needs the `preview` feature")]
fn window_opens_animates_and_exits_under_xvfb() {
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 800x600x24"])
        .arg(env!("CARGO_BIN_EXE_psxrender"))
        .args(["view", "--demo", "--exit-after", "12", "--scale", "2"])
        .output()
        .expect("run xvfb-run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "view failed: {stderr}");
    assert!(stderr.contains("showed 12 frames"), "{stderr}");
}

#[test]
fn view_reports_bad_input_without_a_window() {
    let out = Command::new(env!("CARGO_BIN_EXE_psxrender"))
        .args(["view", "/nonexistent/model.mdl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/model.mdl"));
}
