//! A full frame — pose + GTE + ordering table + GP0 + GPU raster + readback — at 320×240.
//! Target: under 5 ms for a 2,000-polygon model. Run briefly:
//! `cargo bench --bench frame -- --warm-up-time 1 --measurement-time 3`.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};

use psxrender::formats::{ff9, LoadOptions};
use psxrender::render::synthetic::Robot;
use psxrender::render::{RenderOptions, Renderer};
use psxrender::scene::{Model, PoseRequest};

fn bench_model(c: &mut Criterion, name: &str, model: &dyn Model, threads: usize) {
    let anim = (!model.animations().is_empty()).then_some(0);
    let opts = RenderOptions {
        threads,
        framing: PoseRequest {
            animation: anim,
            frame: 0,
            camera: None,
        },
        ..RenderOptions::default()
    };
    let mut r = Renderer::new(model, &opts).expect("renders");
    let mut frame = 0;
    c.bench_function(&format!("frame/{name}/threads{threads}"), |b| {
        b.iter(|| {
            frame = (frame + 1) % 30;
            r.render(&PoseRequest {
                animation: anim,
                frame,
                camera: None,
            })
            .expect("renders")
        })
    });
}

fn shared(sub: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(sub);
    p.exists().then_some(p)
}

fn frames(c: &mut Criterion) {
    let robot = Robot::new(64);
    assert!(robot.polygon_count() >= 2000);
    bench_model(c, "robot2085", &robot, 1);
    bench_model(c, "robot2085", &robot, 0);
    let demo = ff9::load(
        Path::new("demo"),
        &ff9::demo_character(),
        &LoadOptions::default(),
    )
    .expect("demo loads");
    bench_model(c, "ff9_demo", &demo, 1);
    let samples = [
        ("m2_rabbit2", "samples/m2/Rabbit2.m2"),
        ("nwn_c_aribeth", "samples/nwn/c_aribeth.mdl"),
        ("nwn_ttd01_a04_03", "samples/nwn/ttd01_a04_03.mdl"),
    ];
    for (name, sub) in samples {
        let Some(path) = shared(sub) else { continue };
        // A loader not built yet (or a file it refuses) is skipped, not benchmarked.
        if let Ok(m) = psxrender::detect::load(&path, &LoadOptions::default()) {
            bench_model(c, name, m.as_ref(), 1);
        }
    }
}

criterion_group!(benches, frames);
criterion_main!(benches);
