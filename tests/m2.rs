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

fn sample(name: &str) -> Option<PathBuf> {
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
fn crate_sample_facts() {
    let Some(p) = sample("STORMWINDCRATE01.M2") else {
        return;
    };
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
fn faces_wind_counter_clockwise_after_axis_conversion() {
    let Some(p) = sample("STORMWINDCRATE01.M2") else {
        return;
    };
    let m = load(&p, &LoadOptions::default());
    let posed = m.pose(&PoseRequest::default());
    let (mut agree, mut disagree) = (0, 0);
    for f in &posed.faces {
        let v = |k: usize| posed.vertices[f.vertices[k] as usize];
        let (a, b, c) = (v(0).position, v(1).position, v(2).position);
        let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let n = m2::math::cross(e1, e2);
        let sum: [f32; 3] =
            std::array::from_fn(|i| v(0).normal[i] + v(1).normal[i] + v(2).normal[i]);
        if m2::math::dot3(n, sum) > 0.0 {
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

fn rabbit_opts() -> Option<(PathBuf, LoadOptions)> {
    let p = sample("Rabbit2.m2")?;
    let skin = sample("rabbitskin2_default.blp")?;
    Some((
        p,
        LoadOptions {
            replaceable_textures: vec![(11, skin)],
            ..Default::default()
        },
    ))
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
fn rabbit_sample_facts() {
    let Some((p, opts)) = rabbit_opts() else {
        return;
    };
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

    // Without the skin: loud warning, checkerboard, MISSING in info.
    let bare = load(&p, &LoadOptions::default());
    assert_eq!(bare.warnings().len(), 1);
    assert!(
        bare.warnings()[0].contains("--texture 11="),
        "{:?}",
        bare.warnings()
    );
    assert!(
        bare.info().contains("type 11 (creature skin 1) -> MISSING"),
        "{}",
        bare.info()
    );
    assert_eq!(bare.textures[0].texture.image.pixels[0], [255, 0, 255, 255]);
}

#[test]
fn rabbit_animations_are_named_and_selectable() {
    let Some((p, opts)) = rabbit_opts() else {
        return;
    };
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
fn rabbit_poses_move_rigidly_and_wrap() {
    let Some((p, opts)) = rabbit_opts() else {
        return;
    };
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
fn sample_blps_decode() {
    for (name, w, h) in [
        ("6HU_BARREL_CRATE_TEXTURE.blp", 512, 512),
        ("ArmorReflect5.blp", 64, 64),
        ("rabbitskin2_default.blp", 256, 256),
    ] {
        let Some(p) = sample(name) else { return };
        let data = std::fs::read(&p).unwrap();
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
