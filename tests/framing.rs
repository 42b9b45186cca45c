//! The camera frames a model's mesh and its emitters' own positions, never their particles, so
//! `--no-effects` draws the same picture but for the particles: on every model of
//! `../shared/corpus` and `../shared/samples` the fitted camera distance and model scale are the
//! same with and without effects.

mod common;

use std::path::{Path, PathBuf};

use psxrender::detect::identify;
use psxrender::formats::LoadOptions;
use psxrender::read::Role;
use psxrender::render::{RenderOptions, Renderer};

/// Every file under `dir` whose content is a model psxrender reads, in path order.
fn models(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = (std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            models(&p, out);
        } else if let Ok(data) = std::fs::read(&p) {
            if identify(&data).is_ok_and(|k| k.role() == Role::Model) {
                out.push(p);
            }
        }
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/corpus and ../shared/samples")]
fn camera_distance_is_the_same_with_and_without_effects() {
    let mut paths = Vec::new();
    models(&common::shared("corpus"), &mut paths);
    models(&common::shared("samples"), &mut paths);
    let (mut checked, mut with_emitters, mut differ) = (0, 0, Vec::new());
    for p in &paths {
        // A file the corpus test expects refused (the NWN `pwk` node) has no camera.
        let Ok(model) = psxrender::detect::load(p, &LoadOptions::default()) else {
            continue;
        };
        let fit = |effects: bool| {
            let opts = RenderOptions {
                effects,
                ..Default::default()
            };
            let r = Renderer::new(model.as_ref(), &opts)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (r.distance(), r.scale())
        };
        let (with, without) = (fit(true), fit(false));
        // A mesh-less effect model (the NWN lightning test: a beam to a reference node) once
        // framed on one point: a scale of 4e9 and the camera at distance 0, drawing nothing.
        if !(with.0 > 1e-3 && with.1 < 1e7) {
            differ.push(format!(
                "{}: framed at distance {}, scale {}",
                p.display(),
                with.0,
                with.1
            ));
        }
        if with != without {
            differ.push(format!(
                "{}: distance {} with effects, {} without (scale {} / {})",
                p.display(),
                with.0,
                without.0,
                with.1,
                without.1
            ));
        }
        checked += 1;
        let framing = RenderOptions::default().framing;
        if !model.effects(&framing).reach.is_empty() {
            with_emitters += 1;
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
    // The corpus (30 NWN, 27 M2) and the samples; the NWN torch, flag and bone pile and the
    // M2 emitters among them.
    assert!(checked >= 57, "only {checked} models checked");
    assert!(
        with_emitters >= 3,
        "only {with_emitters} models with emitters"
    );
    eprintln!("{checked} models, {with_emitters} with emitters: the same camera either way");
}
