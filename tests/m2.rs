//! M2 loader: facts about every sample in ../shared/samples/m2, synthetic TBC files from the
//! writer, posing, and the bad-input corpus.

mod common;

use std::path::{Path, PathBuf};

use psxrender::formats::m2::writer::{
    SynthBatch, SynthBone, SynthModel, SynthSequence, SynthTrack, SynthVertex,
};
use psxrender::formats::m2::{self, M2Model};
use psxrender::formats::{blp, ErrorKind, LoadOptions};
use psxrender::scene::{Blend, FaceTexture, Model, PoseRequest};

fn sample(name: &str) -> PathBuf {
    common::shared(&format!("samples/m2/{name}"))
}

fn load(path: &Path, opts: &LoadOptions) -> M2Model {
    let data = std::fs::read(path).unwrap();
    m2::load(path, &data, opts).unwrap_or_else(|e| panic!("{e}"))
}

fn close3(a: [f32; 3], b: [f32; 3], eps: f32) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= eps)
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn crate_sample_facts() {
    let p = sample("STORMWINDCRATE01.M2");
    let m = load(&p, &LoadOptions::default());
    assert_eq!(m.version, 256);
    assert_eq!(m.name, "6HU_Storehouse_Crate1");
    assert_eq!((m.bones.len(), m.vertices.len(), m.views.len()), (1, 75, 4));
    assert_eq!(m.sequences.len(), 1);
    assert_eq!((m.sequences[0].id, m.sequences[0].duration_ms()), (0, 3333));
    for v in &m.views {
        assert_eq!(
            (v.triangles.len(), v.submeshes.len(), v.units.len()),
            (96, 1, 1)
        );
    }
    assert_eq!(m.textures.len(), 1);
    assert_eq!(
        m.textures[0].name,
        r"WORLD\EXPANSION05\DOODADS\HUMAN\DOODADS\6HU_BARREL_CRATE_TEXTURE.BLP"
    );
    // Found by file name alone, ignoring case, in the model's directory.
    assert!(m.textures[0].resolved.is_some());
    assert_eq!(
        (
            m.textures[0].texture.image.width,
            m.textures[0].texture.image.height
        ),
        (512, 512)
    );
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    let info = m.info();
    for want in [
        "version 256",
        "bones: 1",
        "views: 4",
        "6HU_BARREL_CRATE_TEXTURE.blp (512x512)",
    ] {
        assert!(info.contains(want), "info lacks {want:?}:\n{info}");
    }
    let posed = m.pose(&PoseRequest::default());
    assert_eq!(
        (
            posed.vertices.len(),
            posed.faces.len(),
            posed.textures.len()
        ),
        (75, 96, 1)
    );
    assert!(posed
        .faces
        .iter()
        .all(|f| f.blend == Blend::Opaque && !f.two_sided));
    // A lower LOD can be chosen; one past the last is refused.
    let data = std::fs::read(&p).unwrap();
    let lod3 = LoadOptions {
        lod: 3,
        ..Default::default()
    };
    assert_eq!(m2::load(&p, &data, &lod3).unwrap().lod, 3);
    let e = m2::load(
        &p,
        &data,
        &LoadOptions {
            lod: 4,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("4 views"), "{e}");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn faces_wind_counter_clockwise_after_axis_conversion() {
    let p = sample("STORMWINDCRATE01.M2");
    let m = load(&p, &LoadOptions::default());
    let posed = m.pose(&PoseRequest::default());
    let (mut agree, mut disagree) = (0, 0);
    for f in &posed.faces {
        let v = |k: usize| posed.vertices[f.vertices[k] as usize];
        let (a, b, c) = (v(0).position, v(1).position, v(2).position);
        let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let n = psxrender::math::cross(e1, e2);
        let sum: [f32; 3] =
            std::array::from_fn(|i| v(0).normal[i] + v(1).normal[i] + v(2).normal[i]);
        if psxrender::math::dot3(n, sum) > 0.0 {
            agree += 1;
        } else {
            disagree += 1;
        }
    }
    assert!(
        agree > 10 * disagree,
        "CCW agrees with normals on {agree}, not on {disagree}"
    );
    // Up is +Y: the crate stands on the ground, so its lowest point is near y = 0.
    let min_y = posed
        .vertices
        .iter()
        .map(|v| v.position[1])
        .fold(f32::MAX, f32::min);
    let max_y = posed
        .vertices
        .iter()
        .map(|v| v.position[1])
        .fold(f32::MIN, f32::max);
    assert!(
        min_y.abs() < 0.05 && max_y > 0.5,
        "y range {min_y}..{max_y}"
    );
}

fn rabbit_opts() -> (PathBuf, LoadOptions) {
    let p = sample("Rabbit2.m2");
    let skin = sample("rabbitskin2_default.blp");
    (
        p,
        LoadOptions {
            replaceable_textures: vec![(11, skin)],
            ..Default::default()
        },
    )
}

fn bounds(posed: &psxrender::scene::PosedMesh) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::MAX; 3];
    let mut hi = [f32::MIN; 3];
    for v in &posed.vertices {
        for i in 0..3 {
            lo[i] = lo[i].min(v.position[i]);
            hi[i] = hi[i].max(v.position[i]);
        }
    }
    (lo, hi)
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn rabbit_sample_facts() {
    let (p, opts) = rabbit_opts();
    let m = load(&p, &opts);
    assert_eq!(m.version, 256);
    assert_eq!(
        (m.bones.len(), m.vertices.len(), m.sequences.len()),
        (45, 831, 18)
    );
    assert_eq!(m.global_sequences, vec![0]);
    let durations: Vec<(u16, u16, u32)> = m
        .sequences
        .iter()
        .map(|s| (s.id, s.variation, s.duration_ms()))
        .collect();
    assert_eq!(
        &durations[..7],
        &[
            (4, 0, 600),
            (5, 0, 1066),
            (0, 0, 667),
            (9, 0, 1000),
            (1, 0, 1300),
            (0, 1, 1667),
            (0, 2, 1834),
        ]
    );
    assert_eq!(durations[17], (16, 0, 867));
    assert_eq!(
        (m.sequences[0].start_ms, m.sequences[0].end_ms),
        (3333, 3933)
    );
    assert_eq!(m.views.len(), 1);
    assert_eq!(m.views[0].triangles.len(), 1124);
    assert_eq!(m.textures.len(), 2);
    assert_eq!((m.textures[0].kind, m.textures[0].name.as_str()), (11, ""));
    assert_eq!(m.textures[1].name, r"Creature\Rabbit2\ArmorReflect5.blp");
    assert!(m.textures.iter().all(|t| t.resolved.is_some()));
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    // Every vertex's weights sum to 255 and the skin is a 256x128-ish BLP that decoded.
    assert!(m
        .vertices
        .iter()
        .all(|v| v.weights.iter().map(|&w| u32::from(w)).sum::<u32>() == 255));
    let skin = &m.textures[0].texture.image;
    assert_eq!(skin.pixels.len() as u32, skin.width * skin.height);

    // Without --texture the skin is found beside the model (rabbitskin2_*.blp), the same
    // image, with a note saying so.
    let found = load(&p, &LoadOptions::default());
    assert!(found.warnings().is_empty(), "{:?}", found.warnings());
    assert_eq!(found.textures[0].texture.image, m.textures[0].texture.image);
    assert!(
        found.notes()[0].contains("rabbitskin2_default.blp"),
        "{:?}",
        found.notes()
    );
    assert!(found.info().contains("[skin search]"), "{}", found.info());

    // Nowhere near a skin: loud warning, checkerboard, MISSING in info.
    let data = std::fs::read(&p).unwrap();
    let bare = m2::load(&nowhere("Rabbit2.m2"), &data, &LoadOptions::default()).unwrap();
    assert_eq!(bare.warnings().len(), 2, "{:?}", bare.warnings());
    assert!(
        bare.warnings()[0].contains("--texture 11=")
            && bare.warnings()[0].contains("no rabbitskin2*.blp"),
        "{:?}",
        bare.warnings()
    );
    assert!(
        bare.info().contains("type 11 (creature skin 1) -> MISSING"),
        "{}",
        bare.info()
    );
    assert_eq!(bare.textures[0].texture.image.pixels[0], [255, 0, 255, 255]);

    // A file the user names with --texture that cannot be read is an error naming it, not a
    // checkerboard: they asked for that file.
    let missing = std::env::temp_dir().join("psxr-no-such-skin.blp");
    let opts = LoadOptions {
        replaceable_textures: vec![(11, missing.clone())],
        ..LoadOptions::default()
    };
    let e = m2::load(&p, &data, &opts).expect_err("a missing --texture file is an error");
    assert_eq!(e.file.as_deref(), Some(missing.as_path()), "{e}");
    assert!(matches!(e.kind, ErrorKind::Io(_)), "{e}");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn rabbit_animations_are_named_and_selectable() {
    let (p, opts) = rabbit_opts();
    let m = load(&p, &opts);
    let anims = m.animations();
    assert_eq!(anims[0].name, "Walk");
    assert_eq!((anims[0].frames, anims[0].duration_ms), (18, 600));
    assert_eq!(anims[5].name, "Stand.1");
    assert_eq!(m.find_animation("walk"), Some(0));
    assert_eq!(m.find_animation("STAND"), Some(2));
    assert_eq!(m.find_animation("0.2"), Some(6), "id.variation");
    assert_eq!(m.find_animation("16.0"), Some(17));
    assert_eq!(m.find_animation("3"), Some(3), "index");
    assert_eq!(m.find_animation("99.0"), None);
    assert_eq!(m.find_animation("nonsense"), None);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn rabbit_poses_move_rigidly_and_wrap() {
    let (p, opts) = rabbit_opts();
    let m = load(&p, &opts);
    let rest = m.pose(&PoseRequest::default());
    for (v, src) in rest.vertices.iter().zip(&m.vertices) {
        assert!(
            close3(v.position, src.position, 1e-5),
            "rest pose is the bind pose"
        );
    }
    let walk = |frame| {
        m.pose(&PoseRequest {
            animation: Some(0),
            frame,
            camera: None,
        })
    };
    let (f0, f9) = (walk(0), walk(9));
    let moved = f0
        .vertices
        .iter()
        .zip(&f9.vertices)
        .filter(|(a, b)| !close3(a.position, b.position, 1e-4))
        .count();
    assert!(
        moved > 100,
        "walking moves the legs: {moved} vertices moved"
    );
    assert_eq!(
        walk(18),
        f0,
        "frame 18 of an 18-frame walk wraps to frame 0"
    );
    assert_eq!(walk(18 * 5 + 9), f9);
    // Vertices bound to one bone keep their distances under that bone's rigid motion.
    let one_bone: Vec<usize> = (0..m.vertices.len())
        .filter(|&i| m.vertices[i].weights[0] == 255)
        .collect();
    let mut checked = 0;
    for w in one_bone.windows(2) {
        let (a, b) = (w[0], w[1]);
        if m.vertices[a].bones[0] != m.vertices[b].bones[0] {
            continue;
        }
        let d = |pa: [f32; 3], pb: [f32; 3]| {
            ((pa[0] - pb[0]).powi(2) + (pa[1] - pb[1]).powi(2) + (pa[2] - pb[2]).powi(2)).sqrt()
        };
        let bind = d(m.vertices[a].position, m.vertices[b].position);
        let posed = d(f9.vertices[a].position, f9.vertices[b].position);
        assert!(
            (bind - posed).abs() < 1e-3 * (1.0 + bind),
            "{a}-{b}: {bind} vs {posed}"
        );
        checked += 1;
    }
    assert!(checked > 50, "{checked}");
    // Standing still keeps the rabbit upright and on the ground (axes converted consistently).
    let (bind_lo, bind_hi) = bounds(&rest);
    let (lo, hi) = bounds(&m.pose(&PoseRequest {
        animation: Some(2),
        frame: 0,
        camera: None,
    }));
    for i in 0..3 {
        let size = bind_hi[i] - bind_lo[i];
        assert!(
            (lo[i] - bind_lo[i]).abs() < 0.25 * size && (hi[i] - bind_hi[i]).abs() < 0.25 * size,
            "axis {i}: stand {lo:?}..{hi:?} vs bind {bind_lo:?}..{bind_hi:?}"
        );
    }
    // The rabbit faces +Z: it is longer along Z than it is wide along X.
    assert!(
        bind_hi[2] - bind_lo[2] > bind_hi[0] - bind_lo[0],
        "{bind_lo:?}..{bind_hi:?}"
    );
    let posed = walk(3);
    assert!(posed
        .faces
        .iter()
        .all(|f| matches!(f.texture, FaceTexture::Image { texture: 0, .. })));
    assert!(posed
        .vertices
        .iter()
        .all(|v| v.position.iter().all(|c| c.is_finite())));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn sample_blps_decode() {
    for (name, w, h, kind) in [
        ("6HU_BARREL_CRATE_TEXTURE.blp", 512, 512, blp::DxtKind::Dxt3),
        ("ArmorReflect5.blp", 64, 64, blp::DxtKind::Dxt1),
        ("rabbitskin2_default.blp", 256, 256, blp::DxtKind::Dxt5),
    ] {
        let p = sample(name);
        let data = std::fs::read(&p).unwrap();
        let header =
            blp::read_header(&psxrender::formats::reader::Reader::new(&data, "BLP2")).unwrap();
        assert_eq!(
            (header.encoding, header.dxt_kind()),
            (blp::Encoding::Dxt, kind),
            "{name}"
        );
        let img = blp::decode(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((img.width, img.height), (w, h), "{name}");
        let distinct: std::collections::HashSet<_> = img.pixels.iter().take(4096).collect();
        assert!(
            distinct.len() > 8,
            "{name}: a real picture, not a flat fill ({} colours)",
            distinct.len()
        );
        if std::env::var("PSXRENDER_DUMP_BLP").is_ok() {
            let rgb: Vec<u8> = img.pixels.iter().flat_map(|p| [p[0], p[1], p[2]]).collect();
            let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.png"));
            psxrender::output::save_png_rgb(&out, w, h, &rgb).unwrap();
        }
    }
}

const S: f32 = std::f32::consts::FRAC_1_SQRT_2;

fn rigid(position: [f32; 3], bone: u8) -> SynthVertex {
    SynthVertex {
        position,
        weights: [255, 0, 0, 0],
        bones: [bone, 0, 0, 0],
        normal: [0.0, 0.0, 1.0],
        uv: [position[0], position[1]],
    }
}

/// A TBC model: root bone turning 90° about WoW Z during Walk, a child sliding up on a global
/// sequence, a billboarded bone; three batches (alpha two-sided, additive untextured, hidden).
fn synth_tbc(version: u32) -> SynthModel {
    let root = SynthBone {
        parent: -1,
        rotation: SynthTrack {
            interpolation: 1,
            global_sequence: -1,
            ranges: vec![(0, 0), (1, 2)],
            times: vec![0, 2000, 3000],
            values: vec![[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, S, S]],
        },
        ..Default::default()
    };
    let slider = SynthBone {
        parent: 0,
        pivot: [1.0, 0.0, 0.0],
        translation: SynthTrack {
            interpolation: 1,
            global_sequence: 0,
            ranges: vec![(0, 1), (0, 1)],
            times: vec![0, 1000],
            values: vec![[0.0, 0.0, 0.0], [0.0, 0.0, 2.0]],
        },
        ..Default::default()
    };
    let billboard = SynthBone {
        parent: -1,
        flags: 0x8,
        pivot: [0.0, 0.0, 3.0],
        ..Default::default()
    };
    let mut halfway = rigid([0.5, 0.0, 0.0], 0);
    halfway.weights = [128, 127, 0, 0];
    halfway.bones = [0, 1, 0, 0];
    SynthModel {
        version,
        name: "SynthTbc".into(),
        global_sequences: vec![1000],
        sequences: vec![
            SynthSequence {
                id: 0,
                variation: 0,
                start_ms: 0,
                end_ms: 1000,
            },
            SynthSequence {
                id: 4,
                variation: 0,
                start_ms: 2000,
                end_ms: 3000,
            },
        ],
        bones: vec![root, slider, billboard],
        vertices: vec![
            rigid([1.0, 0.0, 0.0], 1),
            rigid([0.0, 1.0, 0.0], 0),
            rigid([0.0, 0.0, 0.0], 0),
            rigid([1.0, 0.0, 3.0], 2),
            rigid([0.0, 1.0, 3.0], 2),
            rigid([0.0, 0.0, 4.0], 2),
            halfway,
        ],
        batches: vec![
            SynthBatch {
                triangles: vec![[0, 1, 2]],
                texture: Some(0),
                render_flags: (0x4, 2),
                ..Default::default()
            },
            SynthBatch {
                triangles: vec![[3, 4, 5]],
                texture: None,
                render_flags: (0, 4),
                ..Default::default()
            },
            SynthBatch {
                triangles: vec![[0, 2, 6]],
                texture: Some(1),
                render_flags: (0, 0),
                transparency: SynthTrack {
                    times: vec![0],
                    values: vec![0],
                    ..Default::default()
                },
                color: None,
                texture_anim: None,
            },
        ],
        textures: vec![(0, r"Textures\Synth\PAL.BLP".into()), (11, String::new())],
        ..Default::default()
    }
}

/// Writes the synthetic model and its palettized BLP2 into a fresh directory.
fn write_synth(dir_name: &str, version: u32) -> (PathBuf, LoadOptions, Vec<u8>) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir_name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("textures/synth")).unwrap();
    let indices: Vec<u8> = (0..16).map(|i| (i % 4) as u8).collect();
    let alpha: Vec<u8> = (0..16).map(|i| if i < 8 { 255 } else { 0 }).collect();
    let pal = blp::write_palettized(
        4,
        4,
        &[[255, 0, 0], [0, 255, 0], [0, 0, 255], [9, 9, 9]],
        &indices,
        &alpha,
        1,
    );
    std::fs::write(dir.join("textures/synth/pal.blp"), &pal).unwrap();
    let skin = blp::write_palettized(2, 2, &[[1, 2, 3]], &[0; 4], &[255; 4], 0);
    std::fs::write(dir.join("skin.blp"), &skin).unwrap();
    let model = dir.join("synth.m2");
    let data = synth_tbc(version).write();
    std::fs::write(&model, &data).unwrap();
    let opts = LoadOptions {
        replaceable_textures: vec![(11, dir.join("skin.blp"))],
        ..Default::default()
    };
    (model, opts, data)
}

fn vertex_at(
    m: &M2Model,
    anim: Option<usize>,
    frame: u32,
    camera: Option<[[f32; 3]; 3]>,
    v: usize,
) -> [f32; 3] {
    m.pose(&PoseRequest {
        animation: anim,
        frame,
        camera,
    })
    .vertices[v]
        .position
}

#[test]
fn synthetic_tbc_model_loads_and_animates() {
    let (path, opts, data) = write_synth("m2-synth-263", 263);
    // 112-byte bones and 48-byte submeshes: 3 bones, 3 submeshes.
    assert_eq!(u32::from_le_bytes(data[0x34..0x38].try_into().unwrap()), 3);
    let m = load(&path, &opts);
    assert_eq!(m.version, 263);
    assert!(
        m.info().contains("version 263 (The Burning Crusade)"),
        "{}",
        m.info()
    );
    assert_eq!(
        (m.bones.len(), m.vertices.len(), m.sequences.len()),
        (3, 7, 2)
    );
    assert_eq!(m.views[0].submeshes.len(), 3);
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    assert!(m.textures.iter().all(|t| t.resolved.is_some()));
    let img = &m.textures[0].texture.image;
    assert_eq!((img.width, img.height), (4, 4));
    assert_eq!(img.pixels[1], [0, 255, 0, 255]);
    assert_eq!(img.pixels[15], [9, 9, 9, 0]);
    assert_eq!(m.textures[1].texture.image.pixels[0], [1, 2, 3, 255]);

    // Walk = index 1, 2000-3000 ms, 30 frames. Frame 0: no turn.
    let eps = 2e-3;
    assert!(close3(
        vertex_at(&m, Some(1), 0, None, 1),
        [1.0, 0.0, 0.0],
        eps
    ));
    // Frame 15 = 500 ms: 45° about WoW Z = about scene Y; WoW (0,1,0) -> (-s,s,0) -> scene (s,0,-s).
    let p = vertex_at(&m, Some(1), 15, None, 1);
    assert!(close3(p, [S, 0.0, -S], eps), "{p:?}");
    assert_eq!(
        vertex_at(&m, Some(1), 45, None, 1),
        p,
        "frame 45 wraps to 15"
    );
    // The child slides on global sequence 0 (1000 ms): 500 ms = +1 WoW Z, under the parent turn.
    let p = vertex_at(&m, Some(1), 15, None, 0);
    assert!(close3(p, [S, 1.0, S], eps), "{p:?}");
    // 128/255 of the root and 127/255 of the child.
    let p = vertex_at(&m, Some(1), 15, None, 6);
    // Root part: scene (0,0,0.5) turned 45° about Y; child part: that plus 1 up.
    let root = [0.5 * S, 0.0, 0.5 * S];
    let child = [root[0], 1.0, root[2]];
    let want: [f32; 3] = std::array::from_fn(|i| (128.0 * root[i] + 127.0 * child[i]) / 255.0);
    assert!(close3(p, want, eps), "{p:?} vs {want:?}");
    // Billboard: camera on +X looking at the origin; the bone's front (WoW +X) turns to +X.
    let cam = [[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]];
    let p = vertex_at(&m, None, 0, Some(cam), 3);
    assert!(close3(p, [1.0, 3.0, 0.0], eps), "front vertex {p:?}");
    let p = vertex_at(&m, None, 0, Some(cam), 4);
    assert!(close3(p, [0.0, 3.0, -1.0], eps), "side vertex {p:?}");
    assert!(close3(
        vertex_at(&m, None, 0, Some(cam), 5),
        [0.0, 4.0, 0.0],
        eps
    ));
    // Default camera (looking down -Z): billboard geometry faces +Z as modelled.
    assert!(close3(
        vertex_at(&m, None, 0, None, 3),
        [0.0, 3.0, 1.0],
        eps
    ));

    // Batches: alpha + two-sided textured, additive untextured, the zero-opacity one hidden.
    let posed = m.pose(&PoseRequest {
        animation: Some(0),
        frame: 3,
        camera: None,
    });
    assert_eq!(posed.faces.len(), 2);
    assert_eq!(
        (posed.faces[0].blend, posed.faces[0].two_sided),
        (Blend::Alpha, true)
    );
    assert!(
        matches!(posed.faces[0].texture, FaceTexture::Image { texture: 0, uv } if uv[0] == [1.0, 0.0])
    );
    assert_eq!(
        (posed.faces[1].blend, &posed.faces[1].texture),
        (Blend::Additive, &FaceTexture::None)
    );
    assert_eq!(posed.faces[0].colors[0], [128, 128, 128]);
}

#[test]
fn texture_dirs_come_before_the_model_directory() {
    let (path, mut opts, _) = write_synth("m2-synth-dirs", 263);
    let dir = path.parent().unwrap().join("override");
    std::fs::create_dir_all(dir.join("TEXTURES/synth")).unwrap();
    let gray = |v: u8| blp::write_palettized(1, 1, &[[v, v, v]], &[0], &[255], 0);
    // The full path (any case) under a --texture-dir wins over the model's directory.
    let full = dir.join("TEXTURES/synth/Pal.Blp");
    std::fs::write(&full, gray(7)).unwrap();
    opts.texture_dirs.push(dir.clone());
    let m = load(&path, &opts);
    assert_eq!(m.textures[0].resolved.as_deref(), Some(full.as_path()));
    assert_eq!(m.textures[0].texture.image.pixels, vec![[7, 7, 7, 255]]);
    // With the full path nowhere, the bare file name is looked for.
    std::fs::remove_file(&full).unwrap();
    std::fs::remove_file(path.parent().unwrap().join("textures/synth/pal.blp")).unwrap();
    std::fs::write(dir.join("PAL.blp"), gray(9)).unwrap();
    let m = load(&path, &opts);
    assert_eq!(m.textures[0].texture.image.pixels, vec![[9, 9, 9, 255]]);
    std::fs::remove_file(dir.join("PAL.blp")).unwrap();
    // A texture that is nowhere: warning naming it, checkerboard, MISSING.
    let m = load(&path, &opts);
    assert!(
        m.warnings()
            .iter()
            .any(|w| w.contains(r"Textures\Synth\PAL.BLP")),
        "{:?}",
        m.warnings()
    );
    assert!(m.info().contains("-> MISSING"));
    assert_eq!(m.textures[0].texture.image.width, 8);
}

#[test]
fn colour_tracks_tint_and_hide_batches() {
    let mut synth = synth_tbc(263);
    let rgb = SynthTrack {
        ranges: vec![(0, 0), (1, 1)],
        times: vec![0, 2000],
        values: vec![[0.5, 1.0, 0.0], [1.0, 1.0, 1.0]],
        ..Default::default()
    };
    let alpha = SynthTrack {
        ranges: vec![(0, 0), (1, 1)],
        times: vec![0, 2000],
        values: vec![32767i16, 0],
        ..Default::default()
    };
    synth.batches[0].color = Some((rgb, alpha));
    let data = synth.write();
    let m = m2::load(&nowhere("colour.m2"), &data, &LoadOptions::default()).unwrap();
    assert_eq!(m.colors.len(), 1);
    assert_eq!(m.views[0].units[0].color, Some(0));
    // Stand: tinted (128 = neutral), still drawn.
    let stand = m.pose(&PoseRequest {
        animation: Some(0),
        frame: 2,
        camera: None,
    });
    assert_eq!(stand.faces.len(), 2);
    assert_eq!(stand.faces[0].colors[0], [64, 128, 0]);
    // Walk: colour opacity 0 hides the batch.
    let walk = m.pose(&PoseRequest {
        animation: Some(1),
        frame: 2,
        camera: None,
    });
    assert_eq!(walk.faces.len(), 1);
    assert_eq!(walk.faces[0].blend, Blend::Additive);
}

#[test]
fn vanilla_and_tbc_writers_pose_alike() {
    let (p263, opts263, _) = write_synth("m2-synth-a", 263);
    let (p256, opts256, data256) = write_synth("m2-synth-b", 256);
    let tbc = load(&p263, &opts263);
    let vanilla = load(&p256, &opts256);
    assert_eq!(u32::from_le_bytes(data256[4..8].try_into().unwrap()), 256);
    for frame in [0, 7, 15, 29] {
        for v in 0..7 {
            let (a, b) = (
                vertex_at(&tbc, Some(1), frame, None, v),
                vertex_at(&vanilla, Some(1), frame, None, v),
            );
            assert!(
                close3(a, b, 1e-3),
                "frame {frame} vertex {v}: {a:?} vs {b:?}"
            );
        }
    }
}

#[test]
fn newer_versions_are_refused_by_name() {
    let mut data = synth_tbc(263).write();
    data[4..8].copy_from_slice(&264u32.to_le_bytes());
    let e = m2::load(Path::new("wotlk.m2"), &data, &LoadOptions::default()).unwrap_err();
    assert_eq!(e.offset, 4);
    assert!(
        matches!(e.kind, ErrorKind::UnsupportedVersion { version: 264, .. }),
        "{e}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("264") && msg.contains("wotlk.m2") && msg.contains("256-263"),
        "{msg}"
    );
}

/// A path whose directory does not exist, so no texture is found and no BLP decoded.
fn nowhere(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("m2-no-such-dir")
        .join(name)
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn truncation_at_every_offset_of_the_crate_is_a_clean_error() {
    let p = sample("STORMWINDCRATE01.M2");
    let data = std::fs::read(&p).unwrap();
    let path = nowhere("crate.m2");
    for len in 0..data.len() {
        match m2::load(&path, &data[..len], &LoadOptions::default()) {
            Ok(_) => panic!("loaded when cut to 0x{len:x} of 0x{:x} bytes", data.len()),
            Err(e) => assert!(
                e.offset <= data.len() as u64 && e.file.is_some(),
                "at {len}: {e}"
            ),
        }
    }
    // Every header array is bounds-checked, read or not: any cut is refused.
}

/// xorshift64*: a fixed, seedable byte-flip source.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn random_byte_flips_never_panic() {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for name in [
        "STORMWINDCRATE01.M2",
        "Rabbit2.m2",
        "6HU_BARREL_CRATE_TEXTURE.blp",
        "ArmorReflect5.blp",
        "rabbitskin2_default.blp",
    ] {
        let p = sample(name);
        files.push((name.into(), std::fs::read(&p).unwrap()));
    }
    files.push(("synth263.m2".into(), synth_tbc(263).write()));
    files.push((
        "pal.blp".into(),
        blp::write_palettized(4, 4, &[[1, 2, 3]], &[0; 16], &[7; 16], 4),
    ));
    let mut rng = Rng(0x6d32_5f66_757a_7a21);
    let path = nowhere("flipped");
    let (mut ok, mut err) = (0, 0);
    for (name, data) in &files {
        let rounds = if data.len() > 100_000 { 60 } else { 300 };
        for round in 0..rounds {
            let mut d = data.clone();
            let flips = 1 + rng.next() % 8;
            // Half the rounds aim at the header, where counts and offsets live.
            let span = if round % 2 == 0 {
                d.len().min(0x200)
            } else {
                d.len()
            } as u64;
            for _ in 0..flips {
                let at = (rng.next() % span) as usize;
                d[at] ^= 1 << (rng.next() % 8);
            }
            let result = if name.ends_with(".blp") {
                blp::decode(&d).map(|_| ())
            } else {
                m2::load(&path, &d, &LoadOptions::default()).map(|m| {
                    let _ = m.pose(&PoseRequest {
                        animation: Some(0),
                        frame: 7,
                        camera: None,
                    });
                    let _ = m.info();
                })
            };
            match result {
                Ok(()) => ok += 1,
                Err(e) => {
                    assert!(e.offset < d.len() as u64 + 16, "{name} round {round}: {e}");
                    err += 1;
                }
            }
        }
    }
    eprintln!("byte flips: {ok} loaded, {err} refused");
    assert!(err > 100 && ok > 100, "{ok} ok, {err} errors");
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    let good = synth_tbc(263).write();
    for (at, what) in [
        (0x44usize, "vertices"),
        (0x34, "bones"),
        (0x1C, "sequences"),
        (0x4C, "views"),
    ] {
        for count in [u32::MAX, 1 << 19] {
            let mut d = good.clone();
            d[at..at + 4].copy_from_slice(&count.to_le_bytes());
            let e = m2::load(&nowhere("huge.m2"), &d, &LoadOptions::default()).unwrap_err();
            assert_eq!(e.offset, at as u64, "{what} {count}: {e}");
            assert!(
                matches!(
                    e.kind,
                    ErrorKind::CountTooLarge { .. } | ErrorKind::OutOfBounds { .. }
                ),
                "{what} {count}: {e}"
            );
        }
    }
    // A BLP claiming 8192x8192 pixels in a small file fails on the mip extent, not in malloc.
    let mut b = blp::write_palettized(2, 2, &[[1, 2, 3]], &[0; 4], &[255; 4], 8);
    b[12..20].copy_from_slice(&[0, 0x20, 0, 0, 0, 0x20, 0, 0]);
    let e = blp::decode(&b).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::OutOfBounds { .. }), "{e}");
}
