//! M2 effects: Imp2's particle flames, the fountain's flowing water (texture animation
//! translation), and two writer-made models worked out by hand: a ribbon behind a moving bone
//! and a texture turning a quarter turn.

mod common;

use std::path::{Path, PathBuf};

use gpu::gp0::decode::{decode, packet_words, Gp0Command};
use psxrender::formats::m2::track::Time;
use psxrender::formats::m2::writer::{
    SynthBatch, SynthBone, SynthModel, SynthRibbon, SynthSequence, SynthTextureAnim, SynthTrack,
    SynthVertex,
};
use psxrender::formats::m2::{self, M2Model};
use psxrender::formats::LoadOptions;
use psxrender::render::{default_animation, RenderOptions, Renderer};
use psxrender::scene::{Blend, FaceTexture, Model, PoseRequest};

fn sample(name: &str) -> PathBuf {
    common::shared(&format!("samples/m2/{name}"))
}

fn load(path: &Path, opts: &LoadOptions) -> M2Model {
    let data = std::fs::read(path).unwrap();
    m2::load(path, &data, opts).unwrap_or_else(|e| panic!("{e}"))
}

fn request(animation: Option<usize>, frame: u32) -> PoseRequest {
    PoseRequest {
        animation,
        frame,
        camera: None,
    }
}

/// Renders `frame` of `model`'s default animation (framed on frame 0) with or without effects.
fn render(model: &dyn Model, frame: u32, effects: bool) -> psxrender::render::Frame {
    render_in(model, default_animation(model), frame, effects)
}

/// Renders `frame` of `anim` (framed on its frame 0) with or without effects.
fn render_in(
    model: &dyn Model,
    anim: Option<usize>,
    frame: u32,
    effects: bool,
) -> psxrender::render::Frame {
    let opts = RenderOptions {
        threads: 1,
        effects,
        framing: request(anim, 0),
        ..RenderOptions::default()
    };
    let mut r = Renderer::new(model, &opts).unwrap();
    r.render(&request(anim, frame)).unwrap()
}

/// Every textured polygon of a frame's GP0 words: (screen positions, texture coordinates).
fn textured_polygons(gp0: &[u32]) -> Vec<(Vec<u32>, Vec<[u8; 2]>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < gp0.len() {
        let n = packet_words(gp0[i]).max(1);
        if let Gp0Command::Polygon { flags, verts } = decode(&gp0[i..(i + n).min(gp0.len())]) {
            if flags.textured {
                let k = if flags.quad { 4 } else { 3 };
                out.push((
                    verts[..k].iter().map(|v| v.pos.0).collect(),
                    verts[..k].iter().map(|v| [v.tex.u(), v.tex.v()]).collect(),
                ));
            }
        }
        i += n;
    }
    out
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn imp2_skin_is_found_and_its_flames_wait_for_their_enabled_track() {
    // The skin search finds imp2red.blp beside Imp2.m2 (named after the model, no "skin").
    let path = sample("Imp2.m2");
    let m = load(&path, &LoadOptions::default());
    assert!(m.textures[0]
        .resolved
        .as_ref()
        .is_some_and(|p| p.ends_with("imp2red.blp")));
    // As the issue runs it: --texture 11=imp2red.blp.
    let opts = LoadOptions {
        replaceable_textures: vec![(11, sample("imp2red.blp"))],
        ..LoadOptions::default()
    };
    let m = load(&path, &opts);
    assert_eq!(m.extras.particles.len(), 3);
    assert_eq!(m.extras.cameras.len(), 2);
    // The "enabled in" track is 0 throughout Stand (WebWowViewerCpp emits nothing then).
    let stand = default_animation(&m);
    assert_eq!(m.animations()[stand.unwrap()].name, "Stand");
    for frame in (0..120).step_by(20) {
        assert!(
            m.effects(&request(stand, frame)).sprites.is_empty(),
            "Stand {frame}"
        );
    }
    // Its only non-zero key is the last instant of anim132 (key 41 of 50, at 90495 ms): the
    // flames are off in every sequence, and a Stand frame is the mesh alone.
    let e = &m.extras.particles[0].enabled;
    assert_eq!(e.values.iter().filter(|v| **v != 0.0).count(), 1);
    let with = render_in(&m, stand, 40, true);
    let without = render_in(&m, stand, 40, false);
    assert_eq!(with.stats.sprites, 0, "{:?}", with.stats);
    assert!(with.rgb == without.rgb);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn fountain_water_uvs_move_by_the_translation_track() {
    let m = load(&sample("StormwindFountain01.m2"), &LoadOptions::default());
    assert_eq!(m.extras.texture_anims.len(), 7);
    let anim = default_animation(&m);
    let (p0, p15) = (m.pose(&request(anim, 0)), m.pose(&request(anim, 15)));
    // The translation each texture animation makes between frames 0 and 15 (500 ms).
    let seq = &m.sequences[0];
    let at = |ms: u32| Time {
        sequence: Some(0),
        ms: seq.start_ms + ms,
        global_ms: ms,
    };
    let expected: Vec<[f32; 2]> = m
        .extras
        .texture_anims
        .iter()
        .filter_map(|a| {
            let t0 = a.translation.sample(&at(0), &m.global_sequences)?;
            let t1 = a.translation.sample(&at(500), &m.global_sequences)?;
            Some([t1[0] - t0[0], t1[1] - t0[1]])
        })
        .collect();
    let mut moved = 0;
    for (a, b) in p0.faces.iter().zip(&p15.faces) {
        let (FaceTexture::Image { uv: u0, .. }, FaceTexture::Image { uv: u1, .. }) =
            (&a.texture, &b.texture)
        else {
            continue;
        };
        let d = [u1[0][0] - u0[0][0], u1[0][1] - u0[0][1]];
        if d == [0.0, 0.0] {
            continue;
        }
        moved += 1;
        // The whole face moves by one of the tracks' translations.
        for k in 0..3 {
            let dk = [u1[k][0] - u0[k][0], u1[k][1] - u0[k][1]];
            assert!((dk[0] - d[0]).abs() < 1e-4 && (dk[1] - d[1]).abs() < 1e-4);
        }
        assert!(
            expected
                .iter()
                .any(|e| (e[0] - d[0]).abs() < 1e-4 && (e[1] - d[1]).abs() < 1e-4),
            "{d:?} not among {expected:?}"
        );
    }
    assert!(moved > 100, "{moved} faces moved");
    // In the packets: the same polygons at the same places, some with other 8-bit UVs.
    let (f0, f15) = (render(&m, 0, true), render(&m, 15, true));
    let (a, b) = (textured_polygons(&f0.gp0), textured_polygons(&f15.gp0));
    let before: std::collections::HashMap<&Vec<u32>, &Vec<[u8; 2]>> =
        a.iter().map(|(xy, uv)| (xy, uv)).collect();
    let (mut same_place, mut uv_changed) = (0, 0);
    for (xy, uv) in &b {
        if let Some(old) = before.get(xy) {
            same_place += 1;
            uv_changed += (*old != uv) as usize;
        }
    }
    assert!(
        same_place > b.len() / 2,
        "a static doodad's polygons stay put"
    );
    assert!(uv_changed > 100, "{uv_changed} packets with new UVs");
}

/// One bone, optionally sliding along WoW +Y (scene +X) at 1 unit/s over a 2 s sequence.
fn bone(moving: bool) -> SynthBone {
    SynthBone {
        parent: -1,
        translation: if moving {
            SynthTrack {
                interpolation: 1,
                global_sequence: -1,
                ranges: vec![(0, 1), (0, 0)],
                times: vec![0, 2000],
                values: vec![[0.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
            }
        } else {
            SynthTrack::default()
        },
        ..Default::default()
    }
}

/// A textured unit quad facing the camera's default view (WoW +X), UVs 0..1.
fn quad_model(dir: &Path) -> SynthModel {
    let v = |y: f32, z: f32, uv: [f32; 2]| SynthVertex {
        position: [0.0, y, z],
        weights: [255, 0, 0, 0],
        bones: [0; 4],
        normal: [1.0, 0.0, 0.0],
        uv,
    };
    let texture = psxrender::formats::blp::write_palettized(
        8,
        8,
        &(0..256u32)
            .map(|i| [i as u8, 255 - i as u8, 64])
            .collect::<Vec<_>>(),
        &(0..64u8).collect::<Vec<_>>(),
        &[255; 64],
        0,
    );
    std::fs::write(dir.join("grid.blp"), texture).unwrap();
    SynthModel {
        version: 256,
        name: "Quad".into(),
        sequences: vec![SynthSequence {
            id: 0,
            variation: 0,
            start_ms: 0,
            end_ms: 2000,
        }],
        vertices: vec![
            v(1.0, 1.0, [0.0, 0.0]),
            v(-1.0, 1.0, [1.0, 0.0]),
            v(1.0, -1.0, [0.0, 1.0]),
            v(-1.0, -1.0, [1.0, 1.0]),
        ],
        batches: vec![SynthBatch {
            triangles: vec![[0, 2, 1], [1, 2, 3]],
            texture: Some(0),
            render_flags: (0x4, 0),
            ..Default::default()
        }],
        textures: vec![(0, "grid.blp".into())],
        ..Default::default()
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("psxr-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn writer_texture_rotation_turns_uvs_about_the_centre() {
    let dir = temp_dir("texrot");
    let mut model = quad_model(&dir);
    model.bones = vec![bone(false)];
    // A quarter turn about Z over the first second, held after.
    let q = |deg: f32| {
        let h = deg.to_radians() / 2.0;
        [0.0, 0.0, h.sin(), h.cos()]
    };
    model.texture_anims = vec![SynthTextureAnim {
        rotation: SynthTrack {
            interpolation: 1,
            global_sequence: -1,
            ranges: vec![(0, 2), (0, 0)],
            times: vec![0, 1000, 2000],
            values: vec![q(0.0), q(90.0), q(90.0)],
        },
        ..Default::default()
    }];
    model.batches[0].texture_anim = Some(0);
    let path = dir.join("quad.m2");
    std::fs::write(&path, model.write()).unwrap();
    let m = load(&path, &LoadOptions::default());
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    let uv_of = |frame: u32| -> Vec<[f32; 2]> {
        let p = m.pose(&request(Some(0), frame));
        let FaceTexture::Image { uv, .. } = &p.faces[0].texture else {
            panic!("textured")
        };
        uv[..3].to_vec()
    };
    let close = |a: &[[f32; 2]], b: &[[f32; 2]]| {
        a.iter()
            .zip(b)
            .all(|(x, y)| (x[0] - y[0]).abs() < 1e-5 && (x[1] - y[1]).abs() < 1e-5)
    };
    // Face 0 is corners (0,0), (0,1), (1,0). uv' = c + R(uv − c), c = (½, ½), R = 90°:
    // (x, y) → (−y, x): (0,0) → (1,0), (0,1) → (0,0), (1,0) → (1,1).
    assert!(close(&uv_of(0), &[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]]));
    assert!(
        close(&uv_of(30), &[[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]]),
        "{:?}",
        uv_of(30)
    );
    // Halfway (45°): (0,0) → (½, ½ − √½).
    let h = 0.5 - std::f32::consts::FRAC_1_SQRT_2;
    assert!(close(&uv_of(15)[..1], &[[0.5, h]]), "{:?}", uv_of(15));
    // In the packet, on the 8×8 texture: texels (8,0), (0,0), (8,8) → the far edge on the
    // repeat boundary pulled in to 7.
    let f = render(&m, 30, true);
    let polys = textured_polygons(&f.gp0);
    assert!(
        polys.iter().any(|p| p.1 == [[7, 0], [0, 0], [7, 7]]),
        "{polys:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn writer_texture_translation_is_applied_before_rotation() {
    // WebWowViewerCpp (animationManager.cpp, calcTextureAnimationTransform): the matrix is
    // rotation · scaling · translation about the centre c = (½, ½), so uv' = c + R(uv + t − c).
    // A quarter turn with t = (¼, 0): corner (0, 0) → c + R(−¼, −½) = (1, ¼); translating
    // after the turn would give (1¼, 0).
    let dir = temp_dir("texorder");
    let mut model = quad_model(&dir);
    model.bones = vec![bone(false)];
    let h = 45f32.to_radians();
    fn constant<T>(v: T) -> SynthTrack<T> {
        SynthTrack {
            interpolation: 0,
            global_sequence: -1,
            ranges: vec![(0, 0), (0, 0)],
            times: vec![0],
            values: vec![v],
        }
    }
    model.texture_anims = vec![SynthTextureAnim {
        translation: constant([0.25, 0.0, 0.0]),
        rotation: constant([0.0, 0.0, h.sin(), h.cos()]),
        ..Default::default()
    }];
    model.batches[0].texture_anim = Some(0);
    let path = dir.join("quad.m2");
    std::fs::write(&path, model.write()).unwrap();
    let m = load(&path, &LoadOptions::default());
    let p = m.pose(&request(Some(0), 0));
    let FaceTexture::Image { uv, .. } = &p.faces[0].texture else {
        panic!("textured")
    };
    assert!(
        (uv[0][0] - 1.0).abs() < 1e-5 && (uv[0][1] - 0.25).abs() < 1e-5,
        "{:?}",
        uv[0]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn writer_ribbon_trails_its_moving_bone() {
    let dir = temp_dir("ribbon");
    let mut model = quad_model(&dir);
    model.bones = vec![bone(true)];
    model.batches[0].render_flags = (0x4, 4);
    let constant_f = |v: f32| SynthTrack {
        interpolation: 0,
        global_sequence: -1,
        ranges: vec![(0, 0), (0, 0)],
        times: vec![0],
        values: vec![v],
    };
    model.ribbons = vec![SynthRibbon {
        bone: 0,
        position: [0.0, 0.0, 0.0],
        texture: Some(0),
        material: Some(0),
        color: SynthTrack {
            interpolation: 0,
            global_sequence: -1,
            ranges: vec![(0, 0), (0, 0)],
            times: vec![0],
            values: vec![[1.0, 0.5, 0.25]],
        },
        alpha: SynthTrack {
            interpolation: 0,
            global_sequence: -1,
            ranges: vec![(0, 0), (0, 0)],
            times: vec![0],
            values: vec![32767],
        },
        above: constant_f(1.0),
        below: constant_f(0.5),
        edges_per_second: 10.0,
        edge_lifetime: 0.5,
        gravity: 0.0,
    }];
    let path = dir.join("ribbon.m2");
    std::fs::write(&path, model.write()).unwrap();
    let m = load(&path, &LoadOptions::default());
    assert_eq!(m.extras.ribbons.len(), 1);
    // Worked by hand: the bone is at x = t (scene; tracks sample whole milliseconds, hence the
    // 1e-3 tolerance). Edges are laid every 6 steps from step 5
    // and live 0.5 s, so at 1 s the head edge (x = 1) is followed by edges laid in steps 59,
    // 53, 47, 41, 35 (x = step/60), each spanning y = −0.5 … 1: five quads, u from 0 at the
    // head to age/0.5 behind, colour (1, ½, ¼) × opacity 1 × 128, blend 4 (additive).
    let fx = m.effects(&request(Some(0), 30));
    assert_eq!(fx.sprites.len(), 5);
    let xs = [60.0, 59.0, 53.0, 47.0, 41.0, 35.0].map(|k: f32| k / 60.0);
    for (i, s) in fx.sprites.iter().enumerate() {
        let want = [
            [xs[i], 1.0, 0.0],
            [xs[i + 1], 1.0, 0.0],
            [xs[i], -0.5, 0.0],
            [xs[i + 1], -0.5, 0.0],
        ];
        for (c, w) in s.corners.iter().zip(want) {
            for k in 0..3 {
                assert!(
                    (c[k] - w[k]).abs() < 1e-3,
                    "sprite {i}: {:?} vs {want:?}",
                    s.corners
                );
            }
        }
        let u = |x: f32| (1.0 - x) / 0.5;
        assert!((s.uv[0][0] - u(xs[i])).abs() < 1e-4 && (s.uv[1][0] - u(xs[i + 1])).abs() < 1e-4);
        // u comes from the edges' ages (whole steps), not their positions.
        assert_eq!(s.color, [128, 64, 32]);
        assert_eq!(s.texture, Some(0));
    }
    assert!(fx.sprites.iter().all(|s| s.blend == Blend::Additive));
    let f = render(&m, 30, true);
    assert_eq!(f.stats.sprites, 5);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn writer_emitter_spawns_only_while_its_enabled_track_is_on() {
    use psxrender::effects::{simulate, EmitterSource};
    use psxrender::formats::m2::effects::{emitter_def, track_index, M2Emitter};
    use psxrender::formats::m2::track::{Interpolation, Track};
    // WebWowViewerCpp (particleEmitter.cpp) emits nothing while "enabled in" samples 0: an
    // emitter of 30 a second whose track is 0 for the first second, 1 after, has no particle
    // at 1 s and about 15 at 1.5 s.
    let dir = temp_dir("enabled");
    let mut model = quad_model(&dir);
    model.bones = vec![bone(false)];
    let path = dir.join("quad.m2");
    std::fs::write(&path, model.write()).unwrap();
    let m = load(&path, &LoadOptions::default());
    let step = |times: Vec<u32>, values: Vec<f32>| Track {
        interpolation: Interpolation::None,
        global_sequence: None,
        ranges: vec![(0, times.len() as u32 - 1)],
        times,
        values,
        tangents: Vec::new(),
    };
    let mut tracks: [Track<f32>; 10] = std::array::from_fn(|_| step(vec![0], vec![0.0]));
    tracks[track_index::RATE] = step(vec![0], vec![30.0]);
    tracks[track_index::LIFESPAN] = step(vec![0], vec![5.0]);
    let e = m2::effects::ParticleEmitter {
        blend: 4,
        tracks,
        enabled: step(vec![0, 1000], vec![0.0, 1.0]),
        ..Default::default()
    };
    let src = M2Emitter::new(&m, &e, Some(0));
    assert!(!src.state(0.5).enabled && src.state(1.2).enabled);
    let def = emitter_def(0, &e);
    assert!(simulate(0, &def, &src, 1.0).particles.is_empty());
    let n = simulate(0, &def, &src, 1.5).particles.len();
    assert!((14..=16).contains(&n), "{n} particles at 1.5 s");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn m2_blend_modes_take_their_ps1_modes() {
    use psxrender::effects::drawn_blends;
    use Blend::*;
    // wowdev M2Blend 0–7 → the scene blend docs/rendering.md tabulates: opaque, alpha key
    // (punch-through), alpha, add without alpha, add, modulate, modulate 2×, blend-add.
    let m2: Vec<Blend> = (0..=7).map(m2::blend_of).collect();
    assert_eq!(
        m2,
        [Opaque, Cutout, Alpha, Additive, Additive, Alpha, Alpha, Alpha]
    );
    // Alpha quads are drawn B/2 + F/2 or B + F/4 by opacity, additive ones B + F.
    assert_eq!(drawn_blends(m2[6]), [Alpha, AddQuarter]);
    assert_eq!(drawn_blends(m2[4]), [Additive]);
}
