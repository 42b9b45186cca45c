//! `psxrender replay` end to end: input detection, outputs, frames, and clean refusals.

mod cli_run;

use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    cli_run::tmp("replay_cli", name)
}

fn replay(args: &[&str]) -> (Option<i32>, String) {
    cli_run::psxrender(["replay"].iter().chain(args))
}

/// A fill of 16×1 red at (0,0) and a 2-halfword upload at (0,1), then two frames.
const STREAM: &str = "# test stream\ngp1 00000000\ngp1 03000000\n\
gp0 020000ff\ngp0 00000000\ngp0 00010010\nframe\n\
gp0 a0000000\ngp0 00010000\ngp0 00010002\ngp0 80017c00\nframe\n";

/// Writes [`STREAM`] to a file of its own per test (tests run in parallel).
fn write_stream(test: &str) -> PathBuf {
    let p = tmp(&format!("{test}.stream.txt"));
    std::fs::write(&p, STREAM).unwrap();
    p
}

#[test]
fn writes_every_output_of_the_right_size() {
    let input = write_stream("writes_every_output_of_the_right_size");
    let (png, raw, disp, dump) = (
        tmp("vram.png"),
        tmp("vram.bin"),
        tmp("display.png"),
        tmp("out.psxgpu"),
    );
    let (code, t) = replay(&[
        input.to_str().unwrap(),
        "--vram",
        png.to_str().unwrap(),
        "--vram-raw",
        raw.to_str().unwrap(),
        "--display",
        disp.to_str().unwrap(),
        "--dump",
        dump.to_str().unwrap(),
        "--threads",
        "1",
    ]);
    assert!(code == Some(0), "{}", t);
    assert!(
        t.contains("text stream: 7 GP0 words, 2 GP1 words, 2 frames"),
        "{t}"
    );
    assert!(t.contains("ran 2 frames"), "{t}");
    assert_eq!(std::fs::metadata(&raw).unwrap().len(), 1 << 20);
    let v = image::open(&png).unwrap();
    assert_eq!((v.width(), v.height()), (1024, 512));
    let d = image::open(&disp).unwrap();
    assert!(
        d.width() >= 256 && d.height() >= 240,
        "{}x{}",
        d.width(),
        d.height()
    );

    // The written dump replays to the same frames, detected by content.
    let (code, t) = replay(&[dump.to_str().unwrap(), "--frame", "1"]);
    assert!(code == Some(0), "{}", t);
    assert!(t.contains("GPUDUMP (14-byte DuckStation magic)"), "{t}");
    assert!(t.contains("7 GP0 words, 2 GP1 words, 2 frames"), "{t}");
    assert!(t.contains("ran 1 frames"), "{t}");
}

#[test]
fn frame_past_the_end_is_a_usage_error() {
    let input = write_stream("frame_past_the_end_is_a_usage_error");
    let (code, t) = replay(&[input.to_str().unwrap(), "--frame", "3"]);
    assert_eq!(code, Some(2), "{}", t);
    assert!(t.contains("has 2 frame marks"), "{}", t);
}

#[test]
fn duckstation_magic_dump_replays() {
    let mut data = b"PSXGPUDUMPv1\0\0".to_vec();
    for w in [
        0x0600_0001u32,
        1,
        0x0500_0000,
        0x0000_0001,
        0xe100_0400,
        0x0200_0002,
        5,
        0,
    ] {
        data.extend_from_slice(&w.to_le_bytes());
    }
    let p = tmp("duck.psxgpu");
    std::fs::write(&p, data).unwrap();
    let (code, t) = replay(&[p.to_str().unwrap()]);
    assert!(code == Some(0), "{}", t);
    assert!(t.contains("14-byte DuckStation magic"), "{}", t);
    assert!(t.contains("ran 1 frames"), "{}", t);
}

/// The files of a test corpus folder (its README left out).
fn corpus(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let files = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path());
    files
        .filter(|p| p.extension().is_none_or(|e| e != "md"))
        .collect()
}

#[test]
fn bad_inputs_fail_cleanly_with_an_offset() {
    // Left by an earlier run that played what is now refused, it would hide a wrong output.
    let _ = std::fs::remove_file(tmp("never.bin"));
    let files = corpus("tests/bad/gpudump");
    let seen = files.len();
    for p in files {
        let (code, t) = replay(&[
            p.to_str().unwrap(),
            "--vram-raw",
            tmp("never.bin").to_str().unwrap(),
        ]);
        assert_eq!(code, Some(2), "{}: {t}", p.display());
        assert!(t.contains("at byte 0x"), "{}: {t}", p.display());
        assert!(!t.contains("panicked"), "{}: {t}", p.display());
    }
    assert!(seen >= 6, "corpus has {seen} files");
    assert!(!tmp("never.bin").exists(), "no output after a failed load");
}

/// Dumps cut inside a packet, or with a discard lacking its count, play their complete packets
/// with a warning naming the byte, as DuckStation's player plays them.
#[test]
fn cut_dumps_play_with_a_warning() {
    let files = corpus("tests/played/gpudump");
    let seen = files.len();
    for p in files {
        let out = tmp("played.bin");
        let (code, t) = replay(&[p.to_str().unwrap(), "--vram-raw", out.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{}: {t}", p.display());
        assert!(
            t.contains("warning:") && t.contains("at byte 0x"),
            "{}: {t}",
            p.display()
        );
    }
    assert_eq!(seen, 4, "corpus has {seen} files");
}

#[test]
fn fill_and_upload_reach_the_raw_vram() {
    let input = write_stream("fill_and_upload_reach_the_raw_vram");
    let raw = tmp("drawn.bin");
    let (code, t) = replay(&[input.to_str().unwrap(), "--vram-raw", raw.to_str().unwrap()]);
    assert!(code == Some(0), "{}", t);
    let bytes = std::fs::read(&raw).unwrap();
    let h = |x: usize, y: usize| {
        u16::from_le_bytes([bytes[(y * 1024 + x) * 2], bytes[(y * 1024 + x) * 2 + 1]])
    };
    let got = [h(0, 0), h(15, 0), h(16, 0), h(0, 1), h(1, 1)];
    assert_eq!(got, [0x001f, 0x001f, 0, 0x7c00, 0x8001], "got {got:04x?}");
    // Frame 1 stops before the upload.
    let (code, t) = replay(&[
        input.to_str().unwrap(),
        "--frame",
        "1",
        "--vram-raw",
        raw.to_str().unwrap(),
    ]);
    assert!(code == Some(0), "{}", t);
    let bytes = std::fs::read(&raw).unwrap();
    assert_eq!(bytes[2048..2052], [0, 0, 0, 0], "upload came after frame 1");
    assert_eq!(bytes[..2], [0x1f, 0]);
}

#[test]
fn display_shows_the_display_area() {
    // Display enabled (GP1(03h) 0), 320x240 15-bit at (0,0); a white 16x16 fill at (0,0).
    let p = tmp("display-stream.txt");
    std::fs::write(
        &p,
        "gp1 00000000\ngp1 03000000\ngp1 05000000\ngp1 08000001\n\
         gp0 02ffffff\ngp0 00000000\ngp0 00100010\n",
    )
    .unwrap();
    let out = tmp("display-white.png");
    let (code, t) = replay(&[p.to_str().unwrap(), "--display", out.to_str().unwrap()]);
    assert!(code == Some(0), "{}", t);
    let img = image::open(&out).unwrap().to_rgb8();
    assert_eq!((img.width(), img.height()), (320, 240));
    assert_eq!(img.get_pixel(0, 0).0, [255, 255, 255]);
    assert_eq!(img.get_pixel(15, 15).0, [255, 255, 255]);
    assert_eq!(img.get_pixel(16, 0).0, [0, 0, 0]);
}

/// The emulator-comparison loop end to end: the renderer's `--dump-gp0` dump of the built-in
/// demo, replayed, shows exactly the picture the renderer wrote.
#[test]
fn rendered_dump_replays_to_the_rendered_picture() {
    let (png, dump, shown) = (tmp("demo.png"), tmp("demo.psxgpu"), tmp("demo-display.png"));
    let (code, t) = cli_run::psxrender([
        "demo",
        png.to_str().unwrap(),
        "--dump-gp0",
        dump.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{t}");
    let (code, t) = replay(&[dump.to_str().unwrap(), "--display", shown.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("GPUDUMP (14-byte DuckStation magic)"), "{t}");
    let (code, t) = cli_run::psxrender(["compare", png.to_str().unwrap(), shown.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("PSNR: infinite"), "{t}");
}

/// `--history X,Y` on two overlapping triangles (one flat, one gouraud): both commands are
/// listed with their place in the input and decoded words, the gouraud one's colour at the
/// pixel, and the second triangle's value last; a GPUDUMP of the same words lists the same
/// commands at byte offsets.
#[test]
fn history_lists_overlapping_triangles_in_order() {
    let text = "gp0 e3000000\ngp0 e407ffff\n\
        gp0 200000ff\ngp0 00000000\ngp0 00000008\ngp0 00080000\n\
        # the second triangle, gouraud green to blue\n\
        gp0 3000ff00\ngp0 00010001\ngp0 00ff0000\ngp0 00010006\ngp0 0000ff00\ngp0 00060001\n";
    let input = tmp("history.stream.txt");
    std::fs::write(&input, text).unwrap();
    let dump = tmp("history.psxgpu");
    let (code, t) = replay(&[
        input.to_str().unwrap(),
        "--history",
        "2,2",
        "--history",
        "7,0",
        "--threads",
        "1",
        "--dump",
        dump.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{t}");
    let first = t.find("command 2 (GP0 word 2, line 3): 20h polygon: triangle, opaque");
    let second = t.find("command 3 (GP0 word 6, line 8): 30h polygon: gouraud triangle, opaque");
    assert!(first.is_some() && second.is_some() && first < second, "{t}");
    assert!(t.contains("pixel (2,2): 2 commands touched it"), "{t}");
    assert!(t.contains("pixel (7,0): 1 command touched it"), "{t}");
    assert!(t.contains("0000 -> 001f written"), "{t}");
    let last = t.rfind(" -> ").unwrap();
    let second_at = t.find("command 3 ").unwrap();
    assert!(
        last > second_at,
        "the second triangle's value comes last: {t}"
    );
    assert!(t.contains("v0 (1,1) rgb (0,255,0)"), "{t}");
    // Replayed from the dump, the same commands at byte offsets.
    let (code, d) = replay(&[dump.to_str().unwrap(), "--history", "2,2"]);
    assert_eq!(code, Some(0), "{d}");
    assert!(d.contains("command 3 (GP0 word 6, byte 0x"), "{d}");
}

/// `median X s, min Y s, Z M px/s`, X and Y with 4 decimals, Z with 1: the numbers, or why not.
fn timing_summary(line: &str) -> Result<(f64, f64, f64), String> {
    let number = |s: &str, decimals: usize| -> Result<f64, String> {
        let (int, frac) = s.split_once('.').ok_or(format!("'{s}' has no point"))?;
        let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
        if !digits(int) || !digits(frac) || frac.len() != decimals {
            return Err(format!("'{s}' is not a number with {decimals} decimals"));
        }
        s.parse().map_err(|e| format!("{s}: {e}"))
    };
    let rest = line.strip_prefix("median ").ok_or("no 'median '")?;
    let (median, rest) = rest.split_once(" s, min ").ok_or("no ' s, min '")?;
    let (min, rest) = rest.split_once(" s, ").ok_or("no ' s, '")?;
    let rate = rest
        .strip_suffix(" M px/s")
        .ok_or("no ' M px/s' at the end")?;
    Ok((number(median, 4)?, number(min, 4)?, number(rate, 1)?))
}

#[test]
fn timing_summary_shape() {
    assert_eq!(
        timing_summary("median 0.1234 s, min 0.1000 s, 67.2 M px/s"),
        Ok((0.1234, 0.1, 67.2))
    );
    for bad in [
        "median 0.123 s, min 0.1000 s, 67.2 M px/s",
        "median 0.1234 s, min 0.1000 s, 67.25 M px/s",
        "median 0.1234 s, min 0.1000 s, 67.2 M px/s ",
        "cpu 0.1000 s per run",
    ] {
        assert!(timing_summary(bad).is_err(), "{bad}");
    }
}

/// `--repeat`: each run, the CPU time, and the exact summary line last; the VRAM written is the
/// plain replay's, on 1 and 2 threads.
#[test]
fn repeat_times_runs_and_writes_the_same_vram() {
    // STREAM, then a 100x100 gouraud triangle (area 5000) and a 16x16 sprite (256).
    let input = tmp("repeat.stream.txt");
    let text = format!(
        "{STREAM}gp0 e3000000\ngp0 e407ffff\n\
         gp0 300000ff\ngp0 00000000\ngp0 0000ff00\ngp0 00000064\ngp0 00ff0000\ngp0 00640000\n\
         gp0 7800ff00\ngp0 00800080\n"
    );
    std::fs::write(&input, text).unwrap();
    let plain = tmp("repeat.plain.bin");
    let (code, t) = replay(&[
        input.to_str().unwrap(),
        "--vram-raw",
        plain.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{t}");
    let expected = std::fs::read(&plain).unwrap();
    for threads in ["1", "2"] {
        let timed = tmp(&format!("repeat.{threads}.bin"));
        let (code, t) = replay(&[
            input.to_str().unwrap(),
            "--repeat",
            "3",
            "--threads",
            threads,
            "--vram-raw",
            timed.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{t}");
        let lines: Vec<&str> = t.lines().collect();
        let n = lines.len();
        let (median, min, _) = timing_summary(lines[n - 1]).unwrap_or_else(|e| panic!("{e}\n{t}"));
        assert!(min <= median, "{t}");
        assert!(
            lines[n - 2].starts_with("cpu ") && lines[n - 2].ends_with(" s per run"),
            "{t}"
        );
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("run ")).count(),
            3,
            "{t}"
        );
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("wrote ")).count(),
            1,
            "written once: {t}"
        );
        assert!(
            std::fs::read(&timed).unwrap() == expected,
            "threads {threads}: VRAM differs from a plain replay"
        );
    }
    let (code, t) = replay(&[input.to_str().unwrap(), "--repeat", "0"]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("--repeat"), "{t}");
}
