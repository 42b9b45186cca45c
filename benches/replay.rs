//! Throughput of the replay/compare plumbing around the GPU: text-stream and GPUDUMP parsing,
//! comparing two 1024×512 captures, and cutting a 640×480 24-bit display out of VRAM.
//!
//! The text stream is the small-triangle stream of `examples/small_tris.rs` (100,000
//! triangles, about 13 MB), parsed by `stream::parse` alone and by `input::Input::parse`
//! (UTF-8 check, parse, keeping the GPU items), in bytes per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

use psxrender::capture::compare::{self, Capture};
use psxrender::capture::dump::{self, VSyncTime};
use psxrender::capture::input::Input;
use psxrender::hwtest::stream;

use gpu::XorShift as Rng;

#[path = "common/gpu_workload.rs"]
#[allow(dead_code)]
mod workload;

/// The small-triangle stream as `examples/small_tris.rs` writes it.
fn small_triangle_text() -> String {
    use std::fmt::Write;
    let (words, area) = workload::small_triangles(&mut Rng::new(0x5a11_7415), 100_000);
    let mut t = format!("# 100000 small textured gouraud triangles, {area} px\ngp1 00000000\n");
    for &x in &words {
        writeln!(t, "gp0 {x:08x}").unwrap();
    }
    t
}

fn pattern() -> Vec<u16> {
    (0..1024 * 512u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 16) as u16)
        .collect()
}

fn bench(c: &mut Criterion) {
    let text = small_triangle_text();
    let mut g = c.benchmark_group("stream");
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(4));
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| stream::parse(black_box(&text)).unwrap())
    });
    g.bench_function("input", |b| {
        b.iter(|| Input::parse(black_box(text.as_bytes())).unwrap())
    });
    g.finish();

    let vram = pattern();

    // A dump of 8 frames, each a full VRAM upload plus 10k small GP0 packets' worth of words.
    let mut w = dump::Writer::new();
    for f in 0..8u32 {
        w.restore_vram(&vram);
        for i in 0..10_000u32 {
            w.gp0(0x2000_0000 | i);
            w.gp1(f);
        }
        w.vsync(VSyncTime::U64(u64::from(f)));
    }
    let bytes = w.finish();
    let mut g = c.benchmark_group("dump");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| dump::parse(black_box(&bytes)).unwrap())
    });
    g.finish();

    let raw: Vec<u8> = vram.iter().flat_map(|h| h.to_le_bytes()).collect();
    let a = Capture::parse(&raw).unwrap();
    let mut other = a.clone();
    for p in other.pixels.iter_mut().step_by(97) {
        *p ^= 0x21;
    }
    let mut g = c.benchmark_group("compare");
    g.throughput(Throughput::Elements(a.pixels.len() as u64));
    let opts = compare::Options::default();
    g.bench_function("1024x512", |b| {
        b.iter(|| compare::compare(black_box(&a), black_box(&other), &opts))
    });
    g.finish();

    let d = gpu::Display {
        x: 0,
        y: 0,
        width: 640,
        height: 480,
        depth24: true,
        enabled: true,
        mode_width: 640,
        interlaced480: true,
        pal: false,
    };
    let mut g = c.benchmark_group("display");
    g.throughput(Throughput::Elements(640 * 480));
    g.bench_function("cut 640x480 24-bit", |b| {
        b.iter(|| psxrender::capture::display::cut(black_box(&vram), &d))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
