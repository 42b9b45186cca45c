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
//!   cores give work that never waits); then a chain of multiply-adds on one thread and on two
//!   at once (the compute pair: how much of two cores the machine gives at that moment, to work
//!   that needs nothing else), so every configuration sees the machine in the same state.
//!   Prints pixels per second and the ratio to one thread of each, overall and per round
//!   (median and range) over all rounds, the calm rounds (the hypervisor took at most 1 % of
//!   the CPU time: steal time in `/proc/stat`) and the full rounds (the compute pair made at
//!   least 1.9× one thread's compute).

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
        g.set_threads(gpu::Threads::from_count(threads));
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
        "compute, 1 thread",
        "compute pair",
    ];
    let mut solo = [gpu(1), gpu(2), gpu(0)];
    let mut mine = gpu(1);
    // Time per configuration and round.
    let mut time = vec![[Duration::ZERO; 7]; rounds];
    // Share of the CPU time the hypervisor took per round (`None` where unknown).
    let mut steal: Vec<Option<f64>> = vec![None; rounds];
    // The pairs' helper: parked until armed, then spins until its job is due (`go` set to the
    // job's number). What the job is, `job` says: one frame; a block (WARM frames, a meeting: it
    // reports at `warm`, the main thread opens `gate`; then the rest of the block); or the
    // compute loop.
    let (armed, ready, go, done) = (
        AtomicBool::new(false),
        AtomicBool::new(false),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let (job, warm, gate) = (
        AtomicUsize::new(ONE_FRAME),
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
                let frames = match job.load(Ordering::Acquire) {
                    WHOLE_BLOCK => {
                        for _ in 0..WARM {
                            theirs.gp0_words(tris);
                            theirs.vram();
                        }
                        warm.store(n, Ordering::Release);
                        meet(&gate, n);
                        BLOCK - WARM
                    }
                    COMPUTE => {
                        compute();
                        0
                    }
                    _ => 1,
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
                match k {
                    4 => {
                        // Each GPU draws its block at its own pace; timed from the end of both
                        // warm-ups to the end of both blocks.
                        frame += 1;
                        wake();
                        job.store(WHOLE_BLOCK, Ordering::Release);
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
                        job.store(ONE_FRAME, Ordering::Release);
                    }
                    5 => {
                        let start = Instant::now();
                        compute();
                        *t = start.elapsed();
                    }
                    6 => {
                        frame += 1;
                        wake();
                        job.store(COMPUTE, Ordering::Release);
                        let start = Instant::now();
                        go.store(frame, Ordering::Release);
                        compute();
                        meet(&done, frame);
                        *t = start.elapsed();
                        job.store(ONE_FRAME, Ordering::Release);
                    }
                    _ => {
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
                }
            }
            if let (Some((t0, s0)), Some((t1, s1))) = (before, cpu_times()) {
                *stolen = Some((s1 - s0) as f64 / (t1 - t0).max(1) as f64);
            }
        }
        wake();
        go.store(usize::MAX, Ordering::Release);
    });
    report(&names, &time, &steal, area);
}

/// Prints the rates of `interleave`'s configurations `names` from their times per round, and
/// their ratios to one thread (the GPUs to one-thread GPU frames, the compute pair to one
/// thread's compute): overall, and per round (median and range) over all rounds, the calm ones
/// (the hypervisor took at most [`CALM`] of the CPU time, `steal`) and the full ones (the
/// compute pair made at least [`FULL`]× one thread's compute).
fn report(names: &[&str; 7], time: &[[Duration; 7]], steal: &[Option<f64>], area: u64) {
    let rounds = time.len();
    // Work per round of configuration `k`: pixels (millions) for the GPUs, runs of `compute` for
    // the compute configurations; the pairs do twice the work of one thread.
    let work = |k: usize| match k {
        0..=2 => area as f64 * (BLOCK - WARM) as f64 / 1e6,
        3 | 4 => 2.0 * area as f64 * (BLOCK - WARM) as f64 / 1e6,
        5 => 1.0,
        _ => 2.0,
    };
    // Work per second of configuration `k` over `t`.
    let rate = |k: usize, t: Duration| work(k) / t.as_secs_f64();
    // The one-thread configuration that configuration `k` is compared with.
    let base = |k: usize| if k >= 5 { 5 } else { 0 };
    // Ratio of configuration `k` to its one-thread configuration in round `r`.
    let ratio = |k: usize, r: &[Duration; 7]| rate(k, r[k]) / rate(base(k), r[base(k)]);
    let calm: Vec<bool> = steal.iter().map(|s| s.is_some_and(|s| s <= CALM)).collect();
    let full: Vec<bool> = time.iter().map(|r| ratio(6, r) >= FULL).collect();
    println!(
        "{:17} {:>7} {:>8}  {:<17} {:<17} {:<17}",
        "", "M px/s", "overall", "rounds: median", "calm rounds", "full rounds"
    );
    for (k, name) in names.iter().enumerate() {
        let total: Duration = time.iter().map(|r| r[k]).sum();
        let one: Duration = time.iter().map(|r| r[base(k)]).sum();
        let ratios = |only: Option<&[bool]>| {
            let mut v: Vec<f64> = (time.iter().enumerate())
                .filter(|&(i, _)| only.is_none_or(|o| o[i]))
                .map(|(_, r)| ratio(k, r))
                .collect();
            v.sort_by(f64::total_cmp);
            match v.len() {
                0 => "none".to_string(),
                n => format!("{:.2} {:.2}-{:.2}", v[n / 2], v[0], v[n - 1]),
            }
        };
        let px = if k < 5 {
            format!("{:.1}", rate(k, total) * rounds as f64)
        } else {
            "-".to_string()
        };
        println!(
            "{name:17} {px:>7} {:>7.2}x  {:<17} {:<17} {:<17}",
            rate(k, total) / rate(base(k), one),
            ratios(None),
            ratios(Some(&calm)),
            ratios(Some(&full)),
        );
    }
    let count = |v: &[bool]| v.iter().filter(|&&c| c).count();
    println!(
        "full rounds: the compute pair made >= {FULL:.1}x one thread's compute: {} of {rounds}",
        count(&full)
    );
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
            count(&calm),
            rounds
        ),
    }
}

/// The helper's jobs (see `interleave`).
const ONE_FRAME: usize = 0;
const WHOLE_BLOCK: usize = 1;
const COMPUTE: usize = 2;

/// Least ratio of the compute pair to one thread's compute for a round to count as full: one in
/// which the machine gave both cores in full.
const FULL: f64 = 1.9;

/// A chain of dependent multiply-adds, about 15 ms on the dev machine: work that needs a core and
/// nothing else (no memory, no vector units), so two of them at once show how much of two cores
/// the machine gives at that moment.
fn compute() {
    let mut x = std::hint::black_box(1u64);
    for _ in 0..COMPUTE_STEPS {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
    }
    std::hint::black_box(x);
}

/// Steps of [`compute`].
const COMPUTE_STEPS: u64 = 8_000_000;

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
