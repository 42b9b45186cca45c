//! The `benches/gpu.rs` triangle workload outside criterion: frames of 4000 random textured
//! gouraud triangles.
//!
//! - `tris [threads] [frames]` draws the frames on one GPU, for instruction counting
//!   (`valgrind --tool=callgrind target/release/examples/tris 1 3`; `TRIS_DITHER=1` dithers).
//! - `tris interleave [rounds]` measures ratios on a noisy machine: each round draws a block of
//!   frames on one thread, on 2 threads, on all cores, and on two independent one-thread GPUs at
//!   once (the second on a helper thread that spins while its frame is due, as in the bench), so
//!   every configuration sees the machine in the same state. Prints pixels per second and the
//!   ratio to one thread of each.

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
        let rounds = args.next().and_then(|a| a.parse().ok()).unwrap_or(25);
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
    let names = ["1 thread", "2 threads", "all cores", "independent pair"];
    let mut solo = [gpu(1), gpu(2), gpu(0)];
    let mut mine = gpu(1);
    let mut time = [Duration::ZERO; 4];
    // The pair's helper: parked until armed, then spins until its frame is due.
    let (armed, ready, go, done) = (
        AtomicBool::new(false),
        AtomicBool::new(false),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
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
                theirs.gp0_words(tris);
                theirs.vram();
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
        for _ in 0..rounds {
            for (k, t) in time.iter_mut().enumerate() {
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
                        while done.load(Ordering::Acquire) != frame {
                            std::hint::spin_loop();
                        }
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
        wake();
        go.store(usize::MAX, Ordering::Release);
    });
    let frames = (rounds * (BLOCK - WARM)) as f64;
    let rate = |k: usize| {
        let px = area as f64 * frames * if k == 3 { 2.0 } else { 1.0 };
        px / time[k].as_secs_f64() / 1e6
    };
    for (k, name) in names.iter().enumerate() {
        println!(
            "{name:17} {:6.1} M px/s  {:.2}x one thread",
            rate(k),
            rate(k) / rate(0)
        );
    }
}
