//! GPU throughput: textured gouraud triangles (random, ≤64 px across, UVs about one texel per
//! pixel, 4/8/15bpp, a quarter semi-transparent) and large fills, in pixels per second, serial
//! and on all cores; the triangles also through the portable span kernel on one thread (the
//! baseline for the CPU's SIMD kernel), and as two independent one-thread GPUs drawing the same
//! frame on two OS threads at once, the second thread spinning between frames: what this
//! machine's cores give two jobs that share nothing, the ceiling for the two-thread figure.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gpu::Gpu;
use std::sync::atomic::{AtomicUsize, Ordering};

use gpu::rng::XorShift as Rng;

#[path = "common/gpu_workload.rs"]
mod workload;
use workload::{setup_words, triangles};

fn bench(c: &mut Criterion) {
    let mut rng = Rng::new(0x1234_5678_9abc_def1);
    let setup = setup_words(&mut rng);
    let (tris, area) = triangles(&mut rng, 4000);
    let mut g = c.benchmark_group("gpu");
    g.throughput(Throughput::Elements(area));
    for (name, threads, simd) in [
        ("textured_gouraud_tris", 1usize, true),
        ("textured_gouraud_tris", 0, true),
        ("textured_gouraud_tris_portable", 1, false),
    ] {
        let mut gpu = Gpu::new();
        gpu.set_threads(gpu::Threads::from_count(threads));
        gpu.set_simd(simd);
        gpu.gp0_words(&setup);
        g.bench_with_input(BenchmarkId::new(name, threads), &tris, |b, tris| {
            b.iter(|| {
                gpu.gp0_words(tris);
                gpu.vram()[0]
            })
        });
    }
    // Two GPUs, one frame each, on two threads: twice the pixels per iteration. The second
    // GPU's thread lives as long as the benchmark and spins between iterations (as `Gpu::busy`
    // keeps the pool's threads awake within a call), so no thread start or core wake-up
    // enters the figure: it is what the two cores compute when both are busy.
    g.throughput(Throughput::Elements(2 * area));
    let mut pair = [Gpu::new(), Gpu::new()];
    for gpu in &mut pair {
        gpu.set_threads(gpu::Threads::from_count(1));
        gpu.gp0_words(&setup);
    }
    let [mut mine, mut theirs] = pair;
    let (go, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut seen = 0;
            loop {
                let n = go.load(Ordering::Acquire);
                if n == seen {
                    std::hint::spin_loop();
                    continue;
                }
                if n == usize::MAX {
                    return;
                }
                seen = n;
                theirs.gp0_words(&tris);
                theirs.vram();
                done.store(n, Ordering::Release);
            }
        });
        g.bench_with_input(
            BenchmarkId::new("textured_gouraud_tris_independent_pair", 2),
            &tris,
            |b, tris| {
                b.iter(|| {
                    let n = go.load(Ordering::Relaxed) + 1;
                    go.store(n, Ordering::Release);
                    mine.gp0_words(tris);
                    mine.vram();
                    while done.load(Ordering::Acquire) != n {
                        std::hint::spin_loop();
                    }
                })
            },
        );
        go.store(usize::MAX, Ordering::Release);
    });
    // 16 full-VRAM fills per iteration.
    g.throughput(Throughput::Elements(16 * 1024 * 512));
    let fills: Vec<u32> = (0..16u32)
        .flat_map(|i| [0x0200_0000 | (i * 0x0f0f0f), 0, (511 << 16) | 0x3ff])
        .collect();
    for threads in [1usize, 0] {
        let mut gpu = Gpu::new();
        gpu.set_threads(gpu::Threads::from_count(threads));
        g.bench_with_input(BenchmarkId::new("fill", threads), &fills, |b, f| {
            b.iter(|| {
                gpu.gp0_words(f);
                gpu.vram()[0]
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
