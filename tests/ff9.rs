//! FF9 loader: the demo character (built by our writer) round-trips, poses, describes itself,
//! and bad input fails cleanly.

use std::path::Path;

use psxrender::formats::ff9::{
    self, cluster, demo_character, demo_parts, Animation, MaterialSet, Mesh, PolyKind,
};
use psxrender::formats::tim::{Tim, TimDepth};
use psxrender::formats::{identify, Kind, LoadOptions};
use psxrender::scene::{FaceTexture, Model, PoseRequest, Shading};

fn load(data: &[u8]) -> Result<ff9::FF9Model, psxrender::formats::LoadError> {
    ff9::load(Path::new("demo.ff9"), data, &LoadOptions::default())
}

#[test]
fn demo_round_trips_write_read_equal() {
    let (mesh, anim, tims, materials) = demo_parts();
    let data = demo_character();
    assert_eq!(identify(&data), Ok(Kind::Ff9));
    let m = load(&data).expect("demo loads");
    assert_eq!(m.mesh(), &mesh, "model differs after write → read");
    assert_eq!(m.animation_data().len(), 1);
    assert_eq!(m.animation_data()[0].1, anim, "animation differs");
    let got: Vec<&Tim> = m.tims().iter().map(|(_, t)| t).collect();
    assert_eq!(got, tims.iter().collect::<Vec<_>>(), "TIMs differ");
    assert_eq!(m.materials(), materials.models.first(), "materials differ");
    // Each part alone, too.
    assert_eq!(Mesh::parse(&mesh.write().unwrap()).unwrap(), mesh);
    assert_eq!(
        Animation::parse(&anim.write().unwrap(), mesh.bones.len()).unwrap(),
        anim
    );
    assert_eq!(
        MaterialSet::parse(&materials.write().unwrap()).unwrap(),
        materials
    );
    for t in &tims {
        assert_eq!(&Tim::parse(&t.write()).unwrap(), t);
    }
}

#[test]
fn demo_meets_the_brief() {
    let (mesh, anim, tims, _) = demo_parts();
    assert!(mesh.bones.len() >= 4, "{} bones", mesh.bones.len());
    for (kind, quad) in PolyKind::ORDER {
        let n: usize = mesh.groups.iter().map(|g| g.count(kind, quad)).sum();
        assert!(n > 0, "no {} polygons", kind.label(quad));
    }
    assert_eq!(anim.frames(), 10);
    let depths: Vec<TimDepth> = tims.iter().map(|t| t.depth).collect();
    assert!(depths.contains(&TimDepth::Bpp4) && depths.contains(&TimDepth::Bpp8));
    // Every vertex and UV is used (the reader derives counts from the largest index).
    for g in &mesh.groups {
        let maxv = g
            .polygons
            .iter()
            .flat_map(|p| p.vertices[..p.corners as usize].to_vec());
        assert_eq!(maxv.max().map(|v| v as usize + 1), Some(g.vertices.len()));
    }
}

#[test]
fn demo_cluster_layout() {
    let data = demo_character();
    let c = cluster::parse(&data).unwrap();
    let kinds: Vec<(u8, u16)> = c.objects.iter().map(|o| (o.kind, o.id)).collect();
    assert_eq!(kinds, [(2, 1), (3, 10), (4, 20), (4, 21), (0x12, 0)]);
    assert!(c.skipped.is_empty());
}

#[test]
fn pose_emits_vram_faces_and_uploads() {
    let m = load(&demo_character()).unwrap();
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    let mesh = m.pose(&PoseRequest::default());
    assert_eq!(mesh.shading, Shading::VertexColors);
    let total: usize = m.mesh().groups.iter().map(|g| g.polygons.len()).sum();
    assert_eq!(mesh.faces.len(), total);
    assert!(mesh
        .faces
        .iter()
        .all(|f| matches!(f.texture, FaceTexture::Vram { .. })));
    // Both TIMs' CLUT and image rectangles, at their own coordinates.
    let rects: Vec<(u16, u16, u16, u16)> = mesh
        .vram_images
        .iter()
        .map(|v| (v.x, v.y, v.width, v.height))
        .collect();
    assert_eq!(
        rects,
        [
            (640, 256, 16, 1),
            (640, 0, 32, 64),
            (640, 257, 256, 1),
            (704, 0, 32, 64)
        ]
    );
    // The pom-pom is semi-transparent additive: TPage mode bits 5-6 = 1.
    let semi: Vec<_> = mesh
        .faces
        .iter()
        .filter(|f| f.blend != psxrender::scene::Blend::Opaque)
        .collect();
    assert_eq!(semi.len(), 8);
    for f in semi {
        let FaceTexture::Vram { tpage, .. } = f.texture else {
            unreachable!()
        };
        assert_eq!((tpage >> 5) & 3, 1, "tpage {tpage:04x}");
    }
}

/// Scene conventions: +Y up, front +Z, counter-clockwise front faces. At frame 5 (mid-stride)
/// the model stands on y≈0 with its head up, the drawn face looks toward +Z, and every face's
/// normal points away from the interior of its (convex) part.
#[test]
fn frame5_is_upright_and_faces_wind_outward() {
    let m = load(&demo_character()).unwrap();
    let mesh = m.pose(&PoseRequest {
        animation: Some(0),
        frame: 5,
        camera: None,
    });
    let ys: Vec<f32> = mesh.vertices.iter().map(|v| v.position[1]).collect();
    let (ymin, ymax) = ys
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), &y| (a.min(y), b.max(y)));
    assert!((-20.0..60.0).contains(&ymin), "feet at y={ymin}");
    assert!((880.0..970.0).contains(&ymax), "pom-pom top at y={ymax}");
    let normal = |f: &psxrender::scene::Face| {
        let p: Vec<[f32; 3]> = (0..3)
            .map(|k| mesh.vertices[f.vertices[k] as usize].position)
            .collect();
        let e1 = [p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]];
        let e2 = [p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]];
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let c: [f32; 3] = std::array::from_fn(|k| (p[0][k] + p[1][k] + p[2][k]) / 3.0);
        (n, c)
    };
    let mut inward = Vec::new();
    for (i, f) in mesh.faces.iter().enumerate() {
        let (n, c) = normal(f);
        let centre = part_centre(&mesh, f);
        if (0..3).map(|k| n[k] * (c[k] - centre[k])).sum::<f32>() <= 0.0 {
            inward.push(i);
        }
    }
    assert!(inward.is_empty(), "faces winding inward: {inward:?}");
    // The drawn face (material 0, UVs in the face half of the TIM) looks toward +Z.
    let face = mesh
        .faces
        .iter()
        .find(|f| {
            matches!(f.texture, FaceTexture::Vram { uv, tpage, .. }
                if tpage == 0x000A && uv.iter().all(|t| t[0] < 64))
        })
        .expect("the face quad");
    let (n, _) = normal(face);
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    assert!(n[2] / len > 0.9, "face normal {n:?}");
}

/// The centre of the connected set of vertices sharing bones with `f` (the box it belongs to).
fn part_centre(mesh: &psxrender::scene::PosedMesh, f: &psxrender::scene::Face) -> [f32; 3] {
    // Collect every face sharing a vertex with f, transitively (one box or pyramid).
    let mut verts: std::collections::BTreeSet<u32> =
        f.vertices[..f.corners as usize].iter().copied().collect();
    loop {
        let before = verts.len();
        for g in &mesh.faces {
            let vs = &g.vertices[..g.corners as usize];
            if vs.iter().any(|v| verts.contains(v)) {
                verts.extend(vs.iter().copied());
            }
        }
        if verts.len() == before {
            break;
        }
    }
    let n = verts.len() as f32;
    std::array::from_fn(|k| {
        verts
            .iter()
            .map(|&v| mesh.vertices[v as usize].position[k])
            .sum::<f32>()
            / n
    })
}

#[test]
fn animation_moves_the_arms_and_wraps() {
    let m = load(&demo_character()).unwrap();
    let pose = |frame| {
        m.pose(&PoseRequest {
            animation: Some(0),
            frame,
            camera: None,
        })
    };
    let f0 = pose(0);
    let f3 = pose(3);
    let moved = f0
        .vertices
        .iter()
        .zip(&f3.vertices)
        .filter(|(a, b)| {
            (0..3)
                .map(|k| (a.position[k] - b.position[k]).abs())
                .fold(0.0, f32::max)
                > 5.0
        })
        .count();
    assert!(moved > f0.vertices.len() / 2, "only {moved} vertices moved");
    assert_eq!(pose(13), f3, "frame 13 wraps to 3");
    assert_eq!(m.animations()[0].frames, 10);
    assert_eq!(m.animations()[0].name, "anim 10");
}

#[test]
fn info_lists_everything() {
    let m = load(&demo_character()).unwrap();
    let info = m.info();
    println!("{info}");
    for needle in [
        "bones: 12",
        "groups: 3",
        "A quad",
        "C tri",
        "TIMs: 2",
        "4bpp 128x64 px, image VRAM (640,0) 32x64 halfwords, CLUT VRAM (640,256) 16x1",
        "8bpp 64x64 px, image VRAM (704,0) 32x64 halfwords, CLUT VRAM (640,257) 256x1",
        "materials (0x12, model id 1, default animation 10): 2",
        "animations: 1",
        "anim 10, 10 frames (default)",
    ] {
        assert!(info.contains(needle), "info lacks {needle:?}:\n{info}");
    }
}

#[test]
fn bare_model_without_animation_warns_and_uses_the_fallback_pose() {
    let (mesh, ..) = demo_parts();
    let data = mesh.write().unwrap();
    let m = load(&data).unwrap();
    let w = m.warnings();
    assert!(w.iter().any(|w| w.contains("fallback pose")), "{w:?}");
    assert!(w.iter().any(|w| w.contains("flat colour")), "{w:?}");
    let posed = m.pose(&PoseRequest::default());
    assert!(posed.faces.iter().all(|f| f.texture == FaceTexture::None));
    // Fallback: the head sits 220 up the chain (along PS1 +Z, scene -Z) from the origin.
    assert!(posed
        .vertices
        .iter()
        .all(|v| v.position.iter().all(|c| c.is_finite())));
}

#[test]
fn bare_model_with_side_files() {
    let dir = std::env::temp_dir().join(format!("psxrender-ff9-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mesh, anim, tims, materials) = demo_parts();
    let model = dir.join("model.02");
    std::fs::write(&model, mesh.write().unwrap()).unwrap();
    let anim_p = dir.join("anim.03");
    std::fs::write(&anim_p, anim.write().unwrap()).unwrap();
    let mat_p = dir.join("mat.12");
    std::fs::write(&mat_p, materials.write().unwrap()).unwrap();
    let mut tim_ps = Vec::new();
    for (i, t) in tims.iter().enumerate() {
        let p = dir.join(format!("t{i}.tim"));
        std::fs::write(&p, t.write()).unwrap();
        tim_ps.push(p);
    }
    let opts = LoadOptions {
        ff9_anim: Some(anim_p),
        ff9_tims: tim_ps,
        ff9_materials: Some(mat_p),
        ..LoadOptions::default()
    };
    let m = psxrender::formats::load(&model, &opts).unwrap();
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    let from_cluster = load(&demo_character()).unwrap();
    let req = PoseRequest {
        animation: Some(0),
        frame: 5,
        camera: None,
    };
    assert_eq!(m.pose(&req), from_cluster.pose(&req));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn missing_vram_gets_a_checkerboard_and_a_warning() {
    let (mesh, anim, tims, materials) = demo_parts();
    // Drop the 8bpp TIM: its materials now point at empty VRAM.
    let data = ff9::write_cluster(
        &[(1, mesh)],
        &[(10, anim)],
        &[(20, tims[0].clone())],
        Some(&materials),
    )
    .unwrap();
    let m = load(&data).unwrap();
    assert!(
        m.warnings().iter().any(|w| w.contains("checkerboard")),
        "{:?}",
        m.warnings()
    );
    let posed = m.pose(&PoseRequest::default());
    assert!(posed.vram_images.iter().any(|v| (v.x, v.y) == (1008, 496)));
}

#[test]
fn cluster_model_index_out_of_range_is_an_error() {
    let opts = LoadOptions {
        ff9_model: Some(3),
        ..LoadOptions::default()
    };
    let e = ff9::load(Path::new("x"), &demo_character(), &opts)
        .err()
        .expect("error");
    assert!(e.to_string().contains("holds 1 model"), "{e}");
}

/// Truncation at every offset: an error naming an offset inside the file, or Ok — never a
/// panic.
#[test]
fn truncation_at_every_offset_fails_cleanly() {
    let data = demo_character();
    let mut errors = 0;
    for len in 0..data.len() {
        match load(&data[..len]) {
            Err(e) => {
                assert!(
                    e.offset <= data.len() as u64,
                    "offset {} at len {len}",
                    e.offset
                );
                assert!(e.file.is_some());
                errors += 1;
            }
            Ok(m) => {
                let _ = m.pose(&PoseRequest::default());
            }
        }
    }
    println!("{errors} of {} truncations are errors", data.len());
    assert!(errors > data.len() / 2);
}

/// Seeded random byte flips: errors or models that pose without panicking.
#[test]
fn random_flips_fail_cleanly() {
    let data = demo_character();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ok, mut err) = (0, 0);
    for _ in 0..1500 {
        let mut d = data.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() % d.len() as u64) as usize;
            d[i] ^= 1 << (next() % 8);
        }
        match load(&d) {
            Ok(m) => {
                ok += 1;
                let _ = m.info();
                for a in 0..m.animations().len().max(1) {
                    let _ = m.pose(&PoseRequest {
                        animation: Some(a),
                        frame: 7,
                        camera: None,
                    });
                }
            }
            Err(e) => {
                err += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    println!("flips: {ok} loaded, {err} rejected");
}

/// A cluster whose 0x1B chunks point 255 times at the same nested cluster, four levels deep
/// (255⁴ visits if followed naively): refused quickly with a count error.
#[test]
fn nested_cluster_fan_out_is_capped() {
    fn nest(levels: u32) -> Vec<u8> {
        if levels == 0 {
            return vec![0xDB, 0, 0, 0];
        }
        let inner = nest(levels - 1);
        let mut d = vec![0xDB, 1, 0, 0, 4, 0, 0, 0x1B, 0x1B, 255, 0, 0];
        d.resize(12 + 512, 0);
        let ptrs = d.len();
        let target = ptrs + 256 * 4;
        for j in 0..255 {
            d.extend_from_slice(&((target - (ptrs + 4 * j)) as i32).to_le_bytes());
        }
        let end_field = d.len();
        d.extend_from_slice(&((target + inner.len() - end_field) as u32).to_le_bytes());
        d.extend_from_slice(&inner);
        d
    }
    let data = nest(4);
    let e = load(&data).err().expect("refused");
    assert!(
        matches!(e.kind, psxrender::formats::ErrorKind::CountTooLarge { .. }),
        "{e}"
    );
}

mod properties {
    use proptest::prelude::*;
    use psxrender::formats::ff9::Animation;
    use psxrender::formats::tim::{Tim, TimDepth};
    use psxrender::scene::VramImage;

    fn depth() -> impl Strategy<Value = TimDepth> {
        prop_oneof![
            Just(TimDepth::Bpp4),
            Just(TimDepth::Bpp8),
            Just(TimDepth::Bpp15),
            Just(TimDepth::Bpp24)
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn animations_round_trip(
            bones in 1usize..6,
            frames in 1usize..12,
            seed in any::<u64>(),
            constant in any::<bool>(),
        ) {
            let mut s = seed | 1;
            let mut next = move || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; s };
            let root = (0..frames).map(|_| {
                let v = next();
                if constant { [1, 2, 3] } else { [v as i16, (v >> 16) as i16, (v >> 32) as i16] }
            }).collect();
            let angles = (0..frames).map(|_| (0..bones).map(|_| {
                let v = next();
                [(v & 0xFFF) as u16, ((v >> 12) & 0xFFF) as u16, ((v >> 24) & 0xFFF) as u16]
            }).collect()).collect();
            let a = Animation { root, angles };
            let bytes = a.write().unwrap();
            prop_assert_eq!(Animation::parse(&bytes, bones).unwrap(), a);
        }

        #[test]
        fn tims_round_trip(
            d in depth(),
            w in 1u16..20,
            h in 1u16..20,
            x in 0u16..900,
            y in 0u16..400,
            clut in any::<bool>(),
            fill in any::<u16>(),
        ) {
            let t = Tim {
                depth: d,
                clut: clut.then(|| VramImage { x: 0, y: 480, width: 16, height: 2,
                    data: (0..32).map(|i| fill.wrapping_mul(i)).collect() }),
                image: VramImage { x, y, width: w, height: h,
                    data: (0..w * h).map(|i| fill.wrapping_add(i)).collect() },
            };
            let bytes = t.write();
            prop_assert_eq!(Tim::parse(&bytes).unwrap(), t.clone());
            let img = t.to_rgba(1);
            prop_assert_eq!(img.pixels.len() as u32, img.width * img.height);
        }
    }
}

/// A 0x1B chunk whose object is the demo cluster, beside an unknown chunk type: the nested
/// model loads exactly as the plain one, and the unknown type is reported, not fatal.
#[test]
fn nested_cluster_and_unknown_chunk() {
    let inner = demo_character();
    let data = cluster::write(&[(0x1B, 0, inner.clone()), (0x19, 5, vec![1, 2, 3, 4])]).unwrap();
    let c = cluster::parse(&data).unwrap();
    assert_eq!(c.objects.len(), 5);
    assert_eq!(c.skipped.len(), 1);
    let m = load(&data).unwrap();
    assert!(
        m.warnings().iter().any(|w| w.contains("type 0x19")),
        "{:?}",
        m.warnings()
    );
    let plain = load(&inner).unwrap();
    let req = PoseRequest {
        animation: None,
        frame: 5,
        camera: None,
    };
    assert_eq!(m.pose(&req), plain.pose(&req));
    assert_eq!(m.mesh(), plain.mesh());
}
