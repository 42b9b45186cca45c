//! Random GP0/GP1 traffic: never panics, recovers at GP1(01h), and banded drawing equals serial.

use gpu::Gpu;
use proptest::prelude::*;

use gpu::XorShift as Rng;

/// What one run of random traffic left: every GPUREAD and GPUSTAT value read along the way, and
/// VRAM at the end.
#[derive(PartialEq, Eq)]
struct Outcome {
    reads: Vec<u32>,
    vram: Vec<u16>,
}

/// 50k random words (biased toward drawing commands) with GP1 commands, command-buffer resets
/// and read-backs mixed in, at one thread setting. After the last GP1(01h) the GPU must be back
/// at the command state: GPUSTAT bit 26 (ready for a command word) is set and a GP0(02h) fill
/// lands in VRAM.
fn random_words(seed: u64, threads: gpu::Threads) -> Outcome {
    let mut rng = Rng::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut gpu = Gpu::new();
    gpu.set_threads(threads);
    gpu.set_parallel_min_load(0);
    let mut reads = Vec::new();
    for i in 0..50_000 {
        let mut w = rng.next_u32();
        // Half the command words are drawing commands, so primitives really get drawn.
        if i % 7 == 0 {
            w = (w & 0x7fff_ffff) | 0x2000_0000;
        }
        if i % 997 == 0 {
            gpu.gp1(w & 0x1fff_ffff);
        }
        // Abort long uploads/polylines now and then so later words are commands again.
        if i % 256 == 0 {
            gpu.gp1(0x0100_0000);
        }
        gpu.gp0(w);
        if i % 101 == 0 {
            reads.push(gpu.gpuread());
            reads.push(gpu.gpustat());
        }
    }
    gpu.gp1(0x0100_0000);
    assert_ne!(
        gpu.gpustat() & 1 << 26,
        0,
        "seed {seed}: not ready for a command after GP1(01h)"
    );
    // GP0(02h) fill of 16x1 at (1008, 511) with colour 0x0000f8 (red 31): not clipped by the
    // drawing area or the mask, so it lands whatever state the noise left.
    gpu.gp0_words(&[0x0200_00f8, 0x01ff_03f0, 0x0001_0010]);
    let vram = gpu.vram().to_vec();
    assert!(
        vram[511 * 1024 + 1008..].iter().all(|&p| p == 0x001f),
        "seed {seed}: the fill after GP1(01h) did not land"
    );
    Outcome { reads, vram }
}

/// Random words never panic, leave the GPU able to take commands after GP1(01h), and draw the
/// same VRAM and read back the same values serially, on all cores and at `Pool(n)` for n = 2
/// to 64 (each n's plan, drawn on at most one thread per core: the plan depends on n alone).
/// (Each word costs bounded work, so the run is bounded; no wall-clock limit is asserted since
/// that would depend on the machine's load.)
#[test]
fn random_words_never_panic_and_agree_across_threads() {
    for seed in 1..=3u64 {
        let serial = random_words(seed, gpu::Threads::Serial);
        let pools = POOLS.map(gpu::Threads::Pool);
        for threads in [gpu::Threads::AllCores].into_iter().chain(pools) {
            let other = random_words(seed, threads);
            assert!(
                other.reads == serial.reads,
                "seed {seed}: {threads:?} read back other values than serial"
            );
            if let Some(i) = serial
                .vram
                .iter()
                .zip(&other.vram)
                .position(|(a, b)| a != b)
            {
                panic!(
                    "seed {seed}: {threads:?} ({}, {}) {:04x}, serial {:04x}",
                    i % 1024,
                    i / 1024,
                    other.vram[i],
                    serial.vram[i]
                );
            }
        }
    }
}

/// The pool sizes every determinism test runs.
const POOLS: [usize; 7] = [2, 3, 5, 8, 16, 33, 64];

/// A random but meaningful command: primitives with small coordinates, state changes,
/// transfers.
fn command() -> impl Strategy<Value = Vec<u32>> {
    let coord = || (0u32..80, 0u32..80).prop_map(|(x, y)| (y << 16) | x);
    let color = || any::<u32>().prop_map(|c| c & 0x00ff_ffff);
    let uv = || any::<u32>().prop_map(|v| v & 0xffff);
    prop_oneof![
        // Polygons (every flag combination), full packet with textures/colours.
        (
            0x20u32..0x40,
            proptest::collection::vec(any::<u32>(), 12),
            proptest::collection::vec(coord(), 4)
        )
            .prop_map(|(op, rand, pos)| {
                let quad = op & 8 != 0;
                let tex = op & 4 != 0;
                let gouraud = op & 0x10 != 0;
                let mut w = vec![(op << 24) | (rand[0] & 0xff_ffff)];
                for k in 0..(if quad { 4 } else { 3 }) {
                    if gouraud && k > 0 {
                        w.push(rand[k] & 0xff_ffff);
                    }
                    w.push(pos[k]);
                    if tex {
                        // CLUT near the top rows, texpage in the drawn region sometimes.
                        let attr = match k {
                            0 => (rand[4 + k] >> 16) & 0x0fff,
                            1 => (rand[4 + k] >> 16) & 0x01e1,
                            _ => 0,
                        };
                        w.push((attr << 16) | (rand[8 + k] & 0xffff));
                    }
                }
                w
            }),
        // Lines and polylines.
        (
            0x40u32..0x60,
            color(),
            proptest::collection::vec((coord(), color()), 2..5)
        )
            .prop_map(|(op, c, pts)| {
                let mut w = vec![(op << 24) | c];
                for (k, (p, pc)) in pts.iter().enumerate() {
                    if op & 0x10 != 0 && k > 0 {
                        w.push(*pc);
                    }
                    w.push(*p);
                }
                if op & 8 != 0 {
                    w.push(0x5555_5555);
                }
                w
            }),
        // Rectangles.
        (0x60u32..0x80, color(), coord(), uv(), coord()).prop_map(|(op, c, p, t, wh)| {
            let mut w = vec![(op << 24) | c, p];
            if op & 4 != 0 {
                w.push(t | 0x0010_0000);
            }
            if (op >> 3) & 3 == 0 {
                w.push(wh);
            }
            w
        }),
        // State.
        (0xe1u32..0xe7, any::<u32>()).prop_map(|(op, v)| vec![
            (op << 24)
                | if op == 0xe4 {
                    0x3_ffff & v | 0x1_8000
                } else {
                    v & 0xff_ffff
                }
        ]),
        // Transfers.
        (coord(), coord(), coord()).prop_map(|(a, b, c)| vec![0x8000_0000, a, b, c & 0x000f_000f]),
        (coord(), color()).prop_map(|(a, c)| vec![0x0200_0000 | c, a, 0x0010_0010]),
        (coord(), any::<u32>()).prop_map(|(a, p)| vec![0xa000_0000, a, 0x0002_0002, p, !p]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn banded_equals_serial(cmds in proptest::collection::vec(command(), 1..60)) {
        let words: Vec<u32> = cmds.concat();
        let mut serial = Gpu::new();
        serial.set_threads(gpu::Threads::from_count(1));
        serial.set_parallel_min_load(0);
        let mut banded = Gpu::new();
        banded.set_threads(gpu::Threads::from_count(3));
        banded.set_parallel_min_load(0);
        for g in [&mut serial, &mut banded] {
            g.gp0_words(&[0xe300_0000, 0xe407_ffff]);
            g.gp0_words(&words);
        }
        let (s, b) = (serial.vram().to_vec(), banded.vram().to_vec());
        if let Some(i) = s.iter().zip(&b).position(|(a, b)| a != b) {
            prop_assert!(false, "({}, {}) serial {:04x} banded {:04x}", i % 1024, i / 1024, s[i], b[i]);
        }
    }

    /// The same words, fed whole, one by one and in pieces of random sizes, on one thread, all
    /// cores, `Pool(2)` and `Pool(3)`, and through the portable span kernel, draw the same VRAM: a
    /// semi-transparent gouraud quad over all of VRAM, put at a random place, makes one batch
    /// heavy enough for all cores.
    #[test]
    fn any_chunking_and_any_threads_draw_the_same(
        cmds in proptest::collection::vec(command(), 100..300),
        at in any::<proptest::sample::Index>(),
        rgb in proptest::array::uniform4(any::<u32>()),
        cuts in proptest::collection::vec(1usize..40, 1..20),
    ) {
        let mut words = vec![0xe300_0000, 0xe407_ffff];
        let big = at.index(cmds.len());
        for (i, c) in cmds.iter().enumerate() {
            if i == big {
                // Drawing area all of VRAM, no offset, then the quad.
                words.extend([
                    0xe300_0000,
                    0xe407_ffff,
                    0xe500_0000,
                    0x3a00_0000 | (rgb[0] & 0xff_ffff),
                    0,
                    rgb[1] & 0xff_ffff,
                    1023,
                    rgb[2] & 0xff_ffff,
                    511 << 16,
                    rgb[3] & 0xff_ffff,
                    (511 << 16) | 1023,
                ]);
            }
            words.extend_from_slice(c);
        }
        let run = |threads: usize, simd: bool, feed: u8| {
            let mut g = Gpu::new();
            g.set_threads(gpu::Threads::from_count(threads));
            g.set_parallel_min_load(0);
            g.set_simd(simd);
            match feed {
                0 => g.gp0_words(&words),
                1 => words.iter().for_each(|&w| g.gp0(w)),
                _ => {
                    let mut rest = &words[..];
                    for &n in cuts.iter().cycle() {
                        if rest.is_empty() {
                            break;
                        }
                        let (head, tail) = rest.split_at(n.min(rest.len()));
                        g.gp0_words(head);
                        rest = tail;
                    }
                }
            }
            g.vram().to_vec()
        };
        let want = run(1, true, 0);
        for (threads, simd, feed) in [(0, true, 0), (2, true, 1), (3, false, 2), (1, false, 1), (0, true, 2)] {
            let got = run(threads, simd, feed);
            if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
                prop_assert!(
                    false,
                    "threads {threads} simd {simd} feed {feed}: ({}, {}) serial {:04x} got {:04x}",
                    i % 1024,
                    i / 1024,
                    want[i],
                    got[i]
                );
            }
        }
    }
}

/// One long call of thousands of random triangles (every polygon opcode; textures and CLUTs
/// right of x = 768, where nothing draws, so batches grow to thousands of primitives; now and
/// then a texture from the drawn area or a transfer ends the batch mid-call), drawn in bands on
/// all cores and `Pool(2)` to `Pool(64)`: every configuration must draw what a serial run draws.
#[test]
fn many_triangles_in_one_call_equal_serial() {
    let words = random_triangles(0x5eed_0f7a_1a91_00e5, 6000, Some(2000), false);
    every_pool_draws_what_serial_draws(&words);
}

/// Queues of thousands of triangles handed one after another to the job in the background
/// (the next prepared while one is scanned): every 700th triangle samples the drawn area after
/// a page change, so from VRAM as the batches before it left it, and 8-bit CLUTs wrap past
/// VRAM's right edge (copied from the snapshot). Every pool draws what a serial run draws.
#[test]
fn handed_over_queues_sampling_what_earlier_ones_drew_equal_serial() {
    let words = random_triangles(0x5eed_0f7a_1a91_0031, 20_000, None, true);
    every_pool_draws_what_serial_draws(&words);
}

/// More packets in one call than a queue holds (the queue ends in the middle of the call's run
/// of packets), with pages and so texture-cache epochs changing from packet to packet, draw
/// what the same words fed one at a time draw, serially and on two threads.
#[test]
fn a_call_longer_than_a_queue_draws_what_word_by_word_draws() {
    let words = random_triangles(0x5eed_0f7a_1a91_0777, 5000, None, false);
    let run = |threads: usize, whole: bool| {
        let mut g = Gpu::new();
        g.set_threads(gpu::Threads::from_count(threads));
        g.set_parallel_min_load(0);
        if whole {
            g.gp0_words(&words);
        } else {
            words.iter().for_each(|&w| g.gp0(w));
        }
        g.vram().to_vec()
    };
    let want = run(1, false);
    for (threads, whole) in [(1, true), (2, true), (2, false)] {
        let got = run(threads, whole);
        if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
            panic!(
                "threads {threads} whole {whole}: ({}, {}) word by word {:04x} got {:04x}",
                i % 1024,
                i / 1024,
                want[i],
                got[i]
            );
        }
    }
}

/// The words of `n` random triangles as [`many_triangles_in_one_call_equal_serial`] describes,
/// with a fill and a copy every `transfers` triangles, 8-bit CLUTs anywhere right of x = 768
/// (wrapping past the edge) when `wrapping`.
fn random_triangles(seed: u64, n: u32, transfers: Option<u32>, wrapping: bool) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    let mut words = vec![0xe300_0000, 0xe407_ffff, 0xe500_0000];
    // Random texels and CLUTs all over VRAM.
    words.extend([0xa000_0000, 0, (512 << 16) | 1024]);
    words.extend((0..1024 * 512 / 2).map(|_| rng.next_u32()));
    for i in 0..n {
        if transfers.is_some_and(|t| i % t == t - 1) {
            // A fill and a copy end the batch.
            let xy = (rng.below(400) << 16) | rng.below(600);
            words.extend([
                0x0200_0000 | (rng.next_u32() & 0xff_ffff),
                xy,
                (64 << 16) | 64,
            ]);
            words.extend([
                0x8000_0000,
                xy,
                (rng.below(400) << 16) | rng.below(600),
                0x0020_0020,
            ]);
        }
        let op = 0x20 + rng.below(0x20);
        let (quad, tex, gouraud) = (op & 8 != 0, op & 4 != 0, op & 0x10 != 0);
        let (ox, oy) = (rng.below(704 - 64), rng.below(512 - 64));
        // A page of any depth and blend mode whose footprint lies in x 768–1023, or every
        // 700th triangle page 0, which the stream draws; a CLUT at x 768–1023 on any row.
        let depth = rng.below(4);
        let page = match (i % 700, depth) {
            (699, _) => 0,
            (_, 0) => 12 + rng.below(4),
            (_, 1) => 12 + rng.below(3),
            _ => 12,
        } + 16 * rng.below(2);
        let page = page | rng.below(4) << 5 | depth << 7;
        let clut_x = if depth == 0 || (wrapping && depth == 1) {
            48 + rng.below(16)
        } else {
            48
        };
        let clut = rng.below(512) << 6 | clut_x;
        words.push((op << 24) | (rng.next_u32() & 0xff_ffff));
        for k in 0..(if quad { 4 } else { 3 }) {
            if gouraud && k > 0 {
                words.push(rng.next_u32() & 0xff_ffff);
            }
            words.push(((oy + rng.below(64)) << 16) | (ox + rng.below(64)));
            if tex {
                let attr = match k {
                    0 => clut,
                    1 => page,
                    _ => 0,
                };
                words.push((attr << 16) | (rng.next_u32() & 0xffff));
            }
        }
    }
    words
}

/// Draws `words` serially, then on all cores and every pool: each must leave the same VRAM.
fn every_pool_draws_what_serial_draws(words: &[u32]) {
    let run = |threads: usize| {
        let mut g = Gpu::new();
        g.set_threads(gpu::Threads::from_count(threads));
        g.set_parallel_min_load(0);
        g.gp0_words(words);
        g.vram().to_vec()
    };
    let want = run(1);
    for threads in [0].into_iter().chain(POOLS) {
        let got = run(threads);
        if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
            panic!(
                "threads {threads}: ({}, {}) serial {:04x} got {:04x}",
                i % 1024,
                i / 1024,
                want[i],
                got[i]
            );
        }
    }
}
