//! The ps1-tests GPU image comparison, reproduced through `psxrender replay` + `psxrender
//! compare` for every `hwtests/gpu-images` test: replay `stream.txt` to a raw VRAM file, compare
//! it with `expected.png` (channels `c<<3`, bits 0–14; `lines` with its `mask.txt`).

mod cli_run;
mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use psxrender::capture::compare::{parse_mask, Capture, Expansion, Source};
use psxrender::capture::input::Input;

fn tests(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("stream.txt").exists())
        .collect();
    dirs.sort();
    dirs
}

/// What can be checked without a rasteriser: every stream parses, every reference decodes as
/// a `c<<3` 1024×512 VRAM image, every mask parses.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/gpu-images")]
fn inputs_and_references_are_readable() {
    let root = common::shared("hwtests/gpu-images");
    let dirs = tests(&root);
    assert_eq!(dirs.len(), 11, "{dirs:?}");
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy();
        let input = Input::load(&dir.join("stream.txt")).unwrap();
        let want_frames = if name == "rectangles" { 16 } else { 1 };
        assert_eq!(
            input.frames(),
            want_frames,
            "{name}: frames (FORMAT.md table)"
        );
        let reference = Capture::load(&dir.join("expected.png")).unwrap();
        assert_eq!((reference.width, reference.height), (1024, 512), "{name}");
        assert_eq!(
            reference.source,
            Source::Png(Expansion::Shift),
            "{name}: reference channels should be c<<3"
        );
        if let Ok(m) = std::fs::read_to_string(dir.join("mask.txt")) {
            assert_eq!(parse_mask(&m).unwrap().len(), 66, "{name}: 2 x 33 rects");
        }
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/gpu-images")]
fn every_gpu_image_test_matches_its_reference() {
    let root = common::shared("hwtests/gpu-images");
    let mut failures = Vec::new();
    let dirs = tests(&root);
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let raw = cli_run::tmp("gpu_images_compare", &format!("{name}.vram.bin"));
        let (code, t) = cli_run::psxrender::<_, OsString>([
            "replay".into(),
            dir.join("stream.txt").into(),
            "--vram-raw".into(),
            raw.clone().into(),
        ]);
        if code != Some(0) {
            failures.push(format!("{name}: replay exited {code:?}\n{t}"));
            continue;
        }
        let diff = cli_run::tmp("gpu_images_compare", &format!("{name}.diff.png"));
        let mut args: Vec<OsString> = vec![
            "compare".into(),
            raw.into(),
            dir.join("expected.png").into(),
            "--diff".into(),
            diff.clone().into(),
        ];
        let mask = dir.join("mask.txt");
        if mask.exists() {
            args.extend(["--mask".into(), mask.into()]);
        }
        let (code, t) = cli_run::psxrender(&args);
        println!("{name}: compare exited {code:?}\n{t}");
        if code != Some(0) {
            failures.push(format!("{name}: see {}\n{t}", diff.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} gpu-images tests differ:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
}
