//! One frame from a file, as a `psxrender MODEL OUT.png --frame 10` process makes it: load
//! (decoding every texture), pose, put the textures in PS1 form (no cache), render, read back.
//! Every model of `../shared/samples` and, when present, `../shared/corpus`; a file the loaders
//! refuse is left out. Run briefly:
//! `cargo bench --bench frame_from_file -- --warm-up-time 1 --measurement-time 3`.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};

use psxrender::detect::{identify, Role};
use psxrender::formats::LoadOptions;
use psxrender::render::{RenderOptions, Renderer};
use psxrender::scene::PoseRequest;

fn models_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            models_under(&p, out);
        } else if std::fs::read(&p)
            .ok()
            .and_then(|d| identify(&d).ok())
            .is_some_and(|k| k.role() == Role::Model)
        {
            out.push(p);
        }
    }
}

/// Loads and renders frame 10 of `path`'s first animation (the rest pose if it has none).
fn frame_from_file(path: &Path) -> Option<usize> {
    let model = psxrender::detect::load(path, &LoadOptions::default()).ok()?;
    let animation = (!model.animations().is_empty()).then_some(0);
    let request = PoseRequest {
        animation,
        frame: 10,
        camera: None,
    };
    let opts = RenderOptions {
        threads: 1,
        framing: request.clone(),
        ..RenderOptions::default()
    };
    let mut r = Renderer::new(model.as_ref(), &opts).ok()?;
    Some(r.render(&request).ok()?.rgb.len())
}

fn frames(c: &mut Criterion) {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let mut files = Vec::new();
    models_under(&shared.join("samples"), &mut files);
    models_under(&shared.join("corpus"), &mut files);
    files.sort();
    let mut group = c.benchmark_group("frame_from_file");
    group.sample_size(10);
    for f in files {
        if frame_from_file(&f).is_none() {
            continue;
        }
        let name = f.strip_prefix(&shared).unwrap_or(&f).display().to_string();
        group.bench_function(name, |b| b.iter(|| frame_from_file(&f)));
    }
    group.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
