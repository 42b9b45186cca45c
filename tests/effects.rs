//! Effects on the real samples: the rollnw emitter test models behave as
//! `../shared/spec/nwn/rollnw-nwn_emitter_map.md` describes their fields (counts, lifetimes,
//! positions over time), the torch burns deterministically through the GTE and the ordering
//! table, and M2 particles and texture animations move.

mod common;

use std::path::{Path, PathBuf};

use psxrender::effects::{Emission, Facing, Particle, Snapshot, STEP_HZ};
use psxrender::formats::nwn::{self, effects::snapshots, NWNModel};
use psxrender::formats::LoadOptions;
use psxrender::render::{default_animation, Frame, RenderOptions, Renderer};
use psxrender::scene::{Blend, Model, PoseRequest};

fn sample(name: &str) -> PathBuf {
    common::shared(&format!("samples/nwn/{name}"))
}

fn load_nwn(path: &Path) -> NWNModel {
    let data = std::fs::read(path).unwrap();
    nwn::load(path, &data, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The one emitter of a vfx test model, simulated to `time` seconds of `anim`.
fn only(model: &NWNModel, anim: Option<usize>, time: f32) -> Snapshot {
    let mut s = snapshots(model, anim, time);
    assert_eq!(s.len(), 1, "one emitter");
    s.remove(0).1
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

/// Seconds of `n` simulation steps.
fn steps(n: u32) -> f32 {
    n as f32 / STEP_HZ as f32
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn start_end_only_fountain_counts_lifetimes_and_curves() {
    // birthrate 4, lifeExp 1, velocity 0, spread 0: one particle every 0.25 s, each living 1 s
    // at the emitter, colour 0 → 1, alpha 0 → 1, size 1 → 3 over its life.
    let m = load_nwn(&sample("vfx_start_end_only_test.mdl"));
    let (def, _) = &snapshots(&m, None, 0.0)[0];
    assert_eq!(def.emission, Emission::Continuous);
    assert_eq!(def.facing, Facing::Camera);
    assert_eq!(def.blend, Blend::Alpha);
    // Births in steps 14, 29, 44, 59 …: at 0.99 s (step 59) the fourth is not born yet.
    for (t, n) in [
        (0.2, 0),
        (0.3, 1),
        (0.55, 2),
        (0.99, 3),
        (1.0, 4),
        (3.0, 4),
        (10.0, 4),
    ] {
        assert_eq!(only(&m, None, t).particles.len(), n, "alive at {t} s");
    }
    let s = only(&m, None, 3.0);
    for p in &s.particles {
        assert!(p.age < 1.0 && p.life == 1.0, "{p:?}");
        assert!(
            p.position.iter().all(|c| c.abs() < 1e-6),
            "stays put: {p:?}"
        );
        let f = p.progress();
        assert!(close(p.size.at(f, lerp2)[0], 1.0 + 2.0 * f, 1e-5));
        assert!(close(p.alpha.at(f, lerp1), f, 1e-5));
        assert!(close(p.color.at(f, lerp3)[1], f, 1e-5));
    }
    // Births a quarter second apart.
    let mut ages: Vec<f32> = s.particles.iter().map(|p| p.age).collect();
    ages.sort_by(f32::total_cmp);
    for w in ages.windows(2) {
        assert!(close(w[1] - w[0], 0.25, 1e-4), "{ages:?}");
    }
}

fn lerp1(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}
fn lerp2(a: [f32; 2], b: [f32; 2], t: f32) -> [f32; 2] {
    [lerp1(a[0], b[0], t), lerp1(a[1], b[1], t)]
}
fn lerp3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [0, 1, 2].map(|i| lerp1(a[i], b[i], t))
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn midcurve_passes_through_its_middle_keys_at_percent_mid() {
    // percentMid 0.25: at a quarter of its life a particle is green, alpha 0.25, 2 × 3.
    let m = load_nwn(&sample("vfx_midcurve_test.mdl"));
    // The first particle is born in step 14 (4 a second); 15 steps later it is 0.25 s old.
    let s = only(&m, None, steps(29));
    let p: &Particle = &s.particles[0];
    assert!(close(p.age, 0.25, 1e-5), "{p:?}");
    let f = p.progress();
    assert_eq!(p.color.at(f, lerp3), [0.0, 1.0, 0.0]);
    assert!(close(p.alpha.at(f, lerp1), 0.25, 1e-6));
    assert_eq!(p.size.at(f, lerp2), [2.0, 3.0]);
    // Before the middle: between start and middle; after it: toward the end.
    assert_eq!(p.size.at(0.0, lerp2), [1.0, 1.0]);
    assert_eq!(p.size.at(1.0, lerp2), [0.5, 0.5]);
    assert!(close(p.alpha.at(0.625, lerp1), 0.125, 1e-6));
    // The sprite drawn for it has that size (camera-facing quad, width × height).
    let cam = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]];
    let (def, _) = &snapshots(&m, None, 0.0)[0];
    let sprite = &psxrender::effects::sprites(def, &s, Some(cam))[0];
    let w = sprite.corners[1][0] - sprite.corners[0][0];
    let h = sprite.corners[0][1] - sprite.corners[2][1];
    assert!(close(w, 2.0, 1e-5) && close(h, 3.0, 1e-5), "{w} x {h}");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn spawn_motion_samples_keys_at_birth_and_moves_particles() {
    // Animation "impact" keys velocity 1 → 3, randvel 0 → 0.5, mass −0.25 → −0.75, lifeExp
    // 1 → 2, particleRot 0.5 → 1.5, spread 0 → 0.5 over its second; birthrate 2.
    let m = load_nwn(&sample("vfx_spawn_motion_test.mdl"));
    let anim = m.find_animation("impact");
    assert!(anim.is_some());
    // Two a second: born in steps 29 and 59.
    assert_eq!(only(&m, anim, 0.95).particles.len(), 1);
    let s = only(&m, anim, 1.2);
    assert_eq!(s.particles.len(), 2);
    for p in &s.particles {
        let born = 1.2 - p.age;
        // Keys sampled at birth.
        assert!(
            close(p.life, 1.0 + born, 0.02),
            "life {} born {born}",
            p.life
        );
        let turns = p.spin / std::f32::consts::TAU;
        assert!(close(turns, 0.5 + born, 0.02), "spin {turns} born {born}");
        // rollnw: mass is the acceleration, m/s², unscaled.
        assert!(close(p.gravity, -(0.25 + 0.5 * born), 0.01), "{p:?}");
        // At most spread(born) from straight up (rollnw: the spread unhalved), at most velocity
        // + randvel fast.
        let top = (1.0 + 2.0 * born) + 0.5 * born;
        let sideways = (p.velocity[0].powi(2) + p.velocity[2].powi(2)).sqrt();
        assert!(sideways <= top * (0.5 * born).sin() + 1e-4, "{p:?}");
    }
    // The emitter points up (identity orientation: NWN +Z is scene +Y) and mass < 0 lifts:
    // the older particle is higher, and rises faster than its launch speed alone would.
    let s2 = only(&m, anim, 1.45);
    let oldest = &s2.particles[0];
    assert!(oldest.position[1] > 0.0);
    let launch_only = (1.0 + 2.0 * (1.45 - oldest.age)) * oldest.age;
    assert!(oldest.position[1] > launch_only * 0.9, "{oldest:?}");
    assert!(oldest.velocity[1] > 1.0);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn event_pulse_fountain_is_continuous_and_explosion_bursts_on_detonate() {
    let path = sample("vfx_event_pulse_test.mdl");
    let m = load_nwn(&path);
    let anim = m.find_animation("travel01");
    let (def, _) = &snapshots(&m, anim, 0.0)[0];
    assert_eq!(def.facing, Facing::Velocity);
    assert_eq!(def.blend, Blend::Additive);
    assert!(def.attached, "inherit 1");
    // A Fountain ignores detonate events: 60 a second, life 1.
    assert_eq!(only(&m, anim, 0.5).particles.len(), 30);
    // Steady state: one born each step, each living 60 steps; the one born in the step being
    // drawn is not there yet, so 59.
    assert_eq!(only(&m, anim, 2.0).particles.len(), 59);
    assert_eq!(only(&m, anim, 7.3).particles.len(), 59);
    // The same model as an Explosion: 10 particles at each detonate (0.0, 0.1, 0.2 of every
    // 0.4 s loop), none in between.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("update Fountain", "update Explosion")
        .replace("birthrate 60", "birthrate 10");
    let dir = std::env::temp_dir().join(format!("psxr-fx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let burst = dir.join("vfx_burst.mdl");
    std::fs::write(&burst, text).unwrap();
    let b = load_nwn(&burst);
    let anim = b.find_animation("travel01");
    assert_eq!(snapshots(&b, anim, 0.0)[0].0.emission, Emission::Burst);
    for (t, n) in [
        (0.05, 10),
        (0.15, 20),
        (0.35, 30),
        (0.45, 40),
        (0.95, 80),
        (1.05, 80),
    ] {
        assert_eq!(only(&b, anim, t).particles.len(), n, "alive at {t} s");
    }
    // Without the animation there is no detonate, so nothing.
    assert!(only(&b, None, 1.0).particles.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn torch() -> Box<dyn Model> {
    psxrender::detect::load(&sample("it_torch_000.mdl"), &LoadOptions::default()).unwrap()
}

/// Options framing frame 0 of the model's default animation, with `threads` GPU threads.
fn torch_opts(model: &dyn Model, threads: usize) -> RenderOptions {
    RenderOptions {
        threads,
        framing: PoseRequest {
            animation: default_animation(model),
            frame: 0,
            camera: None,
        },
        ..RenderOptions::default()
    }
}

/// `frames` of the default animation rendered in order by one renderer.
fn render_with(model: &dyn Model, frames: &[u32], opts: &RenderOptions) -> Vec<Frame> {
    let anim = default_animation(model);
    let mut r = Renderer::new(model, opts).unwrap();
    frames
        .iter()
        .map(|&frame| {
            r.render(&PoseRequest {
                animation: anim,
                frame,
                camera: None,
            })
            .unwrap()
        })
        .collect()
}

/// GP0 words and pictures of `frames`.
fn render_frames(model: &dyn Model, frames: &[u32], threads: usize) -> Vec<(Vec<u32>, Vec<u8>)> {
    render_with(model, frames, &torch_opts(model, threads))
        .into_iter()
        .map(|f| (f.gp0, f.rgb))
        .collect()
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn torch_flames_and_smoke_are_drawn_and_deterministic() {
    let m = torch();
    let anim = default_animation(m.as_ref());
    assert_eq!(m.animations()[anim.unwrap()].name, "equip");
    // Both emitters burn during "equip": flames (additive) and smoke (alpha: B/2 + F/2 while
    // dense, B + F/4 as it fades), above the head.
    let fx = m.effects(&PoseRequest {
        animation: anim,
        frame: 45,
        camera: None,
    });
    let blends: Vec<Blend> = fx.sprites.iter().map(|s| s.blend).collect();
    assert!(blends.contains(&Blend::Additive) && blends.contains(&Blend::Alpha));
    assert!(fx.sprites.len() > 20, "{} sprites", fx.sprites.len());
    // Frame 45 alone, in a run 0..60, again, and on other thread counts: the same words.
    let frames: Vec<u32> = (0..60).step_by(5).collect();
    let run = render_frames(m.as_ref(), &frames, 1);
    let alone = render_frames(m.as_ref(), &[45], 1);
    assert_eq!(run[9], alone[0]);
    assert_eq!(run, render_frames(m.as_ref(), &frames, 2));
    assert_eq!(run, render_frames(m.as_ref(), &frames, 1));
    // The sprites are in the frame's GP0 words: frame 45 has more packets than frame 0 (fewer
    // than its sprites: the camera frames the torch and its emitters, and rising smoke leaves
    // the frame).
    assert!(
        run[9].0.len() > run[0].0.len() + 10 * 13,
        "{} words at frame 45, {} at frame 0",
        run[9].0.len(),
        run[0].0.len()
    );
    let drawn = &render_with(m.as_ref(), &[45], &torch_opts(m.as_ref(), 1))[0];
    assert!(drawn.stats.sprites > 10, "{:?}", drawn.stats);
    assert_eq!(drawn.stats.sprites_over_budget, 0);
    // Mesh-only (--no-effects): no sprite.
    let opts = RenderOptions {
        effects: false,
        ..torch_opts(m.as_ref(), 1)
    };
    assert_eq!(render_with(m.as_ref(), &[45], &opts)[0].stats.sprites, 0);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn aribeth_dangly_meshes_sway_within_their_displacement() {
    let m = load_nwn(&sample("c_aribeth.mdl"));
    let anim = default_animation(&m);
    assert!(anim.is_some());
    // Two dangly nodes (torso_g, head_g), displacement 0.02.
    let sway = nwn::dangly::sways(&m, anim, 20.0 / 30.0);
    assert_eq!(sway.len(), 2);
    let len = |o: [f32; 3]| (o[0] * o[0] + o[1] * o[1] + o[2] * o[2]).sqrt();
    assert!(sway.iter().all(|(_, o)| len(*o) <= 0.02 + 1e-6), "{sway:?}");
    assert!(
        sway.iter().any(|(_, o)| len(*o) > 1e-4),
        "the idle moves them: {sway:?}"
    );
    // A pure function of the frame; nothing sways without an animation.
    assert_eq!(sway, nwn::dangly::sways(&m, anim, 20.0 / 30.0));
    assert!(nwn::dangly::sways(&m, None, 1.0).is_empty());
    // The pose moves dangly vertices only: the rest of the mesh is where it was.
    let req = PoseRequest {
        animation: anim,
        frame: 20,
        camera: None,
    };
    let moved = m.pose(&req);
    assert_eq!(moved, m.pose(&req));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn tile_lights_become_the_gte_lights() {
    use psxrender::render::LightChoice;
    let m = load_nwn(&sample("ttd01_a04_03.mdl"));
    let lights = m.lights(&PoseRequest::default()).expect("two light nodes");
    assert_eq!(lights.lights.len(), 2);
    assert_eq!(lights.ambient, None);
    let render = |lights: LightChoice| {
        let opts = RenderOptions {
            threads: 1,
            lights,
            ..RenderOptions::default()
        };
        let mut r = Renderer::new(&m, &opts).unwrap();
        r.render(&PoseRequest::default()).unwrap()
    };
    let (own, rig) = (render(LightChoice::Model), render(LightChoice::Rig));
    assert_eq!(own.stats, rig.stats, "the same polygons");
    assert_ne!(own.rgb, rig.rgb, "lit differently");
    // A model without light nodes has no lights of its own: both choices draw the same.
    let torch = torch();
    assert!(torch.lights(&PoseRequest::default()).is_none());
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn imp2_cameras_render_through_the_models_eye() {
    use psxrender::render::RenderError;
    let m = psxrender::detect::load(
        &common::shared("samples/m2/Imp2.m2"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(m.camera_count(), 2);
    let eye = m.camera(0, &PoseRequest::default()).unwrap();
    // The portrait camera: in front of the face (base position, no keyed offset).
    assert!((eye.position[1] - 1.2815).abs() < 1e-3, "{eye:?}");
    assert!(eye.fov > 40.0 && eye.fov < 60.0);
    let render = |camera: Option<usize>| {
        let opts = RenderOptions {
            threads: 1,
            camera,
            ..RenderOptions::default()
        };
        Renderer::new(m.as_ref(), &opts).map(|mut r| r.render(&PoseRequest::default()).unwrap())
    };
    let (orbit, portrait) = (render(None).unwrap(), render(Some(0)).unwrap());
    assert_ne!(orbit.rgb, portrait.rgb);
    // Close up, the model fills more of the frame: fewer background pixels.
    // The background as the display shows it: the orbit view's top-left pixel.
    let clear = orbit.rgb[..3].to_vec();
    let bg = |f: &psxrender::render::Frame| f.rgb.chunks(3).filter(|p| *p == clear).count();
    assert!(
        bg(&portrait) * 4 < bg(&orbit) * 3,
        "{} vs {}",
        bg(&portrait),
        bg(&orbit)
    );
    assert!(matches!(
        render(Some(5)),
        Err(RenderError::NoCamera { index: 5, count: 2 })
    ));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn cli_effect_options_parse_and_a_missing_camera_is_a_clean_error() {
    let exe = env!("CARGO_BIN_EXE_psxrender");
    let out = std::env::temp_dir().join(format!("psxr-fx-cli-{}.png", std::process::id()));
    let run = |args: &[&str]| {
        std::process::Command::new(exe)
            .args(args)
            .output()
            .expect("psxrender runs")
    };
    let torch = sample("it_torch_000.mdl");
    let (torch, png) = (torch.to_str().unwrap(), out.to_str().unwrap());
    let with = run(&[torch, png, "--frame", "45"]);
    assert!(with.status.success());
    assert!(String::from_utf8_lossy(&with.stderr).contains("effect sprites"));
    let without = run(&[
        torch,
        png,
        "--frame",
        "45",
        "--no-effects",
        "--lights",
        "rig",
    ]);
    assert!(without.status.success());
    assert!(!String::from_utf8_lossy(&without.stderr).contains("effect sprites"));
    let imp = common::shared("samples/m2/Imp2.m2");
    let bad = run(&[imp.to_str().unwrap(), png, "--camera", "9"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("--camera 9: the model has 2 cameras"), "{err}");
    let _ = std::fs::remove_file(&out);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn torch_smoke_stays_a_cloud_above_its_emitter() {
    // mass −0.2 is the acceleration in m/s² (rollnw): at frame 60 no smoke particle is more
    // than 0.6 m above the emitter (× 9.8, the column rose ≈ 3.9 m and left the frame).
    let m = load_nwn(&sample("it_torch_000.mdl"));
    let anim = default_animation(&m);
    let fx = snapshots(&m, anim, 60.0 / 30.0);
    let (def, smoke) = (fx.iter())
        .find(|(d, _)| d.blend == Blend::Alpha)
        .expect("the smoke emitter (blend normal)");
    assert!(!smoke.particles.is_empty());
    let base = smoke.state.origin[1];
    let top = (smoke.particles.iter())
        .map(|p| smoke.world_position(def, p)[1] - base)
        .fold(f32::MIN, f32::max);
    assert!(
        top > 0.0 && top <= 0.6,
        "highest smoke {top} m above its emitter"
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn a_frame_is_framed_on_the_first_frame_asked_for() {
    // The rule docs/rendering.md states: the scale and camera come from the first frame of the
    // request (N for --frame N, A for --frames A..B), the particles from the frame alone. So
    // `--frame 45` is frame 45 of `--frames 45..47`, byte for byte, and frame 45 of
    // `--frames 40..46` is what a renderer framed on 40 draws for 45 (alone or in a run).
    let exe = env!("CARGO_BIN_EXE_psxrender");
    let dir = std::env::temp_dir().join(format!("psxr-fx-framing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = sample("it_torch_000.mdl");
    let run = |out: &str, args: &[&str]| {
        let s = std::process::Command::new(exe)
            .arg(&path)
            .arg(dir.join(out))
            .args(args)
            .output()
            .unwrap();
        assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    };
    run("alone.png", &["--frame", "45", "--threads", "1"]);
    run("range.png", &["--frames", "45..47", "--threads", "1"]);
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    assert!(read("alone.png") == read("range_0045.png"));
    let m = torch();
    let framed_at_40 = RenderOptions {
        threads: 1,
        framing: PoseRequest {
            animation: default_animation(m.as_ref()),
            frame: 40,
            camera: None,
        },
        ..RenderOptions::default()
    };
    let run_40: Vec<u32> = (40..46).collect();
    let in_run = render_with(m.as_ref(), &run_40, &framed_at_40)
        .pop()
        .unwrap();
    let alone = render_with(m.as_ref(), &[45], &framed_at_40).pop().unwrap();
    assert!(in_run.rgb == alone.rgb && in_run.gp0 == alone.gp0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A stand-in for NWN's `fx_rockchunksml` (not in the corpus): a square pyramid 0.2 m across
/// and 0.15 m high, six faces, texture `rockchunk` (missing: the checkerboard stands in).
const ROCK_CHUNK: &str = "newmodel fx_rockchunksml\nbeginmodelgeom fx_rockchunksml\n\
    node dummy fx_rockchunksml\n  parent NULL\nendnode\nnode trimesh rock\n  parent fx_rockchunksml\n\
    bitmap rockchunk\n  verts 5\n    -0.1 -0.1 0\n    0.1 -0.1 0\n    0.1 0.1 0\n    -0.1 0.1 0\n\
    0 0 0.15\n  faces 6\n    0 1 4 1 0 1 4 1\n    1 2 4 1 1 2 4 1\n    2 3 4 1 2 3 4 1\n\
    3 0 4 1 3 0 4 1\n    0 2 1 1 0 2 1 1\n    0 3 2 1 0 3 2 1\n  tverts 5\n    0 0 0\n    1 0 0\n\
    1 1 0\n    0 1 0\n    0.5 0.5 0\nendnode\nendmodelgeom fx_rockchunksml\n\
    donemodel fx_rockchunksml\n";

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/corpus/nwn")]
fn chunk_rocks_are_drawn_as_meshes_deterministically_at_every_thread_count() {
    // fx_step_stbrdg's one emitter throws `fx_rockchunksml` chunks (1 a second in "impact",
    // each living 3 s). Without the chunk model: a warning, and the frame drawn all the same.
    let path = common::shared("corpus/nwn/fx_step_stbrdg.mdl");
    let bare = psxrender::detect::load(&path, &LoadOptions::default()).unwrap();
    let w = bare.warnings().join("\n");
    assert!(w.contains("chunk model 'fx_rockchunksml' MISSING"), "{w}");
    let frames: Vec<u32> = (0..60).step_by(5).collect();
    let without = render_frames(bare.as_ref(), &frames, 1);
    // With a stand-in beside it (`--search-path`), each particle is the pyramid: six faces
    // through the GTE and the ordering table like the model's own, its texture placed with
    // them.
    let dir = std::env::temp_dir().join(format!("psxr-fx-chunk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("fx_rockchunksml.mdl"), ROCK_CHUNK).unwrap();
    let opts = LoadOptions {
        search_paths: vec![dir.clone()],
        ..LoadOptions::default()
    };
    let m = psxrender::detect::load(&path, &opts).unwrap();
    let anim = default_animation(m.as_ref());
    assert_eq!(m.animations()[anim.unwrap()].name, "impact");
    let fx = m.effects(&PoseRequest {
        animation: anim,
        frame: 45,
        camera: None,
    });
    assert!(fx.sprites.is_empty());
    let rocks = fx.mesh.faces.len() / 6;
    assert!(
        rocks >= 1 && fx.mesh.faces.len().is_multiple_of(6),
        "{rocks} rocks"
    );
    // Frame 45 alone, in a run, and on 2, 3 and 16 GPU threads: the same words and pixels.
    let run = render_frames(m.as_ref(), &frames, 1);
    assert_eq!(run[9], render_frames(m.as_ref(), &[45], 1)[0]);
    for threads in [2, 3, 16] {
        assert_eq!(
            run,
            render_frames(m.as_ref(), &frames, threads),
            "{threads} threads"
        );
    }
    let drawn = render_with(m.as_ref(), &[45], &torch_opts(m.as_ref(), 1))[0].stats;
    assert!(drawn.drawn > 0 && drawn.sprites == 0, "{drawn:?}");
    assert_ne!(run[9], without[9], "the rocks change frame 45");
    let opts = RenderOptions {
        effects: false,
        ..torch_opts(m.as_ref(), 1)
    };
    assert_eq!(render_with(m.as_ref(), &[45], &opts)[0].stats.drawn, 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
