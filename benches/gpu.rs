//! GPU throughput on the work it does in practice, in pixels per second (the census's pixels
//! covered: [`psxrender::census::Census::pixels`]), on one thread (`Threads::Serial`, what
//! `--threads 1` and `Threads::Pool(1)` give), on two threads (`--threads 2`) and on all cores
//! (`Threads::AllCores`):
//!
//! - `small_triangles`: the 100,000-triangle stream of `examples/small_tris.rs` (textured
//!   gouraud, ~83 px each, set-up upload included), handed over in one `gp0_words` call to a
//!   fresh GPU per iteration and drawn to the end (a VRAM read); and the same stream drawn by
//!   two serial GPUs at once on two threads (`small_triangles_two_serial_gpus`), what two cores
//!   give this work at best;
//! - `reference_frames`: the real model frames of `../shared/hwtests/emulator-reference/frames`
//!   (GPUDUMPs: a VRAM restore, one frame's words), loaded through `input::Input` and fed as
//!   `replay` feeds them; skipped with a printed reason when `../shared` is absent;
//! - `big_triangles`: 4000 random textured gouraud triangles up to 64 px across (~310 px each)
//!   on one long-lived GPU, also through the portable span kernel on one thread (the baseline
//!   for the SIMD kernel); and `fill`: 16 full-VRAM fills;
//! - `fixed_costs`: what every frame pays besides drawing, a GPU made and dropped and a 320×240
//!   picture cut out of VRAM.
//!
//! Making and dropping GPUs is outside the timed part but in `fixed_costs`. Nothing spins:
//! every configuration is one GPU on the benchmark's thread plus, for two threads or all cores,
//! the GPU's helper threads (or the two threads of the two-GPU baseline).

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use gpu::XorShift as Rng;
use gpu::{Gpu, Threads};

use psxrender::capture::census::Census;
use psxrender::capture::input::Input;
use psxrender::capture::replay::Prepared;
use psxrender::hwtest::stream::Item;

#[path = "common/gpu_workload.rs"]
mod workload;
use workload::{setup_words, small_triangles, triangles};

/// The thread settings every group runs at, and their names in bench ids.
const THREADS: [(&str, Threads); 3] = [
    ("1_thread", Threads::Serial),
    ("2_threads", Threads::Pool(2)),
    ("all_cores", Threads::AllCores),
];

/// A power-on GPU drawing on `threads`.
fn gpu(threads: Threads) -> Gpu {
    let mut g = Gpu::new();
    g.set_threads(threads);
    g
}

/// Pixels `words` (GP0, from power-on) cover, as the census counts them.
fn pixels(words: &[u32]) -> u64 {
    let items: Vec<Item> = words.iter().map(|&w| Item::Gp0(w)).collect();
    let lines = (1..=items.len()).collect();
    Census::of(&Input::Stream { items, lines }).pixels
}

fn small(c: &mut Criterion) {
    let (words, _) = small_triangles(&mut Rng::new(0x5a11_7415), 100_000);
    let mut g = c.benchmark_group("small_triangles");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(pixels(&words)));
    for (name, threads) in THREADS {
        g.bench_function(name, |b| {
            b.iter_batched(
                || gpu(threads),
                |mut gpu| {
                    gpu.gp0_words(&words);
                    gpu.vram();
                    gpu
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
    // What two cores give this work when nothing is shared: two serial GPUs drawing the
    // stream at once on two threads (twice the pixels). Where two cores share execution units
    // or caches, this is below twice `1_thread`'s rate, and no threading of one GPU can do
    // better than it.
    let mut g = c.benchmark_group("small_triangles_two_serial_gpus");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(2 * pixels(&words)));
    g.bench_function("1_thread_each", |b| {
        b.iter_batched(
            || [gpu(Threads::Serial), gpu(Threads::Serial)],
            |gpus| {
                std::thread::scope(|s| {
                    let words = &words;
                    gpus.map(|mut gpu| {
                        s.spawn(move || {
                            gpu.gp0_words(words);
                            gpu.vram();
                            gpu
                        })
                    })
                    .map(|h| h.join().expect("drawing thread"))
                })
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn reference_frames(c: &mut Criterion) {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/hwtests/emulator-reference/frames");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "skipping reference_frames: {} not found (put the shared data beside the checkout)",
            dir.display()
        );
        return;
    };
    let mut dumps: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "psxgpu"))
        .collect();
    dumps.sort();
    let mut g = c.benchmark_group("reference_frames");
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(2));
    for path in dumps {
        let input = match Input::load(&path) {
            Ok(i) => i,
            Err(e) => panic!("{e}"),
        };
        let prepared = Prepared::new(&input);
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        g.throughput(Throughput::Elements(Census::of(&input).pixels));
        for (threads_name, threads) in THREADS {
            g.bench_function(BenchmarkId::new(&name, threads_name), |b| {
                b.iter_batched(
                    || gpu(threads),
                    |mut gpu| {
                        prepared.feed(&mut gpu, None).unwrap();
                        gpu.vram();
                        gpu
                    },
                    BatchSize::LargeInput,
                )
            });
        }
    }
    g.finish();
}

fn big_and_fill(c: &mut Criterion) {
    let mut rng = Rng::new(0x1234_5678_9abc_def1);
    let setup = setup_words(&mut rng);
    let (tris, _) = triangles(&mut rng, 4000);
    let mut g = c.benchmark_group("big_triangles");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(pixels(&[&setup[..], &tris].concat())));
    // Every setting of THREADS on the SIMD kernel, then one thread on the portable kernel.
    let portable = (("1_thread_portable", Threads::Serial), false);
    let settings = THREADS.into_iter().map(|t| (t, true)).chain([portable]);
    for ((name, threads), simd) in settings {
        let mut gpu = gpu(threads);
        gpu.set_simd(simd);
        gpu.gp0_words(&setup);
        g.bench_function(name, |b| {
            b.iter(|| {
                gpu.gp0_words(&tris);
                gpu.vram()[0]
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("fill");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(2));
    let fills: Vec<u32> = (0..16u32)
        .flat_map(|i| [0x0200_0000 | (i * 0x0f0f0f), 0, (511 << 16) | 0x3ff])
        .collect();
    g.throughput(Throughput::Elements(pixels(&fills)));
    for (name, threads) in THREADS {
        let mut gpu = gpu(threads);
        g.bench_function(name, |b| {
            b.iter(|| {
                gpu.gp0_words(&fills);
                gpu.vram()[0]
            })
        });
    }
    g.finish();
}

/// What every frame pays besides drawing: a GPU made and dropped (`gpu_new_and_drop`; after
/// the first, its images come from the process's spares), and a 320×240 picture cut out of
/// random VRAM in 15-bit and 24-bit mode (`cut_320x240_*`, per pixel).
fn fixed_costs(c: &mut Criterion) {
    let mut g = c.benchmark_group("fixed_costs");
    g.sample_size(20);
    g.measurement_time(Duration::from_secs(2));
    g.bench_function("gpu_new_and_drop", |b| b.iter(|| Gpu::new().gpustat()));
    let mut rng = Rng::new(0x0ba5_e1ce);
    let vram: Vec<u16> = (0..1024 * 512).map(|_| rng.next_u32() as u16).collect();
    g.throughput(Throughput::Elements(320 * 240));
    for depth24 in [false, true] {
        let d = gpu::Display {
            x: 16,
            y: 8,
            width: 320,
            height: 240,
            depth24,
            enabled: true,
            mode_width: 320,
            interlaced480: false,
            pal: false,
        };
        let name = ["cut_320x240_15bit", "cut_320x240_24bit"][usize::from(depth24)];
        g.bench_function(name, |b| b.iter(|| gpu::picture::cut(&vram, &d).rgb.len()));
    }
    g.finish();
}

criterion_group!(benches, small, reference_frames, big_and_fill, fixed_costs);
criterion_main!(benches);
