//! NWN emitter fields read as rollnw reads them, each on a hand-written ASCII emitter. The
//! reference values come from rollnw (`lib/nw/render/particle_system.cpp` and
//! `lib/nw/model/mdl_particle_import.cpp`, read at commit 3504a71).

use std::path::Path;

use super::*;
use crate::effects::{simulate, Snapshot};
use crate::formats::LoadOptions;
use crate::scene::Model;

/// A model of one dummy root and one emitter node with `fields` (one `name value` a line).
fn emitter_model(fields: &str) -> NWNModel {
    let text = format!(
        "newmodel t\nbeginmodelgeom t\nnode dummy t\n  parent NULL\nendnode\n\
         node emitter e\n  parent t\n{fields}\nendnode\nendmodelgeom t\ndonemodel t\n"
    );
    let path = Path::new("/nonexistent-dir/fx.mdl");
    super::super::load(path, text.as_bytes(), &LoadOptions::default()).unwrap()
}

/// The model's one emitter simulated to `time` seconds of the rest pose.
fn run(m: &NWNModel, time: f32) -> Snapshot {
    let (node, def) = &m.emitters[0];
    simulate(0, def, &AnimatedNode::new(m, *node, None), time)
}

/// The emitter's state at time 0.
fn state(m: &NWNModel) -> crate::effects::EmitterState {
    AnimatedNode::new(m, m.emitters[0].0, None).state(0.0)
}

#[test]
fn mass_is_the_acceleration_itself() {
    // rollnw particle_system.cpp: `velocity.z -= mass * dt` each step, mass as authored. The
    // torch smoke's mass −0.2 over a 2 s life rises ½ · 0.2 · 2² = 0.4 m from rest (not
    // the 3.9 m that mass × 9.8 would give).
    let m = emitter_model("  update Fountain\n  birthrate 60\n  lifeExp 2\n  mass -0.2");
    assert_eq!(state(&m).gravity, -0.2);
    // The oldest is 119 steps old: ½ · 0.2 · (119/60)² ≈ 0.39 m up.
    let s = run(&m, 1.99);
    let top = s
        .particles
        .iter()
        .map(|p| p.position[1])
        .fold(0.0, f32::max);
    assert!((0.38..=0.41).contains(&top), "highest particle {top} m");
}

#[test]
fn spread_is_the_largest_angle_not_halved() {
    // rollnw mdl_particle_import.cpp: spread_radians = the controller's value; θ ≤ spread.
    let m = emitter_model("  update Fountain\n  spread 1.0");
    assert_eq!(state(&m).spread, 1.0);
}

#[test]
fn missing_end_values_are_the_start_values() {
    // rollnw mdl_particle_import.cpp: colorEnd defaults to colorStart, alphaEnd to alphaStart.
    let m = emitter_model("  update Fountain\n  colorStart 1 0 0\n  alphaStart 0.5");
    let s = state(&m);
    assert_eq!(s.color.end, [1.0, 0.0, 0.0]);
    assert_eq!(s.alpha.end, 0.5);
    assert_eq!(s.alpha.middle, 0.5);
}

#[test]
fn an_unset_frame_range_is_the_whole_sheet() {
    // rollnw particle_system.cpp: frame_begin = frame_end = 0 widens to the last cell (15 of a
    // 4 × 4 sheet).
    let m = emitter_model("  update Fountain\n  xgrid 4\n  ygrid 4");
    let crate::effects::CellAnimation::Rate { first, last, .. } = m.emitters[0].1.cells else {
        panic!("NWN cells run at a rate");
    };
    assert_eq!((first, last), (0, 15));
}

#[test]
fn particle_rotation_starts_at_zero() {
    // rollnw: rotation = 0 at birth, + rotation_rate · age; particleRot 1 is a turn a second.
    let m = emitter_model("  update Fountain\n  particleRot 1");
    let s = state(&m);
    assert!((s.spin - std::f32::consts::TAU).abs() < 1e-6);
}

#[test]
fn blend_normal_is_drawn_as_a_translucent_veil() {
    // rollnw mdl_particle_import.cpp map_blend_mode: `normal` → ParticleBlendMode::alpha
    // (standard alpha compositing), not additive. A dense white puff (alpha 1) is drawn in PS1
    // mode 0, B/2 + F/2, its colour 2a = 2.0 (256, clamped to 255), so it halves what lies
    // behind instead of adding to it.
    let m = emitter_model(
        "  update Fountain\n  blend normal\n  birthrate 30\n  lifeExp 1\n  sizeStart 1\n  alphaStart 1",
    );
    let (_, def) = &m.emitters[0];
    assert_eq!(def.blend, Blend::Alpha);
    let drawn = crate::effects::sprites(def, &run(&m, 0.5), None);
    assert!(!drawn.is_empty());
    assert!(drawn
        .iter()
        .all(|s| s.blend == Blend::Alpha && s.color == [255; 3]));
}

#[test]
fn fps_zero_runs_the_cells_once_over_the_life() {
    // rollnw particle_system.cpp eval_sprite_frame, frames_per_second 0: frame = begin +
    // ⌊t · count⌋ at normalised age t. The whole 2 × 2 sheet over a 1 s life: a particle
    // 0.5 s old shows cell 2 (left column, bottom row).
    let m =
        emitter_model("  update Single\n  xgrid 2\n  ygrid 2\n  fps 0\n  lifeExp 1\n  sizeStart 1");
    let (_, def) = &m.emitters[0];
    let drawn = crate::effects::sprites(def, &run(&m, 0.5), None);
    assert_eq!(drawn.len(), 1);
    assert_eq!(drawn[0].uv[0], [0.0, 0.5]);
    assert_eq!(drawn[0].uv[3], [0.5, 1.0]);
}

/// The emitter model of [`emitter_model`] with one animation `a` (1 s) whose emitter node
/// carries `keys`.
fn animated_emitter(fields: &str, keys: &str) -> NWNModel {
    let text = format!(
        "newmodel t\nbeginmodelgeom t\nnode dummy t\n  parent NULL\nendnode\n\
         node emitter e\n  parent t\n{fields}\nendnode\nendmodelgeom t\n\
         newanim a t\n  length 1\n  transtime 0\nnode dummy t\n  parent NULL\nendnode\n\
         node emitter e\n  parent t\n{keys}\nendnode\ndoneanim a t\ndonemodel t\n"
    );
    let path = Path::new("/nonexistent-dir/fx.mdl");
    super::super::load(path, text.as_bytes(), &LoadOptions::default()).unwrap()
}

/// The particles alive `time` seconds into animation `a`.
fn run_animated(m: &NWNModel, time: f32) -> Snapshot {
    let (node, def) = &m.emitters[0];
    let src = AnimatedNode::new(m, *node, Some(0));
    simulate(0, def, &src, time)
}

#[test]
fn a_detonate_keys_value_is_its_burst_count() {
    // rollnw mdl_particle_import.cpp collect_animation_effect_events: a detonate key fires
    // max(1, round(value)) bursts, each of `birthrate` particles (particle_system.cpp
    // spawn_pending_bursts). Birthrate 5: a key of value 3 at 0.25 s gives 15 particles.
    let fields = "  update Explosion\n  birthrate 5\n  lifeExp 0.5";
    let m = animated_emitter(fields, "  detonatekey 1\n  0.25 3");
    assert_eq!(run_animated(&m, 0.2).particles.len(), 0);
    assert_eq!(run_animated(&m, 0.3).particles.len(), 15);
    // A value below 1 still fires one burst.
    let m = animated_emitter(fields, "  detonatekey 1\n  0.25 0");
    assert_eq!(run_animated(&m, 0.3).particles.len(), 5);
    // The exporters' `detonatekey 2` without rows: rollnw's key of value 2, here at the start.
    let m = animated_emitter(fields, "  detonatekey 2\n");
    assert_eq!(run_animated(&m, 0.1).particles.len(), 10);
}

#[test]
fn percent_start_and_end_place_the_first_and_last_keys() {
    // rollnw mdl_particle_import.cpp make_three_stage_curve: keys at (percentStart, start),
    // (percentMid, middle), (percentEnd, end), the value held before the first and after the
    // last (particle_system.cpp eval_track_keys); a missing middle value is halfway, 0.5 ·
    // (start + end). percentStart 0.5, alpha 1 → 0, additive: at 0.25 s of a 1 s life the
    // start alpha 1 still holds (128); at 0.75 s it is 0.25 (32), halfway from the middle
    // (0.5 at 0.5 s) to the end.
    let m = emitter_model(
        "  update Single\n  blend lighten\n  lifeExp 1\n  sizeStart 1\n  alphaStart 1\n  \
         alphaEnd 0\n  percentStart 0.5\n  percentEnd 1",
    );
    let (_, def) = &m.emitters[0];
    assert_eq!(def.extras.curve_window, [0.5, 1.0]);
    let colour = |t: f32| crate::effects::sprites(def, &run(&m, t), None)[0].color;
    assert_eq!(colour(0.25), [128; 3]);
    assert_eq!(colour(0.75), [32; 3]);
    // Keys end early: percentEnd 0.5 holds the end size from mid-life on.
    let m =
        emitter_model("  update Single\n  lifeExp 1\n  sizeStart 1\n  sizeEnd 3\n  percentEnd 0.5");
    let width = |t: f32| {
        let (_, def) = &m.emitters[0];
        let c = crate::effects::sprites(def, &run(&m, t), None)[0].corners;
        c[1][0] - c[0][0]
    };
    assert!((width(0.75) - 3.0).abs() < 1e-5, "{}", width(0.75));
}

/// An emitter moving 1 m a second along NWN +X (scene −X) through animation `a`.
fn moving_emitter(fields: &str) -> NWNModel {
    animated_emitter(fields, "  positionkey 2\n  0 0 0 0\n  1 1 0 0")
}

#[test]
fn inherit_local_keeps_particles_where_they_were_born() {
    // rollnw mdl_particle_import.cpp map_simulation_space: inherit_local → spawn_attached
    // (particles anchored at their birth point in the world), before inherit →
    // emitter_attached. With both flags the particles do not ride with the emitter.
    let m = emitter_model("  update Fountain\n  inherit 1\n  inherit_local 1");
    assert!(!m.emitters[0].1.attached);
    let m = emitter_model("  update Fountain\n  inherit 1");
    assert!(m.emitters[0].1.attached);
}

#[test]
fn inheritvel_adds_the_emitters_velocity() {
    // rollnw particle_system.cpp initial_velocity: speed · direction + the emitter's linear
    // velocity × velocity_inheritance, 1 with inheritvel (mdl_particle_import.cpp). Particles
    // of speed 0 from an emitter moving 1 m/s along NWN +X move 1 m/s along scene −X.
    let fields = "  update Fountain\n  birthrate 10\n  lifeExp 2\n  inheritvel 1";
    let s = run_animated(&moving_emitter(fields), 0.5);
    assert!(!s.particles.is_empty());
    for p in &s.particles {
        assert!((p.velocity[0] + 1.0).abs() < 1e-3, "{:?}", p.velocity);
    }
    let s = run_animated(
        &moving_emitter("  update Fountain\n  birthrate 10\n  lifeExp 2"),
        0.5,
    );
    assert!(s.particles.iter().all(|p| p.velocity == [0.0; 3]));
}

#[test]
fn spawntype_1_births_per_metre_moved() {
    // rollnw particle_system.cpp, ParticleSpawnMetric::per_distance (spawntype 1,
    // mdl_particle_import.cpp): birthrate × distance moved. Birthrate 10 at rest births
    // nothing; moving 1 m/s, 35/60 m by the last step that births before 0.6 s: 5.
    let fields = "  update Fountain\n  birthrate 10\n  lifeExp 5\n  spawntype 1";
    assert_eq!(run(&emitter_model(fields), 1.0).particles.len(), 0);
    assert_eq!(
        run_animated(&moving_emitter(fields), 0.6).particles.len(),
        5
    );
}

#[test]
fn bounce_and_splat_meet_the_ground_plane() {
    // rollnw particle_system.cpp apply_particle_collision against the flat ground z = 0 of
    // its tests (render_particles.cpp): a bounce mirrors the velocity and scales it by
    // bounce_co; a splat kills the particle. Dropped from 0.5 m with mass 9.8, a particle
    // lands at 0.32 s.
    let drop = "  update Single\n  lifeExp 1\n  mass 9.8\n  position 0 0 0.5";
    let m = emitter_model(&format!("{drop}\n  bounce 1\n  bounce_co 0.5"));
    assert_eq!(
        m.emitters[0].1.extras.floor,
        Some(crate::effects::Floor::Bounce(0.5))
    );
    let p = &run(&m, 0.34).particles[0];
    assert!(p.position[1] >= 0.0 && p.velocity[1] > 0.0, "{p:?}");
    // Without bounce it falls through; with splat it is gone.
    let p = &run(&emitter_model(drop), 0.4).particles[0];
    assert!(p.position[1] < 0.0);
    let m = emitter_model(&format!("{drop}\n  splat 1"));
    assert!(run(&m, 0.34).particles.is_empty());
}

/// An emitter at the origin with `fields` and a reference child 1 m above it (NWN +Z, scene
/// +Y): a point-to-point target.
fn p2p_model(fields: &str) -> NWNModel {
    emitter_model(&format!(
        "{fields}\nendnode\nnode reference r\n  parent e\n  position 0 0 1\n  refModel NULL"
    ))
}

#[test]
fn p2p_gravity_pulls_toward_the_reference_node() {
    // rollnw particle_system.cpp sprite_target_gravity: each step, dead within `threshold`
    // of the target, else velocity += direction to it × grav · dt, then × (1 − drag · dt).
    // grav 5 from rest straight at a target 1 m up: the speed is 5 · age, all upward.
    let m = p2p_model(
        "  update Fountain\n  birthrate 10\n  lifeExp 5\n  p2p 1\n  p2p_sel 0\n  grav 5\n  \
         threshold 0.2",
    );
    let s = run(&m, 0.4);
    assert!(!s.particles.is_empty());
    for p in &s.particles {
        assert!((p.velocity[1] - 5.0 * p.age).abs() < 1e-3, "{p:?}");
    }
    // A particle dies at the first step it starts within 0.2 m of the target: by 1 s the
    // four oldest of the ten born have, and none has gone past.
    let s = run(&m, 1.0);
    assert_eq!(s.particles.len(), 6);
    assert!(s.particles.iter().all(|p| p.position[1] < 0.85));
}

#[test]
fn p2p_bezier_travels_to_the_reference_node_in_combinetime() {
    // rollnw particle_system.cpp sprite_target_bezier: position = cubic_bezier(source,
    // source + dir · p2p_bezier2, target − dir · p2p_bezier3, target, age / combinetime).
    // Tangents 0 and combinetime 1: 0.5 of the way up at 0.5 s, at the target from 1 s.
    let m = p2p_model(
        "  update Single\n  lifeExp 2\n  p2p 1\n  p2p_sel 1\n  p2p_bezier2 0\n  \
         p2p_bezier3 0\n  combinetime 1",
    );
    let y = |t: f32| run(&m, t).particles[0].position[1];
    assert!((y(0.5) - 0.5).abs() < 1e-4, "{}", y(0.5));
    assert!((y(1.5) - 1.0).abs() < 1e-4, "{}", y(1.5));
}

#[test]
fn lightning_is_a_beam_of_subdivision_cards_to_the_reference_node() {
    // rollnw particle_renderer.cpp, beam path: `subdivisions` cards from the emitter to the
    // target, half width 0.22 × the particle's size, the joints pushed sideways by at most
    // 0.14 half widths × sin(π t), none at the ends. subdivision 4, size 1 → four cards
    // 0.44 wide from the origin to 1 m up.
    let m = p2p_model(
        "  update Lightning\n  render Normal\n  blend lighten\n  p2p 1\n  lifeExp 1\n  \
         sizeStart 1\n  subdivision 4",
    );
    let (_, def) = &m.emitters[0];
    let cards = crate::effects::sprites(def, &run(&m, 0.5), None);
    assert_eq!(cards.len(), 4);
    let mid = |a: [f32; 3], b: [f32; 3]| [0, 1, 2].map(|i| (a[i] + b[i]) / 2.0);
    let start = mid(cards[0].corners[0], cards[0].corners[1]);
    let end = mid(cards[3].corners[2], cards[3].corners[3]);
    assert!(start.iter().all(|v| v.abs() < 1e-6), "{start:?}");
    assert!(
        (end[1] - 1.0).abs() < 1e-6 && end[0].abs() < 1e-6,
        "{end:?}"
    );
    for c in &cards {
        let w = (0..3)
            .map(|i| (c.corners[1][i] - c.corners[0][i]).powi(2))
            .sum::<f32>();
        assert!((w.sqrt() - 0.44).abs() < 1e-5, "{}", w.sqrt());
    }
    // The same beam on every frame of the particle's life.
    let later = crate::effects::sprites(def, &run(&m, 0.6), None);
    assert_eq!(later[1].corners, cards[1].corners);
}

#[test]
fn upright_particles_spin_about_the_worlds_up() {
    // rollnw particle_render.cpp particle_billboard_sprite_axes, aligned_to_world_z: the card's
    // right axis turned about world Z (scene +Y) by rotation · 2π, from 0 at birth; its up
    // stays vertical. particleRot 0.25: a quarter turn after 1 s, the card's width along the
    // depth axis instead of across the screen.
    let m = emitter_model(
        "  update Single\n  render aligned_to_world_z\n  lifeExp 2\n  sizeStart 1\n  \
         particleRot 0.25",
    );
    let (_, def) = &m.emitters[0];
    let c = crate::effects::sprites(def, &run(&m, 1.0), None)[0].corners;
    let width = [0, 1, 2].map(|i| c[1][i] - c[0][i]);
    assert!(
        width[0].abs() < 1e-5 && (width[2].abs() - 1.0).abs() < 1e-5,
        "{width:?}"
    );
    let height = [0, 1, 2].map(|i| c[0][i] - c[2][i]);
    assert!((height[1] - 1.0).abs() < 1e-5, "{height:?}");
}

/// A scratch folder holding `files` (name, text), made afresh.
fn folder_with(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("psxrender-chunk-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

/// A one-triangle model `rock`: corners at NWN (1, 0, 0), (0, 1, 0), (0, 0, 1), texture `rocktex`.
const ROCK: &str = "newmodel rock\nbeginmodelgeom rock\nnode dummy rock\n  parent NULL\nendnode\n\
    node trimesh m\n  parent rock\n  bitmap rocktex\n  verts 3\n    1 0 0\n    0 1 0\n    0 0 1\n\
    faces 1\n    0 1 2 1 0 1 2 1\n  tverts 3\n    0 0 0\n    1 0 0\n    0 1 0\nendnode\n\
    endmodelgeom rock\ndonemodel rock\n";

/// A model `fx` whose one emitter, 1 m up (NWN +Z), has `fields`.
fn chunk_emitter(fields: &str) -> String {
    format!(
        "newmodel fx\nbeginmodelgeom fx\nnode dummy fx\n  parent NULL\nendnode\n\
         node emitter e\n  parent fx\n  position 0 0 1\n{fields}\nendnode\nendmodelgeom fx\n\
         donemodel fx\n"
    )
}

#[test]
fn chunk_particles_are_their_model_scaled_by_their_size_and_turned_about_up() {
    // rollnw: mdl_particle_import.cpp gives a `chunkName` emitter the mesh kernel whatever its
    // texture; viewer/scene_particles.cpp particle_mesh_root draws the model at the particle as
    // translate(position) · rotate(rotation · 2π about world Z) · scale(mean(size_x, size_y)),
    // in the model's own material (no particle colour). One particle 2 × 4 all its life
    // (scale 3) with particleRot 0.25, 1 s old: `rock` 3 times as large, a
    // quarter turn about up, at the emitter. Its corner NWN (1, 0, 0) lands at NWN
    // (0, 3, 1) — scene (0, 1, 3) — and (0, 0, 1) at NWN (0, 0, 4), scene (0, 4, 0).
    let fields = "  update Single\n  lifeExp 2\n  sizeStart 2\n  sizeStart_y 4\n  sizeEnd 2\n  \
                  sizeEnd_y 4\n  particleRot 0.25\n  colorStart 1 0 0\n  texture fxpa_flare\n  \
                  chunkName ROCK";
    let dir = folder_with("placed", &[("rock.mdl", ROCK)]);
    let path = dir.join("fx.mdl");
    let text = chunk_emitter(fields);
    let m = super::super::load(&path, text.as_bytes(), &LoadOptions::default()).unwrap();
    assert_eq!(m.emitters.len(), 1, "{:?}", m.warnings);
    assert_eq!(m.chunks[0].path, dir.join("rock.mdl"));
    let fx = m.effects(&crate::scene::PoseRequest {
        animation: None,
        frame: 30,
        camera: None,
    });
    assert!(fx.sprites.is_empty(), "a chunk particle is not a quad");
    let v: Vec<[f32; 3]> = fx.mesh.vertices.iter().map(|v| v.position).collect();
    let near = |a: [f32; 3], b: [f32; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-5);
    assert_eq!(v.len(), 3);
    assert!(near(v[0], [0.0, 1.0, 3.0]), "{v:?}");
    assert!(near(v[1], [3.0, 1.0, 0.0]), "{v:?}");
    assert!(near(v[2], [0.0, 4.0, 0.0]), "{v:?}");
    // The rock's own texture, untinted, placed with the model's textures; the emitter's
    // `fxpa_flare` is not looked for.
    let face = &fx.mesh.faces[0];
    assert_eq!(face.vertices[..3], [0, 1, 2]);
    assert_eq!(face.colors[0], [128; 3]);
    let crate::scene::FaceTexture::Image { texture, .. } = face.texture else {
        panic!("textured: {face:?}");
    };
    assert_eq!(m.textures[texture].name, "rocktex");
    assert!(fx.uses.contains(&(texture, face.blend)));
    assert!(m.textures.iter().all(|t| t.name != "fxpa_flare"));
    assert!(
        m.info().contains("  e: single, chunk model ROCK; "),
        "{}",
        m.info()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_chunk_model_is_a_warning_and_draws_nothing() {
    // rollnw's scene_particles.cpp drops a mesh packet whose model does not load.
    let dir = folder_with("missing", &[]);
    let text = chunk_emitter("  update Fountain\n  birthrate 10\n  chunkName nothere");
    let m = super::super::load(
        &dir.join("fx.mdl"),
        text.as_bytes(),
        &LoadOptions::default(),
    )
    .unwrap();
    assert!(m.emitters.is_empty());
    let w = m.warnings.join("\n");
    assert!(
        w.contains("chunk model 'nothere' MISSING") && w.contains("emitter 'e' draws nothing"),
        "{w}"
    );
    let fx = m.effects(&crate::scene::PoseRequest::default());
    assert!(fx.sprites.is_empty() && fx.mesh.faces.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}
