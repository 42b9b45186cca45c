//! Effects in real time: a model with particles rendered frame after frame on one core (one
//! renderer, one GPU thread), as a game would run it. Each iteration renders 60 frames (2 s of
//! animation at 30 fps); the time per iteration must stay under 2 s for real time. Also 60 frames
//! 30 s in (frames 900..960), which go on from the point the model's emitters saved at 30 s
//! rather than from the animation's start. Needs ../shared/samples; prints a note and measures
//! nothing without it.

use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use psxrender::formats::LoadOptions;
use psxrender::render::{default_animation, RenderOptions, Renderer};
use psxrender::scene::{Model, PoseRequest};

fn samples() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/samples");
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping effect benches: {} not found", p.display());
        None
    }
}

fn request(animation: Option<usize>, frame: u32) -> PoseRequest {
    PoseRequest {
        animation,
        frame,
        camera: None,
    }
}

fn bench_model(c: &mut Criterion, name: &str, model: &dyn Model) {
    let anim = default_animation(model);
    let opts = RenderOptions {
        threads: 1,
        framing: request(anim, 0),
        ..RenderOptions::default()
    };
    let mut r = Renderer::new(model, &opts).unwrap();
    for (from, what) in [
        (0, "frames 0..60 (2 s)"),
        (900, "frames 900..960 (30 s in)"),
    ] {
        c.bench_function(&format!("effects {name}: {what}, one core"), |b| {
            b.iter(|| {
                for f in from..from + 60 {
                    r.render(&request(anim, f)).unwrap();
                }
            })
        });
    }
}

fn bench(c: &mut Criterion) {
    let Some(dir) = samples() else { return };
    let torch = psxrender::detect::load(&dir.join("nwn/it_torch_000.mdl"), &LoadOptions::default())
        .unwrap();
    bench_model(c, "it_torch_000 (2 emitters)", torch.as_ref());
    let imp = psxrender::detect::load(&dir.join("m2/Imp2.m2"), &LoadOptions::default()).unwrap();
    bench_model(c, "Imp2 (3 emitters, 1536 vertices)", imp.as_ref());
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
