//! Emulator captures as users have them: compressed dumps (zstd, xz) replay like plain ones,
//! broken ones fail cleanly, every frame of a capture comes out in one pass, and sequences of
//! pictures compare frame by frame.
mod cli_run;
mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use psxrender::capture::compressed::Compression;
use psxrender::capture::dump::{self, Packet, VSyncTime};
use psxrender::capture::input::Input;
use psxrender::capture::replay::{run, Options};
use psxrender::formats::ErrorKind;

fn tmp(name: &str) -> PathBuf {
    cli_run::tmp("captures", name)
}

fn psxrender<S: AsRef<OsStr>>(args: &[S]) -> (Option<i32>, String) {
    cli_run::psxrender(args)
}

fn vram_after(data: &[u8]) -> Vec<u16> {
    let input = Input::parse(data).unwrap_or_else(|e| panic!("{e}"));
    let opts = Options {
        threads: 1,
        ..Default::default()
    };
    run(&input, opts).unwrap().gpu.vram().to_vec()
}

/// Every emulator-reference frame, compressed here both ways, replays to the plain dump's VRAM
/// (parsed from memory and streamed from a file).
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/emulator-reference")]
fn compressed_reference_frames_replay_like_the_plain_dumps() {
    let dir = common::shared("hwtests/emulator-reference/frames");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "psxgpu"))
        .collect();
    names.sort();
    assert!(names.len() >= 7, "{names:?}");
    for path in &names {
        let plain = std::fs::read(path).unwrap();
        let expected = vram_after(&plain);
        for c in [Compression::Zstd, Compression::Xz] {
            let packed = c.compress(&plain).unwrap();
            assert_eq!(Compression::detect(&packed), Some(c));
            let name = format!("{}: {}", path.display(), c.name());
            assert!(
                packed.len() < plain.len() / 4,
                "{name}: {} bytes",
                packed.len()
            );
            assert!(vram_after(&packed) == expected, "{name}: VRAM differs");
            let d = dump::parse(&packed).unwrap();
            assert_eq!(d.compression, Some(c), "{name}");
            assert_eq!(
                d.entries,
                dump::parse(&plain).unwrap().entries,
                "{name}: packets"
            );
        }
    }
}

/// A small dump: a fill, a comment, three frames.
fn small_dump() -> Vec<u8> {
    dump::encode(&[
        Packet::Comment("small".into()),
        Packet::Gp1(vec![0, 0x0300_0000]),
        Packet::Gp0(vec![0x0200_00ff, 0, 0x0010_0010]),
        Packet::VSync(VSyncTime::None),
        Packet::Gp0(vec![0x0200_ff00, 0x0004_0004, 0x0004_0004]),
        Packet::VSync(VSyncTime::U32(5)),
        Packet::VSync(VSyncTime::None),
    ])
    .unwrap()
}

/// Every cut of a compressed dump and seeded bit flips give a typed error or (a flip the
/// format cannot see) a dump; nothing panics.
#[test]
fn truncated_and_corrupted_compressed_dumps_fail_cleanly() {
    let plain = small_dump();
    for c in [Compression::Zstd, Compression::Xz] {
        let packed = c.compress(&plain).unwrap();
        assert!(dump::parse(&packed).is_ok());
        for cut in 0..packed.len() {
            let e = dump::parse(&packed[..cut]).expect_err(&format!("{} cut at {cut}", c.name()));
            assert!(
                e.offset <= cut as u64 || cut < 6,
                "{}: {e} at cut {cut}",
                c.name()
            );
        }
        // A seeded LCG (Knuth's MMIX constants), its high half taken.
        let mut state = 34u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state >> 33
        };
        let mut errors = 0;
        for _ in 0..500 {
            let mut bad = packed.clone();
            for _ in 0..1 + next() % 3 {
                let bit = next() as usize % (bad.len() * 8);
                bad[bit / 8] ^= 1 << (bit % 8);
            }
            if let Err(e) = dump::parse(&bad) {
                errors += 1;
                assert!(!e.to_string().is_empty());
            }
        }
        // Both formats carry checksums: nearly every flip is caught.
        assert!(
            errors > 400,
            "{}: only {errors} of 500 flips refused",
            c.name()
        );
    }
}

/// A decompression bomb stops at the cap, with the offset in the compressed input.
#[test]
fn decompression_bombs_stop_at_the_cap() {
    let mut big = dump::Writer::new();
    big.gp0_words(&vec![0; 1 << 20]);
    let plain = big.finish();
    for c in [Compression::Zstd, Compression::Xz] {
        let packed = c.compress(&plain).unwrap();
        let reader = dump::PacketReader::new(c.decoder(&packed[..], 64 << 10)).unwrap();
        let e = dump::collect(reader).unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::CountTooLarge { .. }),
            "{}: {e}",
            c.name()
        );
        assert!(e.offset <= packed.len() as u64, "{e}");
        assert!(e.to_string().contains(c.name()), "{e}");
    }
}

/// The demo character's frames 0..6 as one capture (compressed), replayed frame by frame:
/// the same PNG files, byte for byte; the two sequences compare equal; `info` describes the
/// compressed capture.
#[test]
fn an_animation_capture_replays_to_the_rendered_frames() {
    let out = tmp("anim/render.png");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let cap = tmp("anim/cap.psxgpu.zst");
    let (code, t) = psxrender(&[
        OsStr::new("demo"),
        out.as_os_str(),
        OsStr::new("--frames"),
        OsStr::new("0..6"),
        OsStr::new("--dump-gp0"),
        cap.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{t}");
    let head = std::fs::read(&cap).unwrap();
    assert_eq!(Compression::detect(&head), Some(Compression::Zstd));

    let shots = tmp("anim/shots");
    let gif = tmp("anim/anim.gif");
    let (code, t) = psxrender(&[
        OsStr::new("replay"),
        cap.as_os_str(),
        OsStr::new("--frames"),
        OsStr::new("0..6"),
        OsStr::new("--display"),
        shots.as_os_str(),
        OsStr::new("--gif"),
        gif.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("6 pictures"), "{t}");
    for n in 0..6 {
        let ours = std::fs::read(shots.join(format!("frame_{n:04}.png"))).unwrap();
        let rendered = std::fs::read(tmp(&format!("anim/render_{n:04}.png"))).unwrap();
        assert!(ours == rendered, "frame {n} differs from the rendered PNG");
    }
    let ms = common::gif_delays_ms(&gif);
    assert!(!ms.is_empty() && ms.len() <= 6, "{}", ms.len());
    // 6 NTSC fields (100.1 ms), each GIF frame at least 2/100 s.
    assert!(ms.iter().all(|&m| m >= 20), "{ms:?}");
    assert!(ms.iter().sum::<u32>() >= 100, "{ms:?}");

    let pattern = tmp("anim/render_*.png");
    let (code, t) = psxrender(&[
        OsStr::new("compare"),
        pattern.as_os_str(),
        shots.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("frames compared: 6, equal: 6"), "{t}");

    // Past the capture's end: a clear refusal.
    let (code, t) = psxrender(&[
        OsStr::new("replay"),
        cap.as_os_str(),
        OsStr::new("--frames"),
        OsStr::new("4..9"),
        OsStr::new("--vram"),
        tmp("anim/vram").as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("has 6 frame marks"), "{t}");

    // Re-written compressed both ways: the same packets as the plain dump.
    let plain = tmp("anim/again.psxgpu");
    for out in [
        plain.clone(),
        tmp("anim/again.psxgpu.xz"),
        tmp("anim/again.psxgpu.zst"),
    ] {
        let (code, t) = psxrender(&[
            OsStr::new("replay"),
            cap.as_os_str(),
            OsStr::new("--dump"),
            out.as_os_str(),
        ]);
        assert_eq!(code, Some(0), "{t}");
        let packets = |p: &Path| dump::parse(&std::fs::read(p).unwrap()).unwrap().entries;
        assert_eq!(packets(&out), packets(&plain), "{}", out.display());
    }

    let (code, t) = psxrender(&[OsStr::new("info"), cap.as_os_str()]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("zstd-compressed"), "{t}");
    assert!(t.contains("frames: 6"), "{t}");
}

fn write_seq(dir: &Path, prefix: &str, count: u64, altered: &[u64]) {
    std::fs::create_dir_all(dir).unwrap();
    for n in 0..count {
        let mut rgb: Vec<u8> = (0..8 * 8 * 3)
            .map(|i| ((i as u64 * 8 + n) % 256) as u8 & 0xF8)
            .collect();
        if altered.contains(&n) {
            let px = 3 * (8 * 2 + 5);
            rgb[px] ^= 0x80;
        }
        let p = dir.join(format!("{prefix}{n:04}.png"));
        psxrender::output::save_png_rgb(&p, 8, 8, &rgb).unwrap();
    }
}

/// Two 250-frame sequences, one with frames 120 and 200 altered: exactly those two reported.
#[test]
fn sequences_compare_frame_by_frame() {
    let (a, b, diff) = (tmp("seq/a"), tmp("seq/b"), tmp("seq/diff"));
    write_seq(&a, "frame_", 250, &[]);
    write_seq(&b, "shot-", 250, &[120, 200]);
    let (code, t) = psxrender(&[
        OsStr::new("compare"),
        a.as_os_str(),
        b.as_os_str(),
        OsStr::new("--diff"),
        diff.as_os_str(),
    ]);
    assert_eq!(code, Some(1), "{t}");
    let lines: Vec<&str> = t.lines().filter(|l| l.starts_with("frame ")).collect();
    assert_eq!(lines.len(), 2, "{t}");
    assert!(
        lines[0].starts_with("frame 120: 1 pixels differ, largest channel error 16"),
        "{t}"
    );
    assert!(lines[0].contains("x 5..5, y 2..2"), "{t}");
    assert!(lines[1].starts_with("frame 200: "), "{t}");
    assert!(t.contains("first differing frame: 120"), "{t}");
    assert!(t.contains("frames compared: 250, equal: 248"), "{t}");
    let mut written: Vec<String> = std::fs::read_dir(&diff)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(written, ["diff_0120.png", "diff_0200.png"]);

    let (code, t) = psxrender(&[OsStr::new("compare"), a.as_os_str(), a.as_os_str()]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("first differing frame: none"), "{t}");
    let (code, t) = psxrender(&[
        OsStr::new("compare"),
        a.as_os_str(),
        tmp("seq/missing").as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{t}");
}
