//! GTE command throughput (commands per second, criterion `Throughput::Elements`).
//! Run short: `cargo bench --bench gte -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fixed::types::{I16F16, I20F12};
use gte::typed::{Matrix, Normal, Rgbc, Translation, Vertex, Q12};
use gte::{Gte, Op};

/// A GTE set up like a game camera and light rig.
fn scene() -> Gte {
    let mut g = Gte::new();
    let m = Matrix::from_fixed([
        [I4F12f(0.8), I4F12f(-0.6), I4F12f(0.0)],
        [I4F12f(0.6), I4F12f(0.8), I4F12f(0.0)],
        [I4F12f(0.0), I4F12f(0.0), I4F12f(1.0)],
    ]);
    g.set_rotation(&m);
    g.set_light_matrix(&m);
    g.set_color_matrix(&Matrix::IDENTITY);
    g.set_translation(Translation {
        x: 10,
        y: -20,
        z: 3000,
    });
    g.set_screen(I16F16::from_num(160), I16F16::from_num(120), 300);
    g.set_background_color([I20F12::from_num(0.25); 3]);
    g.set_ordering_table_size(1024);
    g.set_ir0(Q12::from_f32(0.25));
    g
}

#[allow(non_snake_case)]
fn I4F12f(v: f32) -> fixed::types::I4F12 {
    fixed::types::I4F12::from_num(v)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("gte");
    group.throughput(Throughput::Elements(1));
    let tri = [
        Vertex::new(100, 50, 0),
        Vertex::new(-100, 0, 500),
        Vertex::new(0, -80, -200),
    ];
    let mut g = scene();
    group.bench_function("RTPT", |b| b.iter(|| black_box(g.rtpt(black_box(tri)))));
    let mut g = scene();
    g.rtpt(tri);
    group.bench_function("NCLIP+AVSZ3", |b| {
        b.iter(|| black_box((g.nclip(), g.avsz3())))
    });
    let mut g = scene();
    let n = Normal::from_f32(0.0, 0.6, 0.8);
    let col = Rgbc::new(200, 128, 64, 0x30);
    group.bench_function("NCDS", |b| b.iter(|| black_box(g.ncds(black_box(n), col))));
    let mut g = scene();
    g.rtps(tri[0]);
    let mvmva = Op::Mvmva.canonical().0;
    group.bench_function("MVMVA", |b| {
        b.iter(|| {
            g.execute(black_box(mvmva));
            black_box(g.read_data(25))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
