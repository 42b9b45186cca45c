//! Hostile recorded GPU input: counts from the command line and from files cost bounded memory
//! and time, and compressed text streams are read as the help promises. Every input here is
//! generated, scaled down from the files that exposed each bug: memory is checked as peak bytes
//! allocated per input byte, counted by this binary's allocator on the test's own thread.

mod cli_run;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::{Duration, Instant};

use psxrender::capture::compressed::Compression;
use psxrender::capture::dump::{self, Packet, PacketType, MAGIC_SPEC, MAX_READ_WORDS};
use psxrender::capture::input::Input;
use psxrender::capture::replay::{self, Prepared};

/// The system allocator, counting the bytes live on each thread and their peak.
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

/// Adds `delta` bytes to this thread's live count (nothing while the thread is ending).
fn count(delta: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call goes straight to `System` with the caller's arguments; counting touches
// only const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = System.realloc(p, layout, new_size);
        if !q.is_null() {
            // Both blocks may exist while the old one is copied: the peak sees them together.
            count(new_size as isize);
            count(-(layout.size() as isize));
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What `f` returns, and the most bytes it had allocated at once on this thread (what it
/// returns included).
fn peak_bytes<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let start = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(start));
    let out = f();
    let peak = PEAK.with(Cell::get);
    (out, (peak - start).max(0) as usize)
}

/// Parses `data` and prepares it for replay, as `replay` does; the peak bytes allocated per
/// byte of `data`.
fn bytes_per_input_byte(data: &[u8]) -> f64 {
    let (_, peak) = peak_bytes(|| {
        let input = Input::parse(data).unwrap();
        let prepared = Prepared::new(&input);
        (input, prepared)
    });
    peak as f64 / data.len() as f64
}

/// Most bytes a parsed and prepared input may hold at once per byte of the file: the packets
/// as the file holds them (a text stream's also with a line number each), the steps and words
/// to feed again, and the spare room of vectors still growing. The worst mixes of short lines
/// of different kinds come nearest to it.
const MAX_BYTES_PER_BYTE: f64 = 5.0;

fn tmp(name: &str) -> std::path::PathBuf {
    cli_run::tmp("hostile_capture", name)
}

fn replay(args: &[&str]) -> (Option<i32>, String) {
    cli_run::psxrender(["replay"].iter().chain(args))
}

/// `--repeat 4294967295` once reserved room for that many run times (64 GB); the count is
/// now refused by the command line, with the limit the help states.
#[test]
fn repeat_counts_past_the_limit_are_refused() {
    let input = tmp("repeat.stream.txt");
    std::fs::write(&input, "gp0 00000000\n").unwrap();
    let limit = replay::MAX_REPEAT.to_string();
    for n in ["4294967295", "100001"] {
        let (code, t) = replay(&[input.to_str().unwrap(), "--repeat", n]);
        assert_eq!(code, Some(2), "--repeat {n}: {t}");
        assert!(t.contains("--repeat") && t.contains(&limit), "{t}");
    }
    let (code, help) = replay(&["--help"]);
    assert_eq!(code, Some(0), "{help}");
    assert!(help.contains(&format!("up to {limit}")), "{help}");
}

/// A dump of header-only packets (a 64-byte header, then zero words: each an empty GP0
/// packet) once cost 40 bytes per 4-byte packet.
#[test]
fn header_only_dump_packets_cost_their_own_size() {
    let mut data = dump::encode(&[Packet::Comment("x".repeat(40))]).unwrap();
    data.resize(64, 0);
    data.resize(64 + (4 << 20), 0);
    let per_byte = bytes_per_input_byte(&data);
    assert!(
        per_byte <= MAX_BYTES_PER_BYTE,
        "{per_byte:.2} bytes per byte"
    );
    let packed = Compression::Zstd.compress(&data).unwrap();
    let (input, peak) = peak_bytes(|| Input::parse(&packed).unwrap());
    let per_byte = peak as f64 / data.len() as f64;
    assert!(
        per_byte <= MAX_BYTES_PER_BYTE,
        "compressed: {per_byte:.2} bytes per decoded byte"
    );
    assert!(
        input.summary().contains("1048577 packets"),
        "{}",
        input.summary()
    );
}

/// A text stream of `frame` lines (and one of minimal `gp0` lines) once cost 64 bytes per
/// 6-byte line.
#[test]
fn frame_and_word_lines_cost_bounded_memory() {
    let lines = 1 << 20;
    let frames = format!("gp0 01000000\n{}", "frame\n".repeat(lines));
    let per_byte = bytes_per_input_byte(frames.as_bytes());
    assert!(per_byte <= MAX_BYTES_PER_BYTE, "frames: {per_byte:.2}");
    let input = Input::parse(frames.as_bytes()).unwrap();
    assert_eq!(input.frames(), lines as u64);
    let words = "gp0 0\n".repeat(lines);
    let per_byte = bytes_per_input_byte(words.as_bytes());
    assert!(per_byte <= MAX_BYTES_PER_BYTE, "words: {per_byte:.2}");
    let alternating = "gp0 0\ngp1 0\nframe\n".repeat(lines / 3);
    let per_byte = bytes_per_input_byte(alternating.as_bytes());
    assert!(per_byte <= MAX_BYTES_PER_BYTE, "alternating: {per_byte:.2}");
}

/// Replay stops at any frame inside a run of frame marks, and places stay right.
#[test]
fn frames_inside_a_run_of_marks_stop_where_asked() {
    let text = "gp0 02000000\ngp0 00000000\ngp0 00010010\nframe\nframe\nframe\n\
                gp0 020000ff\ngp0 00000000\ngp0 00010010\nframe\nframe\n";
    let input = Input::parse(text.as_bytes()).unwrap();
    assert_eq!(input.frames(), 5);
    for (frame, red) in [(1, false), (2, false), (3, false), (4, true), (5, true)] {
        let opts = replay::Options {
            frame: Some(frame),
            threads: 1,
            ..Default::default()
        };
        let mut r = replay::run(&input, opts).unwrap();
        assert_eq!(r.frames_run, frame);
        assert_eq!(r.gpu.vram()[0] == 0x001f, red, "frame {frame}");
    }
    assert_eq!(input.locate_gp0(4).as_deref(), Some("line 8"));
}

/// The help says text streams may be zstd/xz compressed: they replay (whole, frame by frame)
/// and are described exactly like the plain file.
#[test]
fn compressed_text_streams_replay_like_plain_ones() {
    let text = "# test\ngp1 00000000\ngp1 03000000\ngp0 020000ff\ngp0 00000000\n\
                gp0 00010010\nframe\ngp0 a0000000\ngp0 00010000\ngp0 00010002\n\
                gp0 80017c00\nframe\n";
    let plain = tmp("stream.txt");
    std::fs::write(&plain, text).unwrap();
    let raw = |input: &std::path::Path, name: &str| {
        let out = tmp(name);
        let (code, t) = replay(&[input.to_str().unwrap(), "--vram-raw", out.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{t}");
        (std::fs::read(out).unwrap(), t)
    };
    let (expected, _) = raw(&plain, "plain.bin");
    for c in [Compression::Zstd, Compression::Xz] {
        let packed = tmp(&format!("stream.txt.{}", c.name()));
        std::fs::write(&packed, c.compress(text.as_bytes()).unwrap()).unwrap();
        let (vram, t) = raw(&packed, &format!("{}.bin", c.name()));
        assert!(vram == expected, "{}: VRAM differs", c.name());
        let summary = format!("text stream ({}-compressed): 7 GP0 words", c.name());
        assert!(t.contains(&summary), "{t}");

        let dir = tmp(&format!("frames.{}", c.name()));
        let (code, t) = replay(&[
            packed.to_str().unwrap(),
            "--frames",
            "0..2",
            "--display",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{t}");
        assert!(dir.join("frame_0001.png").exists(), "{t}");

        let (code, t) = cli_run::psxrender(["info", packed.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{t}");
        assert!(t.contains("frames: 2"), "{t}");
    }
    // Compressed binary that is neither: a typed error, no panic.
    let junk = tmp("junk.txt.zst");
    std::fs::write(&junk, Compression::Zstd.compress(&[0xff; 64]).unwrap()).unwrap();
    let (code, t) = replay(&[junk.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("neither a GPUDUMP"), "{t}");
}

/// Discard packets each claiming a whole VRAM of GPUREAD words, with no read under way: the
/// reads do nothing, and once took a quarter of a million calls per 8-byte packet.
#[test]
fn discards_with_nothing_to_read_take_bounded_time() {
    let mut data = MAGIC_SPEC.to_vec();
    for _ in 0..5000 {
        let header = u32::from(PacketType::DISCARD.0) << 24 | 1;
        data.extend_from_slice(&header.to_le_bytes());
        data.extend_from_slice(&MAX_READ_WORDS.to_le_bytes());
    }
    let input = Input::parse(&data).unwrap();
    let opts = replay::Options {
        threads: 1,
        ..Default::default()
    };
    let start = Instant::now();
    replay::run(&input, opts).unwrap();
    let took = start.elapsed();
    assert!(took < Duration::from_millis(500), "{took:?}");
}

/// A dump of unknown packets makes one warning line each; only the first ones are kept.
#[test]
fn warnings_are_capped() {
    let mut data = MAGIC_SPEC.to_vec();
    for _ in 0..100_000 {
        data.extend_from_slice(&0x7f00_0000u32.to_le_bytes());
    }
    let d = dump::parse(&data).unwrap();
    assert_eq!(d.warnings.len(), dump::MAX_WARNINGS + 1);
    let last = d.warnings.last().unwrap();
    assert!(last.starts_with("99900 more"), "{last}");
}

/// A plain recording is played as it is read (`replay` without `--history`, `--repeat` or
/// `--dump`; `info`): memory stays at a packet and the GPU, whatever the file's length. Here 48
/// MiB of 512 KiB uploads and VSyncs peak under 8 MiB on this thread (a 300 MB one under 10
/// MB of the whole process, measured for issue 71); read whole it would cost its size.
#[test]
fn plain_recordings_stream_in_bounded_memory() {
    use psxrender::capture::compressed::MaxDecoded;
    use psxrender::capture::sequence;
    let path = tmp("long.psxgpu");
    let mut data = dump::MAGIC_SHORT.to_vec();
    data.extend_from_slice(&0x0500_0000u32.to_le_bytes());
    let words = 3 + 512 * 512 / 2;
    for n in 0..96u32 {
        for w in [words, 0xA000_0000, (n % 2) * 512, 0x0200_0200] {
            data.extend_from_slice(&w.to_le_bytes());
        }
        data.extend((0..512 * 512 * 2).map(|i| (i as u32 ^ n) as u8));
        for w in [0x0200_0002, n, 0] {
            data.extend_from_slice(&w.to_le_bytes());
        }
    }
    std::fs::write(&path, &data).unwrap();
    let len = data.len();
    drop(data);
    let (frames, peak) = peak_bytes(|| {
        let mut opened = sequence::open(&path, MaxDecoded::default()).unwrap();
        let mut gpu = replay::new_gpu(&replay::Options {
            threads: 1,
            ..Default::default()
        });
        sequence::run_to(&mut opened.packets, &mut gpu, None).unwrap()
    });
    assert_eq!(frames, Ok(96));
    assert!(len > 48 << 20, "{len}");
    assert!(
        peak < 8 << 20,
        "{peak} bytes at the peak for a {len}-byte file"
    );
}
