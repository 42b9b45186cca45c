//! M2 loading and posing speed on the rabbit sample (45 bones, 831 vertices): parse + texture
//! decode, and one skinned pose. Skips quietly when ../shared is absent.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use psxrender::formats::{blp, m2, LoadOptions};
use psxrender::scene::{Model, PoseRequest};

fn bench(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples/m2");
    let (model, skin) = (dir.join("Rabbit2.m2"), dir.join("rabbitskin2_default.blp"));
    let (Ok(data), Ok(skin_data)) = (std::fs::read(&model), std::fs::read(&skin)) else {
        eprintln!("skipping: {} not found", dir.display());
        return;
    };
    let opts = LoadOptions {
        replaceable_textures: vec![(11, skin)],
        ..Default::default()
    };
    c.bench_function("m2 load rabbit (with 2 BLP textures)", |b| {
        b.iter(|| m2::load(&model, &data, &opts).unwrap())
    });
    c.bench_function("blp decode 256x256 DXT5", |b| {
        b.iter(|| blp::decode(&skin_data).unwrap())
    });
    let m = m2::load(&model, &data, &opts).unwrap();
    let req = PoseRequest {
        animation: Some(0),
        frame: 9,
        camera: None,
    };
    c.bench_function("m2 pose rabbit walk frame 9", |b| b.iter(|| m.pose(&req)));
    c.bench_function("m2 pose rabbit rest", |b| {
        b.iter(|| m.pose(&PoseRequest::default()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
