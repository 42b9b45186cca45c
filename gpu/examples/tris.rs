//! The `benches/gpu.rs` triangle workload outside criterion: frames of 4000 random textured
//! gouraud triangles.
//!
//! - `tris [threads] [frames]` draws the frames on one GPU, for instruction counting
//!   (`valgrind --tool=callgrind target/release/examples/tris 1 3`; `TRIS_DITHER=1` dithers).
//! - `tris interleave [rounds]` measures ratios on a noisy machine: each round draws a block of
//!   frames on one thread, on 2 threads, on all cores, on two independent one-thread GPUs at
//!   once frame by frame (the second on a helper thread that spins while its frame is due, as in
//!   the bench: both wait for the slower at every frame, as the two threads of one GPU do), and
//!   on the same two GPUs each drawing its block at its own pace (the unsynced pair: what the
//!   cores give work that never waits), so every configuration sees the machine in the same
//!   state. Prints pixels per second and the ratio to one thread of each, over all rounds and
//!   per round (median and range), and the same over the calm rounds alone: those in which the
//!   hypervisor took at most 1 % of the CPU time (steal time in `/proc/stat`).

use gpu::rng::XorShift as Rng;
use gpu::Gpu;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[path = "../../benches/common/gpu_workload.rs"]
mod workload;
use workload::{setup_words, triangles};

/// Frames per block: the first [`WARM`] of each block are not timed (caches, pool wake-up).
const BLOCK: usize = 6;
const WARM: usize = 2;

fn main() {
    let mut rng = Rng::new(0x1234_5678_9abc_def1);
    let setup = setup_words(&mut rng);
    let (tris, area) = triangles(&mut rng, 4000);
    let gpu = |threads: usize| {
        let mut g = Gpu::new();
        g.set_threads(threads);
        g.gp0_words(&setup);
        g
    };
    let mut args = std::env::args().skip(1);
    let first = args.next();
    if first.as_deref() == Some("interleave") {
        let rounds = args
            .next()
            .and_then(|a| a.parse().ok())
            .unwrap_or(25)
            .max(1);
        interleave(&tris, area, rounds, gpu);
        return;
    }
    let threads = first.and_then(|a| a.parse().ok()).unwrap_or(1);
    let frames: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut g = gpu(threads);
    if std::env::var_os("TRIS_DITHER").is_some() {
        g.gp0_words(&[0xe100_0200]);
    }
    for _ in 0..frames {
        g.gp0_words(&tris);
        g.vram();
    }
    let sum = g
        .vram()
        .iter()
        .fold(0u64, |s, &p| s.wrapping_mul(31).wrapping_add(p as u64));
    println!("area {area} px, vram hash {sum:016x}");
}

fn interleave(tris: &[u32], area: u64, rounds: usize, gpu: impl Fn(usize) -> Gpu + Sync) {
    let names = [
        "1 thread",
        "2 threads",
        "all cores",
        "independent pair",
        "unsynced pair",
    ];
    let mut solo = [gpu(1), gpu(2), gpu(0)];
    let mut mine = gpu(1);
    // Time per configuration and round.
    let mut time = vec![[Duration::ZERO; 5]; rounds];
    // Share of the CPU time the hypervisor took per round (`None` where unknown).
    let mut steal: Vec<Option<f64>> = vec![None; rounds];
    // The pairs' helper: parked until armed, then spins until its job is due. A job is one frame
    // (`go` set to the frame's number), or with `whole` a block: WARM frames, a meeting (it
    // reports at `warm`, the main thread opens `gate`), then the rest of the block.
    let (armed, ready, go, done) = (
        AtomicBool::new(false),
        AtomicBool::new(false),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let (whole, warm, gate) = (
        AtomicBool::new(false),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let meet = |at: &AtomicUsize, n: usize| {
        while at.load(Ordering::Acquire) != n {
            std::hint::spin_loop();
        }
    };
    std::thread::scope(|s| {
        let helper = s.spawn(|| {
            let mut theirs = gpu(1);
            let mut seen = 0;
            loop {
                while !armed.swap(false, Ordering::AcqRel) {
                    std::thread::park();
                }
                ready.store(true, Ordering::Release);
                let n = loop {
                    let n = go.load(Ordering::Acquire);
                    if n != seen {
                        break n;
                    }
                    std::hint::spin_loop();
                };
                seen = n;
                if n == usize::MAX {
                    return;
                }
                let frames = if whole.load(Ordering::Acquire) {
                    for _ in 0..WARM {
                        theirs.gp0_words(tris);
                        theirs.vram();
                    }
                    warm.store(n, Ordering::Release);
                    meet(&gate, n);
                    BLOCK - WARM
                } else {
                    1
                };
                for _ in 0..frames {
                    theirs.gp0_words(tris);
                    theirs.vram();
                }
                done.store(n, Ordering::Release);
            }
        });
        let wake = || {
            ready.store(false, Ordering::Release);
            armed.store(true, Ordering::Release);
            helper.thread().unpark();
            while !ready.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
        };
        let mut frame = 0;
        for (round, stolen) in time.iter_mut().zip(&mut steal) {
            let before = cpu_times();
            for (k, t) in round.iter_mut().enumerate() {
                if k == 4 {
                    // Each GPU draws its block at its own pace; timed from the end of both
                    // warm-ups to the end of both blocks.
                    frame += 1;
                    wake();
                    whole.store(true, Ordering::Release);
                    go.store(frame, Ordering::Release);
                    for _ in 0..WARM {
                        mine.gp0_words(tris);
                        mine.vram();
                    }
                    meet(&warm, frame);
                    let start = Instant::now();
                    gate.store(frame, Ordering::Release);
                    for _ in WARM..BLOCK {
                        mine.gp0_words(tris);
                        mine.vram();
                    }
                    meet(&done, frame);
                    *t = start.elapsed();
                    whole.store(false, Ordering::Release);
                    continue;
                }
                for f in 0..BLOCK {
                    frame += 1;
                    if k == 3 {
                        wake();
                    }
                    let start = Instant::now();
                    if k == 3 {
                        go.store(frame, Ordering::Release);
                        mine.gp0_words(tris);
                        mine.vram();
                        meet(&done, frame);
                    } else {
                        solo[k].gp0_words(tris);
                        solo[k].vram();
                    }
                    if f >= WARM {
                        *t += start.elapsed();
                    }
                }
            }
            if let (Some((t0, s0)), Some((t1, s1))) = (before, cpu_times()) {
                *stolen = Some((s1 - s0) as f64 / (t1 - t0).max(1) as f64);
            }
        }
        wake();
        go.store(usize::MAX, Ordering::Release);
    });
    // Pixels per second of configuration `k` over `t`: the pairs draw twice the pixels.
    let rate = |k: usize, t: Duration| {
        let frames = if k >= 3 {
            2 * (BLOCK - WARM)
        } else {
            BLOCK - WARM
        };
        area as f64 * frames as f64 / t.as_secs_f64() / 1e6
    };
    let calm: Vec<bool> = steal.iter().map(|s| s.is_some_and(|s| s <= CALM)).collect();
    for (k, name) in names.iter().enumerate() {
        let total: Duration = time.iter().map(|r| r[k]).sum();
        let all: Duration = time.iter().map(|r| r[0]).sum();
        let ratios = |only_calm: bool| {
            let mut v: Vec<f64> = (time.iter().zip(&calm))
                .filter(|&(_, &c)| c || !only_calm)
                .map(|(r, _)| rate(k, r[k]) / rate(0, r[0]))
                .collect();
            v.sort_by(f64::total_cmp);
            match v.len() {
                0 => "none".to_string(),
                n => format!("median {:.2}, {:.2}-{:.2}", v[n / 2], v[0], v[n - 1]),
            }
        };
        println!(
            "{name:17} {:6.1} M px/s  {:.2}x one thread  (rounds: {}; calm rounds: {})",
            rate(k, total) * rounds as f64,
            rate(k, total) / rate(0, all),
            ratios(false),
            ratios(true),
        );
    }
    let mut known: Vec<f64> = steal.iter().flatten().map(|s| s * 100.0).collect();
    known.sort_by(f64::total_cmp);
    match known.len() {
        0 => println!("host steal time unknown (no /proc/stat)"),
        n => println!(
            "host steal per round: median {:.1} %, {:.1}-{:.1} %; calm (<= {:.0} %): {} of {}",
            known[n / 2],
            known[0],
            known[n - 1],
            CALM * 100.0,
            calm.iter().filter(|&&c| c).count(),
            rounds
        ),
    }
}

/// Most CPU time the hypervisor may take from a round for it to count as calm.
const CALM: f64 = 0.01;

/// All CPU time and the part stolen by the hypervisor, in clock ticks since boot, from the
/// first line of `/proc/stat` (Linux); `None` where that is not to be had.
fn cpu_times() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let ticks: Vec<u64> = stat
        .lines()
        .next()?
        .strip_prefix("cpu ")?
        .split_whitespace()
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    Some((ticks.iter().sum(), *ticks.get(7)?))
}
