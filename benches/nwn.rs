//! NWN loader speed: parsing a large binary MDL, loading a creature with its supermodel and
//! textures, and posing it. Needs ../shared/samples/nwn; prints a note and measures nothing
//! without it.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use psxrender::formats::{nwn, LoadOptions};
use psxrender::scene::{Model, PoseRequest};

fn samples() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/samples/nwn");
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping NWN benches: {} not found", p.display());
        None
    }
}

fn bench(c: &mut Criterion) {
    let Some(dir) = samples() else { return };
    let a_fa = std::fs::read(dir.join("a_fa.mdl")).unwrap();
    c.bench_function("nwn parse a_fa.mdl (1.9 MB, 49 animations)", |b| {
        b.iter(|| nwn::parse(&a_fa, &mut Vec::new()).unwrap())
    });
    let path = dir.join("c_aribeth.mdl");
    let data = std::fs::read(&path).unwrap();
    let opts = LoadOptions::default();
    c.bench_function("nwn load c_aribeth (+ a_fa, DDS texture)", |b| {
        b.iter(|| nwn::load(&path, &data, &opts).unwrap())
    });
    let model = nwn::load(&path, &data, &opts).unwrap();
    let walk = model.find_animation("walk");
    c.bench_function("nwn pose c_aribeth walk frame 10 (1969 vertices)", |b| {
        b.iter(|| {
            model.pose(&PoseRequest {
                animation: walk,
                frame: 10,
                camera: None,
            })
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
