//! `psxrender serve` and `compare --html` in a real browser: Debian's Chromium driven by the
//! npm package playwright-core (tests/browser/, from its lockfile; `.ci/run` installs both).
//! This test makes the expected files with the CLI, starts the server at port 0, and runs
//! tests/browser/inspect.mjs, which checks in the page that:
//! - Rabbit2 at frame 10 shows exactly the pixels `psxrender Rabbit2.m2 --frame 10` writes,
//!   and after moving the frame slider, frame 11's;
//! - a click on a VRAM pixel of a reference frame dump shows the entries
//!   `replay --history X,Y` prints;
//! - the `compare --html` report opens from file:// and names the first differing frame.
//!
//! Screenshots go to target/browser-shots/ (the README shows one).

mod common;
mod serve_support;

use std::path::Path;
use std::process::Command;

use serve_support::{cli, scratch, Serve};

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples and ../shared/hwtests")]
#[cfg_attr(
    no_browser,
    ignore = "needs node, /usr/bin/chromium and tests/browser/node_modules (npm ci there)"
)]
fn the_inspector_and_the_report_in_chromium() {
    let work = scratch("serve-browser");
    let models = common::shared("samples/m2");
    let frames = common::shared("hwtests/emulator-reference/frames");
    let rabbit = models.join("Rabbit2.m2");
    let expect = |n: u32| {
        let out = work.join(format!("rabbit_{n}.png"));
        cli(&[
            rabbit.to_str().unwrap(),
            out.to_str().unwrap(),
            "--frame",
            &n.to_string(),
        ]);
        out
    };
    let (f10, f11) = (expect(10), expect(11));

    // The history `replay` prints for a pixel the rabbit covers (three commands wrote it).
    let dump = frames.join("rabbit2_f10.psxgpu");
    let (x, y) = (160, 120);
    let printed = cli(&[
        "replay",
        dump.to_str().unwrap(),
        "--history",
        &format!("{x},{y}"),
    ]);
    let printed = String::from_utf8(printed).unwrap();
    let history = &printed[printed.find("pixel (").expect("a history")..];
    let history_file = work.join("history.txt");
    std::fs::write(&history_file, history).unwrap();

    // Two sequences that part at frame 1, and their report.
    let (a, b) = (work.join("a"), work.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::copy(&f10, a.join("f_0000.png")).unwrap();
    std::fs::copy(&f10, a.join("f_0001.png")).unwrap();
    std::fs::copy(&f10, b.join("f_0000.png")).unwrap();
    std::fs::copy(&f11, b.join("f_0001.png")).unwrap();
    let report = work.join("report");
    let out = Command::new(env!("CARGO_BIN_EXE_psxrender"))
        .args([
            "compare",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--html",
        ])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-shots");
    std::fs::create_dir_all(&shots).unwrap();
    let s = Serve::start(&[&models, &frames]);
    let config = serde_json::json!({
        "url": format!("http://{}/", s.host()),
        "model": "0/Rabbit2.m2",
        "frame10": f10,
        "frame11": f11,
        "capture": "1/rabbit2_f10.psxgpu",
        "pixel": [x, y],
        "history": history_file,
        "report": report.join("index.html"),
        "first_difference": 1,
        "shots": shots,
    });
    let config_file = work.join("config.json");
    std::fs::write(&config_file, config.to_string()).unwrap();
    let browser = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let run = Command::new("node")
        .arg("inspect.mjs")
        .current_dir(&browser)
        .env("PSXRENDER_BROWSER_CONFIG", &config_file)
        .output()
        .expect("run node");
    let said = String::from_utf8_lossy(&run.stdout);
    println!("{said}{}", String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "browser checks failed:\n{said}");
    assert!(said.contains(" passed, 0 failed"), "{said}");
}
