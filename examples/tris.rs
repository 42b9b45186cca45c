//! The GPU benches' triangle frames outside criterion, for instruction counts and CPU time.
//!
//! `tris [threads] [frames] [small|big]` draws `frames` frames (default 1) on one GPU with
//! `threads` (0 = all cores, 1 = serial, the default, N = N threads) and prints the area per
//! frame, a hash of the final VRAM (equal for every thread count), the wall time and the CPU
//! time (user + system, all threads; from `/proc/self/stat`, "n/a" elsewhere), then each
//! frame's wall time: the first, and the least and the median of the later ones (a frame is
//! short enough to fall between a shared host's busy spells when a whole run does not). A frame is
//! `small` (the default): the 100,000-triangle stream of `benches/common/gpu_workload.rs`
//! (texture upload included, after a GP1(00h) reset so every frame starts from the same GP0
//! state), or `big`: 4000 triangles up to 64 px across over textures uploaded once.
//!
//! - Instructions: `valgrind --tool=callgrind target/release/examples/tris 1 1`.
//! - CPU time of 2 threads against 1:
//!   `for t in 1 2; do target/release/examples/tris $t 10; done`.

use gpu::XorShift as Rng;
use gpu::{Gpu, Threads};
use std::time::Instant;

#[path = "../benches/common/gpu_workload.rs"]
mod workload;

use psxrender::cpu_time;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| match args.get(i) {
        None => Some(default),
        Some(a) => a.parse().ok(),
    };
    let (Some(threads), Some(frames)) = (number(0, 1), number(1, 1)) else {
        eprintln!("usage: tris [threads] [frames] [small|big]");
        return std::process::ExitCode::from(2);
    };
    let small = match args.get(2).map(String::as_str) {
        None | Some("small") => true,
        Some("big") => false,
        Some(other) => {
            eprintln!("error: '{other}' is not a frame kind (small or big)");
            return std::process::ExitCode::from(2);
        }
    };
    let (setup, frame, area) = if small {
        let (words, area) = workload::small_triangles(&mut Rng::new(0x5a11_7415), 100_000);
        (Vec::new(), words, area)
    } else {
        let mut rng = Rng::new(0x1234_5678_9abc_def1);
        let setup = workload::setup_words(&mut rng);
        let (tris, area) = workload::triangles(&mut rng, 4000);
        (setup, tris, area)
    };
    let mut gpu = Gpu::new();
    gpu.set_threads(Threads::from_count(threads));
    let cpu_before = cpu_time::process_cpu_seconds();
    let start = Instant::now();
    gpu.gp0_words(&setup);
    let mut walls = Vec::with_capacity(frames);
    for _ in 0..frames {
        let at = Instant::now();
        if small {
            gpu.gp1(0);
        }
        gpu.gp0_words(&frame);
        gpu.vram();
        walls.push(at.elapsed().as_secs_f64());
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_time::process_cpu_seconds()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    let hash = gpu
        .vram()
        .iter()
        .fold(0u64, |s, &p| s.wrapping_mul(31).wrapping_add(p as u64));
    println!(
        "{} frames of {} triangles on {threads} threads (0 = all cores): area {area} px per frame",
        frames,
        if small { "100000 small" } else { "4000 big" }
    );
    println!("vram hash {hash:016x}");
    println!(
        "wall {wall:.4} s, cpu {} s (user + system, all threads)",
        cpu_time::format_seconds(cpu)
    );
    if let Some((first, later)) = walls.split_first().filter(|(_, l)| !l.is_empty()) {
        let mut later = later.to_vec();
        later.sort_by(f64::total_cmp);
        println!(
            "frames: first {:.3} ms, later min {:.3} ms, median {:.3} ms",
            first * 1e3,
            later[0] * 1e3,
            later[later.len() / 2] * 1e3
        );
    }
    std::process::ExitCode::SUCCESS
}
