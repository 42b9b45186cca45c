//! DuckStation both ways (issue 71): the dumps we write open in its player, the recordings it
//! writes read as its player reads them, and the hostile compressed inputs of issue 66 (rows 9
//! and 13) are refused at once or read. Every input is built by the test.

mod cli_run;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use psxrender::capture::compressed::Compression;
use psxrender::capture::dump::{self, Form, Packet, PacketRef, VSyncTime};
use psxrender::capture::input::Input;
use psxrender::capture::replay;

fn tmp(name: &str) -> PathBuf {
    cli_run::tmp("duckstation", name)
}

fn run(args: &[&OsStr]) -> (Option<i32>, String) {
    cli_run::psxrender(args)
}

/// A zstd frame of `head` (a raw block) then `zeros` zero bytes as RLE blocks of 128 KiB: what
/// a compressor makes of a dump magic followed by gigabytes of empty packets, in 4 bytes per
/// block. No content size, window 128 KiB.
fn zero_bomb(head: &[u8], zeros: u64) -> Vec<u8> {
    const BLOCK: u64 = 128 << 10;
    let mut out = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x38];
    let block_header = |size: u64, rle: bool, last: bool| {
        let h = (size << 3) as u32 | u32::from(rle) << 1 | u32::from(last);
        h.to_le_bytes()[..3].to_vec()
    };
    out.extend(block_header(head.len() as u64, false, zeros == 0));
    out.extend_from_slice(head);
    let blocks = zeros / BLOCK;
    for n in 0..blocks {
        out.extend(block_header(BLOCK, true, n + 1 == blocks));
        out.push(0);
    }
    out
}

/// Issue 66 row 9: 4 GiB of empty packets in a 128 KiB zstd file took 102 s on the `--frames`
/// path before it was refused. Every path now stops after [`dump::MAX_EMPTY_RUN`] of them: at
/// byte 14 + 4 × 4 Mi of the decoded stream, the first 16 MiB, not the 4 GiB.
#[test]
fn zero_packet_bombs_are_refused_after_a_few_bytes() {
    let bomb = tmp("zeros.psxgpu.zst");
    let data = zero_bomb(dump::MAGIC_SHORT, 4 << 30);
    assert!(data.len() < 140_000, "{}", data.len());
    std::fs::write(&bomb, &data).unwrap();
    let (shots, png) = (tmp("zeros-shots"), tmp("zeros.png"));
    let stop = format!("0x{:x}", 14 + 4 * dump::MAX_EMPTY_RUN);
    for (args, out) in [
        (
            &["replay", "--frames", "0..1", "--display"][..],
            Some(&shots),
        ),
        (
            &["replay", "--frames", "3999990000..4000000000", "--display"],
            Some(&shots),
        ),
        (&["replay", "--display"], Some(&png)),
        (&["info"], None),
    ] {
        let mut all: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        all.insert(1, bomb.as_os_str());
        all.extend(out.map(|p| p.as_os_str()));
        let (code, t) = run(&all);
        assert_eq!(code, Some(2), "{args:?}: {t}");
        assert!(
            t.contains("packets in a row without a payload word") && t.contains(&stop),
            "{args:?}: {t}"
        );
    }
}

/// The relative limit: a compressed input decoding to more than `--max-decoded` allows is
/// refused naming the option; a larger limit reads it.
#[test]
fn max_decoded_sets_the_decoded_limit() {
    let vram = vec![0u16; 1024 * 512];
    let bytes = dump::capture(Form::DuckStation, "x", &vram, &[], &[&[0xE100_0000]]);
    let path = tmp("limit.psxgpu.zst");
    std::fs::write(&path, Compression::Zstd.compress(&bytes).unwrap()).unwrap();
    let (code, t) = run(&[
        OsStr::new("replay"),
        path.as_os_str(),
        OsStr::new("--max-decoded"),
        OsStr::new("512K"),
    ]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("decompressed bytes (--max-decoded)"), "{t}");
    // The --frames path reads as it goes, under the same limit.
    let shots = tmp("limit-frames");
    let (code, t) = run(&[
        OsStr::new("replay"),
        path.as_os_str(),
        OsStr::new("--frames"),
        OsStr::new("0..1"),
        OsStr::new("--display"),
        shots.as_os_str(),
        OsStr::new("--max-decoded"),
        OsStr::new("512K"),
    ]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("decompressed bytes (--max-decoded)"), "{t}");
    for limit in ["2M", "auto"] {
        let (code, t) = run(&[
            OsStr::new("info"),
            path.as_os_str(),
            OsStr::new("--max-decoded"),
            OsStr::new(limit),
        ]);
        assert_eq!(code, Some(0), "{limit}: {t}");
        assert!(t.contains("frames: 1"), "{t}");
    }
    let (code, t) = run(&[
        OsStr::new("replay"),
        path.as_os_str(),
        OsStr::new("--max-decoded"),
        OsStr::new("lots"),
    ]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("not a byte count"), "{t}");
}

/// The VRAM a dump's bytes replay to.
fn vram_of(bytes: &[u8]) -> Vec<u16> {
    let input = Input::parse(bytes).unwrap();
    let mut r = replay::run(&input, Default::default()).unwrap();
    r.gpu.vram().to_vec()
}

/// Issue 66 row 13: a zstd file starting with a skippable frame (what `pzstd` writes) reads
/// like the same file without it, on the command line and in the library.
#[test]
fn leading_skippable_frames_are_skipped() {
    let vram: Vec<u16> = (0..1024 * 512u32).map(|i| (i % 977) as u16).collect();
    let bytes = dump::capture(
        Form::DuckStation,
        "s",
        &vram,
        &[],
        &[&[0x0200_00ff, 0, 0x10]],
    );
    let mut packed = Vec::new();
    for magic in [0x184D_2A50u32, 0x184D_2A5F] {
        packed.extend_from_slice(&magic.to_le_bytes());
        packed.extend_from_slice(&4u32.to_le_bytes());
        packed.extend_from_slice(&[1, 2, 3, 4]);
    }
    packed.extend(Compression::Zstd.compress(&bytes).unwrap());
    assert_eq!(Compression::detect(&packed), Some(Compression::Zstd));
    assert!(vram_of(&packed) == vram_of(&bytes));
    let path = tmp("pzstd.psxgpu.zst");
    std::fs::write(&path, &packed).unwrap();
    let (code, t) = run(&[OsStr::new("info"), path.as_os_str()]);
    assert_eq!(code, Some(0), "{t}");
    assert!(
        t.contains("zstd-compressed") && t.contains("frames: 1"),
        "{t}"
    );
}

/// A recording cut at any byte after its trace begin replays the packets before the cut, with
/// a warning naming the byte where it stops unless the cut falls between packets.
#[test]
fn recordings_cut_anywhere_after_the_trace_begin_play_their_complete_packets() {
    let vram = vec![0x7fffu16; 1024 * 512];
    let frames: [&[u32]; 3] = [
        &[0x0200_001f, 0, 0x0010_0010],
        &[0x0200_7c00, 0x0010_0000, 0x0010_0010],
        &[0x0203_e000, 0x0000_0010, 0x0010_0010],
    ];
    let bytes = dump::capture(Form::DuckStation, "cut", &vram, &[], &frames);
    let full = dump::parse(&bytes).unwrap();
    let begin = full
        .entries
        .iter()
        .find(|e| e.packet == PacketRef::TraceBegin)
        .unwrap()
        .offset as usize;
    let ends: Vec<usize> = full
        .entries
        .iter()
        .map(|e| e.offset as usize)
        .chain([bytes.len()])
        .collect();
    for cut in begin + 4..=bytes.len() {
        let input = Input::parse(&bytes[..cut]).unwrap();
        let Input::Dump(d) = &input else {
            panic!("not a dump")
        };
        // The packets kept are those that end by the cut.
        let whole = ends.iter().filter(|&&e| e <= cut).count() - 1;
        assert_eq!(d.entries.len(), whole, "cut at {cut}");
        let warned = d
            .warnings
            .iter()
            .any(|w| w.contains("the recording is cut at byte"));
        assert_eq!(
            warned,
            !ends.contains(&cut),
            "cut at {cut}: {:?}",
            d.warnings
        );
        let expected = dump::encode_as(
            Form::DuckStation,
            &full
                .packets()
                .take(whole)
                .map(|p| p.to_packet())
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert!(vram_of(&bytes[..cut]) == vram_of(&expected), "cut at {cut}");
    }
    // On the command line: exit 0, a warning, the frames before the cut.
    let path = tmp("cut.psxgpu");
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    let (code, t) = run(&[OsStr::new("replay"), path.as_os_str()]);
    assert_eq!(code, Some(0), "{t}");
    assert!(
        t.contains("warning:") && t.contains("the recording is cut at byte"),
        "{t}"
    );
    assert!(t.contains("ran 2 frames"), "{t}");
}

/// Every form we write (DuckStation's and the spec's, plain, zstd and xz) replays to the same
/// VRAM as the input it was written from; a zstd one states its content size.
#[test]
fn dumps_written_in_either_form_replay_to_the_same_vram() {
    let text = "gp1 00000000\ngp1 03000000\ngp0 020000ff\ngp0 00000000\ngp0 00100010\n\
                frame\ngp0 a0000000\ngp0 00010000\ngp0 00010002\ngp0 80017c00\nframe\n";
    let stream = tmp("forms.stream.txt");
    std::fs::write(&stream, text).unwrap();
    let raw = |input: &Path, name: &str| {
        let out = tmp(name);
        let (code, t) = run(&[
            OsStr::new("replay"),
            input.as_os_str(),
            OsStr::new("--vram-raw"),
            out.as_os_str(),
        ]);
        assert_eq!(code, Some(0), "{t}");
        std::fs::read(out).unwrap()
    };
    let expected = raw(&stream, "forms.bin");
    for (form, magic) in [
        ("duckstation", &dump::MAGIC_SHORT[..]),
        ("spec", dump::MAGIC_SPEC),
    ] {
        for ext in ["psxgpu", "psxgpu.zst", "psxgpu.xz"] {
            let out = tmp(&format!("forms-{form}.{ext}"));
            let (code, t) = run(&[
                OsStr::new("replay"),
                stream.as_os_str(),
                OsStr::new("--dump"),
                out.as_os_str(),
                OsStr::new("--dump-form"),
                OsStr::new(form),
            ]);
            assert_eq!(code, Some(0), "{t}");
            let written = std::fs::read(&out).unwrap();
            if ext == "psxgpu" {
                assert!(written.starts_with(magic), "{form}");
            }
            if ext == "psxgpu.zst" {
                // Frame header descriptor 0x84: a 4-byte content size, a checksum.
                assert_eq!(written[4] >> 6, 2, "{form}");
            }
            assert!(raw(&out, "forms-back.bin") == expected, "{form} {ext}");
        }
    }
}

/// A discard or read-back packet without its count is passed over with a warning, as
/// DuckStation's player passes over it; the dump still replays.
#[test]
fn zero_payload_reads_are_skipped() {
    let mut bytes = dump::encode_as(
        Form::DuckStation,
        &[
            Packet::TraceBegin,
            Packet::Gp0(vec![0x0200_00ff, 0, 0x0001_0001]),
        ],
    )
    .unwrap();
    for header in [0x0300_0000u32, 0x0400_0000] {
        bytes.extend_from_slice(&header.to_le_bytes());
    }
    let tail = dump::encode_as(Form::Spec, &[Packet::VSync(VSyncTime::U64(0))]).unwrap();
    bytes.extend_from_slice(&tail[16..]);
    let path = tmp("zero-reads.psxgpu");
    std::fs::write(&path, &bytes).unwrap();
    let (code, t) = run(&[OsStr::new("replay"), path.as_os_str()]);
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("no payload word").count(), 2, "{t}");
    assert!(t.contains("ran 1 frames"), "{t}");
}

/// Nearest-neighbour upscale of an RGB image by `k`.
fn upscale(img: &image::RgbImage, k: u32) -> image::RgbImage {
    image::RgbImage::from_fn(img.width() * k, img.height() * k, |x, y| {
        *img.get_pixel(x / k, y / k)
    })
}

/// Our `--display` of the built-in demo against a DuckStation-Overscan-shaped screenshot of it
/// (its 224 middle lines, 1×, 2× and 4× upscaled, built here): `compare` finds the crop and
/// reports them equal. `--crop` gives each DuckStation framing: overscan is that screenshot,
/// borders the standard range as it is, full the active area with black around it.
#[test]
fn display_crops_match_duckstation_screenshots() {
    let (png, dump) = (tmp("demo.png"), tmp("demo.psxgpu"));
    let (code, t) = run(&[
        OsStr::new("demo"),
        png.as_os_str(),
        OsStr::new("--dump-gp0"),
        dump.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{t}");
    let display = |crop: &str| {
        let out = tmp(&format!("demo-{crop}.png"));
        let (code, t) = run(&[
            OsStr::new("replay"),
            dump.as_os_str(),
            OsStr::new("--display"),
            out.as_os_str(),
            OsStr::new("--crop"),
            OsStr::new(crop),
        ]);
        assert_eq!(code, Some(0), "{t}");
        (out.clone(), image::open(&out).unwrap().to_rgb8())
    };
    let (range_png, range) = display("range");
    assert_eq!(range.dimensions(), (320, 240));
    let middle = image::imageops::crop_imm(&range, 0, 8, 320, 224).to_image();
    for k in [1, 2, 4] {
        let shot = tmp(&format!("duckstation-{k}x.png"));
        upscale(&middle, k).save(&shot).unwrap();
        let (code, t) = run(&[
            OsStr::new("compare"),
            range_png.as_os_str(),
            shot.as_os_str(),
        ]);
        assert_eq!(code, Some(0), "{k}x: {t}");
        assert!(t.contains("PSNR: infinite"), "{k}x: {t}");
        assert!(t.contains("x 0..319, y 8..231 (320x224) of A"), "{k}x: {t}");
    }
    let (_, overscan) = display("overscan");
    assert!(overscan == middle, "overscan is the middle 224 lines");
    let (_, borders) = display("borders");
    assert!(
        borders == range,
        "borders of the standard range is the range"
    );
    let (_, full) = display("full");
    assert_eq!(full.dimensions(), (350, 240));
    let inner = image::imageops::crop_imm(&full, 15, 0, 320, 240).to_image();
    assert!(inner == range, "the range sits 15 pixels in");
    assert!(
        (0..240).all(|y| full.get_pixel(0, y).0 == [0, 0, 0]),
        "black border"
    );
}
