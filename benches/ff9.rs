//! FF9 loader speed: parsing the demo cluster, and posing one frame of it.

use std::path::Path;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use psxrender::formats::{ff9, LoadOptions};
use psxrender::scene::{Model, PoseRequest};

fn bench(c: &mut Criterion) {
    let data = ff9::demo_character();
    let opts = LoadOptions::default();
    c.bench_function("ff9 load demo cluster", |b| {
        b.iter(|| ff9::load(Path::new("demo"), black_box(&data), &opts).unwrap())
    });
    let model = ff9::load(Path::new("demo"), &data, &opts).unwrap();
    let req = PoseRequest {
        animation: Some(0),
        frame: 5,
        camera: None,
    };
    c.bench_function("ff9 pose frame 5", |b| {
        b.iter(|| model.pose(black_box(&req)))
    });
    c.bench_function("ff9 write demo cluster", |b| b.iter(ff9::demo_character));
}

criterion_group!(benches, bench);
criterion_main!(benches);
