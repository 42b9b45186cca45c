//! `hwtests/emulator-reference`: every random stream (those that never draw over textures,
//! and the `wide` ones that do) and model frame, replayed from power-on, must leave exactly the
//! VRAM the reference software GPU left (all 16 bits), serially, on all cores and at
//! `Pool(n)` for n = 2 to 64 (each n's plan, drawn on at most one thread per core). A failure
//! lists, per file, how many halfwords differ and the first few with their coordinates.
mod common;

use std::io::Read;
use std::path::Path;

use gpu::FeedbackStats;
use psxrender::capture::input::Input;
use psxrender::capture::replay::{run, Options};

/// The thread settings every input is replayed at (0: all cores).
const THREADS: [usize; 9] = [1, 0, 2, 3, 5, 8, 16, 33, 64];

fn gunzip(path: &Path) -> Vec<u8> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    out
}

/// Replays every input of `sub` (`streams`, `wide` or `frames`) at each thread setting;
/// returns the number of inputs, one line per file and setting that differs, and how often
/// the texture cache's in-order path ran over all of them (serially).
fn check(sub: &str, suffix: &str) -> (usize, Vec<String>, FeedbackStats) {
    let dir = common::shared(&format!("hwtests/emulator-reference/{sub}"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(suffix))
        .collect();
    names.sort();
    let mut failures = Vec::new();
    let mut stats = FeedbackStats::default();
    for name in &names {
        let data = match suffix.ends_with(".gz") {
            true => gunzip(&dir.join(name)),
            false => std::fs::read(dir.join(name)).unwrap(),
        };
        let base = name.trim_end_matches(suffix);
        let expected: Vec<u16> = gunzip(&dir.join(format!("{base}.vram.gz")))
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(expected.len(), 1024 * 512, "{base}.vram.gz");
        let input = Input::parse(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        for threads in THREADS {
            let opts = Options {
                threads,
                parallel_min_load: Some(0),
                ..Default::default()
            };
            let mut done = run(&input, opts).unwrap();
            if threads == 1 {
                let s = done.gpu.feedback_stats();
                stats.in_order += s.in_order;
                stats.catch_ups += s.catch_ups;
            }
            let vram = done.gpu.vram();
            let bad: Vec<usize> = (0..vram.len())
                .filter(|&i| vram[i] != expected[i])
                .collect();
            if !bad.is_empty() {
                let first: Vec<String> = bad
                    .iter()
                    .take(5)
                    .map(|&i| {
                        format!(
                            "({},{}) {:04x} want {:04x}",
                            i % 1024,
                            i / 1024,
                            vram[i],
                            expected[i]
                        )
                    })
                    .collect();
                failures.push(format!(
                    "{sub}/{base} threads {threads}: {} halfwords differ: {}",
                    bad.len(),
                    first.join(", ")
                ));
            }
        }
    }
    (names.len(), failures, stats)
}

fn assert_all(sub: &str, suffix: &str, count: usize) -> FeedbackStats {
    let (files, failures, stats) = check(sub, suffix);
    assert_eq!(files, count, "{sub}: expected {count} inputs");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    stats
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/emulator-reference")]
fn random_streams_leave_the_reference_vram() {
    let stats = assert_all("streams", ".stream.txt.gz", 10);
    assert_eq!(stats.in_order, 0, "no primitive samples what was drawn");
}

/// The one wide stream whose VRAM the console's CLUT cache rule changes.
const CLUT_RULE_STREAM: &str = "wide-tgtri-2106";

/// Streams that draw over texture pages and CLUTs, sample what they drew and what they draw,
/// and read stale texels from the texture cache: every primitive that does is drawn in order
/// through the cache model, and 5 of the 6 leave the reference's VRAM exactly. The sixth draws
/// 4-bit primitives with a CLUT the cache loaded for 8 bits and that was drawn over since:
/// the console uses the entries the cache holds (gpu-images/clut-cache row 152, which
/// `tests/gpu_images.rs` holds us to), the reference loads them again; see the next test.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/emulator-reference")]
fn wide_streams_leave_the_reference_vram() {
    let (files, failures, stats) = check("wide", ".stream.txt.gz");
    assert_eq!(files, 6, "wide: expected 6 inputs");
    let prefix = format!("wide/{CLUT_RULE_STREAM} ");
    let other: Vec<&String> = failures
        .iter()
        .filter(|f| !f.starts_with(&prefix))
        .collect();
    assert!(other.is_empty(), "\n{}", failures.join("\n"));
    assert_eq!(
        failures.len(),
        THREADS.len(),
        "{CLUT_RULE_STREAM} differs at every thread count"
    );
    assert!(stats.in_order > 0, "{stats:?}");
}

/// With the reference's CLUT cache rule ([`gpu::ClutReload::Reference`])
/// the sixth wide stream leaves the reference VRAM exactly too, at every thread count: the
/// console's rule is all it differs by.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/emulator-reference")]
fn the_last_wide_stream_differs_only_by_the_consoles_clut_cache_rule() {
    let dir = common::shared("hwtests/emulator-reference/wide");
    let data = gunzip(&dir.join(format!("{CLUT_RULE_STREAM}.stream.txt.gz")));
    let expected = gunzip(&dir.join(format!("{CLUT_RULE_STREAM}.vram.gz")));
    let input = psxrender::capture::replay::Prepared::new(&Input::parse(&data).unwrap());
    for threads in THREADS {
        let mut g = gpu::Gpu::new();
        g.set_threads(gpu::Threads::from_count(threads));
        g.set_parallel_min_load(0);
        g.set_clut_reload(gpu::ClutReload::Reference);
        input.feed(&mut g, None).unwrap();
        let bad = g
            .vram()
            .iter()
            .zip(expected.chunks_exact(2))
            .filter(|(&v, e)| v != u16::from_le_bytes([e[0], e[1]]))
            .count();
        assert_eq!(bad, 0, "threads {threads}: {bad} halfwords differ");
    }
}

/// Real model frames never sample what they draw: every primitive stays in the batches.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/emulator-reference")]
fn model_frames_leave_the_reference_vram() {
    let stats = assert_all("frames", ".psxgpu", 7);
    assert_eq!(stats, FeedbackStats::default(), "the in-order path ran");
}

/// The pixel history of a grid of halfwords over the `all-*` streams (every command kind):
/// tracing changes no pixel (the in-order path it draws through, one pixel at a time, leaves
/// the VRAM the batched span kernels leave); each watched halfword's events chain (each starts
/// from the value the previous one left, so no write went unlisted) and end at its final value.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/emulator-reference")]
fn pixel_history_lists_every_write() {
    let dir = common::shared("hwtests/emulator-reference/streams");
    let points: Vec<(u16, u16)> = (0..64)
        .flat_map(|i| (0..32).map(move |j| (i * 11 + 3, j * 15 + 2)))
        .collect();
    for seed in 1201..=1205 {
        let data = gunzip(&dir.join(format!("all-{seed}.stream.txt.gz")));
        let input = Input::parse(&data).unwrap();
        let plain = run(&input, Options::default()).unwrap().gpu.vram().to_vec();
        let opts = Options {
            watch: points.clone(),
            ..Default::default()
        };
        let mut traced = run(&input, opts).unwrap().gpu;
        assert!(
            traced.vram() == &plain[..],
            "all-{seed}: tracing changed VRAM"
        );
        let events = traced.history().to_vec();
        assert!(
            events.len() > 1000,
            "all-{seed}: only {} events",
            events.len()
        );
        for &(x, y) in &points {
            let mut value = 0u16;
            for e in events.iter().filter(|e| (e.x, e.y) == (x, y)) {
                assert_eq!(
                    e.before, value,
                    "all-{seed} ({x},{y}): command {} starts from {:04x}, the last event left {value:04x}",
                    e.command, e.before
                );
                assert!(e.agrees(), "all-{seed} ({x},{y}): {e:?}");
                value = e.after;
            }
            assert_eq!(
                value,
                plain[y as usize * 1024 + x as usize],
                "all-{seed} ({x},{y})"
            );
        }
    }
}
