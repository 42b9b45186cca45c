//! FF9 loader: the demo character (built by our writer) round-trips, poses, describes itself,
//! and bad input fails cleanly.

use std::path::Path;

use psxrender::detect::{identify, Kind};
use psxrender::formats::ff9::cluster::ChunkLayout;
use psxrender::formats::ff9::{
    self, cluster, demo_character, demo_parts, Animation, MaterialSet, Mesh, ModelKind, PolyKind,
};
use psxrender::formats::tim::{Tim, TimDepth};
use psxrender::formats::LoadOptions;
use psxrender::render::{RenderOptions, Renderer};
use psxrender::scene::{FaceTexture, Model, PoseRequest, Shading, VramImage};

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

/// The demo is written in the game's layout: every entry, 0x12 included, points at a typed
/// chunk header (type, object count, ids, pointers, end), and the 0x12 object after it starts
/// 0xDC.
#[test]
fn demo_cluster_layout() {
    let data = demo_character();
    let c = cluster::parse(&data).unwrap();
    let kinds: Vec<(u8, u16)> = c.objects.iter().map(|o| (o.kind, o.id)).collect();
    assert_eq!(
        kinds,
        [(2, 1), (3, 10), (4, 20), (4, 21), (4, 22), (0x12, 0)]
    );
    assert!(c.skipped.is_empty());
    assert!(c.notes.is_empty(), "{:?}", c.notes);
    let mat = c.chunks.iter().find(|h| h.kind == 0x12).unwrap();
    assert_eq!(mat.layout, ChunkLayout::Typed);
    assert_eq!(mat.ids, [0]);
    let at = mat.offset as usize;
    // Type 0x12, one object, 0, id 0 (padded to 4 bytes), its pointer (relative to itself).
    assert_eq!(data[at..at + 8], [0x12, 1, 0, 0, 0, 0, 0, 0]);
    let ptr = i32::from_le_bytes(data[at + 8..at + 12].try_into().unwrap());
    assert_eq!(at as i64 + 8 + i64::from(ptr), mat.objects[0] as i64);
    assert_eq!(data[mat.objects[0] as usize], 0xDC);
}

/// A cluster in psxrender's old layout (the 0x12 entry pointing straight at the 0xDC object)
/// still loads its materials, with a warning naming the old layout.
#[test]
fn old_bare_materials_entry_loads_with_a_warning() {
    let (mesh, anim, tims, materials) = demo_parts();
    let mut objects = vec![
        (2, 1, mesh.write().unwrap()),
        (3, 10, anim.write().unwrap()),
    ];
    objects.extend(tims.iter().zip(20..).map(|(t, id)| (4, id, t.write())));
    objects.push((0x12, 0, materials.write().unwrap()));
    let old = cluster::write_with(&objects, cluster::MaterialsEntry::Bare).unwrap();
    let c = cluster::parse(&old).unwrap();
    let mat = c.chunks.iter().find(|h| h.kind == 0x12).unwrap();
    assert_eq!(mat.layout, ChunkLayout::BareMaterials);
    assert_eq!(old[mat.offset as usize], 0xDC);
    let m = load(&old).unwrap();
    assert_eq!(m.materials(), materials.models.first());
    let w = m.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("old layout"), "{w:?}");
    assert!(m.info().contains("no chunk header (old bare layout)"));
    let game = load(&demo_character()).unwrap();
    let req = PoseRequest {
        animation: Some(0),
        frame: 5,
        camera: None,
    };
    assert_eq!(m.pose(&req), game.pose(&req));
    // The same bytes in the game's layout load silently (write == demo_character).
    assert_eq!(cluster::write(&objects).unwrap(), demo_character());
}

/// A game-layout 0x12 entry's objects are read (its materials load), and an entry whose first
/// byte is neither 0x12 nor 0xDC is an error at that byte.
#[test]
fn a_0x12_entry_pointing_at_anything_else_is_an_error() {
    let mut data = demo_character();
    let c = cluster::parse(&data).unwrap();
    let at = c.chunks.iter().find(|h| h.kind == 0x12).unwrap().offset;
    data[at as usize] = 0x13;
    let e = load(&data).err().expect("refused");
    assert_eq!(e.offset, at, "{e}");
    assert!(e.to_string().contains("first byte 0x13"), "{e}");
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
    // The three TIMs' image rectangles (the third holds both palettes), at their own places.
    let rects: Vec<(u16, u16, u16, u16)> = mesh
        .vram_images
        .iter()
        .map(|v| (v.x, v.y, v.width, v.height))
        .collect();
    assert_eq!(
        rects,
        [(640, 0, 32, 64), (704, 0, 32, 64), (640, 256, 256, 2)]
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
        "kind: field (guessed from the 0x12 record",
        "cluster chunks: 4",
        "chunk 0x12 at 0x359c: 1 object(s), ids [0], at [0x35ac], end 0x35dc",
        "bones: 12",
        "groups: 3",
        "A quad",
        "C tri",
        "TIMs: 3",
        "4bpp 128x64 px, image VRAM (640,0) 32x64 halfwords, no CLUT block",
        "8bpp 64x64 px, image VRAM (704,0) 32x64 halfwords, no CLUT block",
        "TIM 2 (id 22): 16bpp 256x2 px, image VRAM (640,256) 256x2 halfwords, no CLUT block",
        "materials (0x12, model id 1, default animation 10): 2",
        "material 0: TPage 0x000a (page 640,0 depth 4), CLUT 0x4028 (640,256), window [0, 0] \
         added to UVs\n    texels from TIM 0 image block, palette from TIM 2 image block\n",
        "material 1: TPage 0x008b (page 704,0 depth 8), CLUT 0x4068 (640,257), window [0, 0] \
         added to UVs\n    texels from TIM 1 image block, palette from TIM 2 image block\n",
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
    let m = psxrender::detect::load(&model, &opts).unwrap();
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

/// Texels or a palette that no TIM uploads draw a checkerboard, with a warning naming which.
#[test]
fn missing_vram_gets_a_checkerboard_and_a_warning() {
    let (mesh, anim, tims, materials) = demo_parts();
    for (keep, says) in [
        ([0, 2], "samples texels at page (704,0) that no TIM uploads"),
        (
            [0, 1],
            "reads a palette at VRAM (640,256) that no TIM uploads",
        ),
    ] {
        let kept: Vec<Tim> = keep.iter().map(|&i| tims[i].clone()).collect();
        let data = cluster_of(&mesh, &anim, &kept, Some(&materials));
        let m = load(&data).unwrap();
        let w = m.warnings();
        assert!(
            w.iter()
                .any(|w| w.contains(says) && w.contains("checkerboard")),
            "{w:?}"
        );
        let posed = m.pose(&PoseRequest::default());
        assert!(posed.vram_images.iter().any(|v| (v.x, v.y) == (1008, 496)));
    }
}

/// The demo's TIMs with each palette as the image TIM's own CLUT block (the layout psxrender
/// used to require) instead of rows of the 16bpp palette image: identical VRAM contents.
fn with_clut_blocks(tims: &[Tim]) -> Vec<Tim> {
    let pal = &tims[2].image;
    assert_eq!((pal.x, pal.y, pal.width, pal.height), (640, 256, 256, 2));
    let row = |y: u16, width: u16, from: usize| VramImage {
        x: 640,
        y,
        width,
        height: 1,
        data: pal.data[from..from + usize::from(width)].to_vec(),
    };
    let mut fur = tims[0].clone();
    fur.clut = Some(row(256, 16, 0));
    let mut metal = tims[1].clone();
    metal.clut = Some(row(257, 256, 256));
    vec![fur, metal]
}

fn cluster_of(
    mesh: &Mesh,
    anim: &Animation,
    tims: &[Tim],
    materials: Option<&MaterialSet>,
) -> Vec<u8> {
    let tims: Vec<(u16, Tim)> = (20..).zip(tims.iter().cloned()).collect();
    ff9::write_cluster(
        &[(1, mesh.clone())],
        &[(10, anim.clone())],
        &tims,
        materials,
    )
    .unwrap()
}

fn load_as(data: &[u8], kind: Option<ModelKind>) -> ff9::FF9Model {
    let opts = LoadOptions {
        ff9_kind: kind,
        ..LoadOptions::default()
    };
    ff9::load(Path::new("kind.ff9"), data, &opts).unwrap()
}

/// Acceptance: palettes uploaded as 16bpp image TIMs (the game's way) and as CLUT blocks give
/// the same VRAM, the same GP0 stream and the same picture.
#[test]
fn palettes_as_image_tims_render_like_clut_blocks() {
    let (mesh, anim, tims, materials) = demo_parts();
    let blocks = cluster_of(&mesh, &anim, &with_clut_blocks(&tims), Some(&materials));
    let images = load(&demo_character()).unwrap();
    let blocks = load(&blocks).unwrap();
    assert!(images.warnings().is_empty(), "{:?}", images.warnings());
    assert!(blocks.warnings().is_empty(), "{:?}", blocks.warnings());
    let o = RenderOptions::default();
    let mut ra = Renderer::new(&images, &o).unwrap();
    let mut rb = Renderer::new(&blocks, &o).unwrap();
    assert!(ra.initial_vram() == rb.initial_vram(), "VRAM differs");
    for frame in [0, 5] {
        let req = PoseRequest {
            animation: Some(0),
            frame,
            camera: None,
        };
        let (a, b) = (ra.render(&req).unwrap(), rb.render(&req).unwrap());
        assert!(a.stats.drawn > 40, "frame {frame}: {:?}", a.stats);
        assert!(a.gp0 == b.gp0, "frame {frame}: GP0 differs");
        assert!(a.rgb == b.rgb, "frame {frame}: picture differs");
    }
}

/// During an animation frame the root bone's own length is not applied: root = T(root
/// position) · R0. A root length of 500 changes no animated pose, only the fallback one.
#[test]
fn the_root_length_is_not_applied_in_animation_frames() {
    let (mut mesh, anim, tims, materials) = demo_parts();
    let plain = load(&demo_character()).unwrap();
    mesh.bones[0].length = 500;
    let long = load(&cluster_of(&mesh, &anim, &tims, Some(&materials))).unwrap();
    for frame in 0..10 {
        let req = PoseRequest {
            animation: Some(0),
            frame,
            camera: None,
        };
        assert_eq!(long.pose(&req), plain.pose(&req), "frame {frame}");
    }
    // Without an animation every bone, the root too, sits its length along its parent's +Z
    // (PS1), i.e. scene -Z.
    let bare = |m: &Mesh| {
        load(&m.write().unwrap())
            .unwrap()
            .pose(&PoseRequest::default())
    };
    let (short, long) = (bare(&demo_parts().0), bare(&mesh));
    for (a, b) in short.vertices.iter().zip(&long.vertices) {
        let d: Vec<f32> = (0..3).map(|k| b.position[k] - a.position[k]).collect();
        assert!(
            d[0].abs() < 1e-3 && d[1].abs() < 1e-3 && (d[2] + 500.0).abs() < 1e-2,
            "{d:?}"
        );
    }
}

fn vram_uvs(m: &ff9::FF9Model) -> Vec<(u16, [[u8; 2]; 4])> {
    m.pose(&PoseRequest::default())
        .faces
        .iter()
        .map(|f| match f.texture {
            FaceTexture::Vram { tpage, uv, .. } => (tpage & 0x1F, uv),
            ref t => panic!("not a VRAM face: {t:?}"),
        })
        .collect()
}

/// Field and world models add their material's 0x12 texture-window offset to every UV (a
/// byte, wrapping); battle models do not use the 0x12 record at all.
#[test]
fn field_and_world_models_add_the_texture_window_offset() {
    let (mesh, anim, tims, mut materials) = demo_parts();
    let base = vram_uvs(&load(&demo_character()).unwrap());
    let windows = [[3i16, -2], [250, 7]];
    for (m, w) in materials.models[0].materials.iter_mut().zip(windows) {
        m.window = w;
    }
    let data = cluster_of(&mesh, &anim, &tims, Some(&materials));
    let guessed = load(&data).unwrap();
    assert_eq!(guessed.kind(), ModelKind::Field);
    assert!(guessed.warnings().is_empty(), "{:?}", guessed.warnings());
    let shifted = vram_uvs(&guessed);
    assert_eq!(shifted, vram_uvs(&load_as(&data, Some(ModelKind::World))));
    let mut moved = 0;
    for ((page, a), (_, b)) in base.iter().zip(&shifted) {
        let [wu, wv] = windows[usize::from(*page == 11)];
        for k in 0..4 {
            assert_eq!(b[k][0], a[k][0].wrapping_add(wu as u8));
            assert_eq!(b[k][1], a[k][1].wrapping_add(wv as u8));
        }
        moved += 1;
    }
    assert_eq!(moved, 85);
    // As a battle model the record's materials and windows are unused (with a warning).
    let data = cluster_of(&mesh, &anim, &with_clut_blocks(&tims), Some(&materials));
    let battle = load_as(&data, Some(ModelKind::Battle));
    assert!(battle
        .warnings()
        .iter()
        .any(|w| w.contains("material index = TIM index")));
    assert_eq!(vram_uvs(&battle), base);
}

/// Weapon models sample 16 rows further down than the stored V (the importer's V − (−16));
/// otherwise they are battle models, material index = TIM index, which is the guess for a
/// cluster without a 0x12 record.
#[test]
fn weapon_models_sample_16_rows_down() {
    let (mesh, anim, tims, _) = demo_parts();
    let data = cluster_of(&mesh, &anim, &with_clut_blocks(&tims), None);
    let battle = load(&data).unwrap();
    assert_eq!(battle.kind(), ModelKind::Battle);
    assert!(battle.warnings().is_empty(), "{:?}", battle.warnings());
    let weapon = load_as(&data, Some(ModelKind::Weapon));
    assert!(weapon.warnings().is_empty(), "{:?}", weapon.warnings());
    let (b, w) = (vram_uvs(&battle), vram_uvs(&weapon));
    // The demo's battle UVs are its field UVs: both TIMs sit at their pages' origins.
    assert_eq!(b, vram_uvs(&load(&demo_character()).unwrap()));
    for ((_, b), (_, w)) in b.iter().zip(&w) {
        for k in 0..4 {
            assert_eq!(w[k], [b[k][0], b[k][1].wrapping_add(16)]);
        }
    }
    assert!(weapon.info().contains("kind: weapon (from --ff9-kind)"));
    // A field model needs a 0x12 record: without one, flat colour and a warning saying why.
    let field = load_as(&data, Some(ModelKind::Field));
    assert!(
        field
            .warnings()
            .iter()
            .any(|w| w.contains("none was found")),
        "{:?}",
        field.warnings()
    );
}

/// Animation masks with bits above bit 2 set are refused: in a cluster the animation is
/// skipped (it does not fit), as a side file it is an error at the mask.
#[test]
fn animation_masks_above_7_are_refused() {
    let (mesh, anim, tims, materials) = demo_parts();
    let mut bytes = anim.write().unwrap();
    let mask = u16::from_le_bytes([bytes[10], bytes[11]]) | 8;
    assert_eq!(mask & !15, 0);
    bytes[10..12].copy_from_slice(&mask.to_le_bytes());
    let says = format!("mask 0x{mask:04x} has bits above bit 2 set");
    let mut objects = vec![(2, 1, mesh.write().unwrap()), (3, 10, bytes.clone())];
    objects.extend(tims.iter().zip(20..).map(|(t, id)| (4, id, t.write())));
    objects.push((0x12, 0, materials.write().unwrap()));
    let m = load(&cluster::write(&objects).unwrap()).unwrap();
    assert!(m.animation_data().is_empty());
    assert!(
        m.warnings().iter().any(|w| w.contains(&says)),
        "{:?}",
        m.warnings()
    );
    let e = Animation::parse(&bytes, mesh.bones.len()).unwrap_err();
    assert_eq!(e.offset, 10, "{e}");
    assert!(e.to_string().contains(&says), "{e}");
}

/// `psxrender info` on the demo cluster shows the 0x12 chunk header and the materials;
/// `--ff9-kind` is taken and a bad one refused.
#[test]
fn cli_info_shows_the_0x12_chunk_and_takes_a_kind() {
    let dir = std::env::temp_dir().join(format!("psxrender-ff9-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("demo.ff9");
    std::fs::write(&file, demo_character()).unwrap();
    let run = |extra: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_psxrender"))
            .arg("info")
            .arg(&file)
            .args(extra)
            .output()
            .unwrap();
        let text =
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
        (o.status.code(), text)
    };
    let (code, out) = run(&[]);
    assert_eq!(code, Some(0), "{out}");
    for needle in [
        "chunk 0x12 at 0x359c: 1 object(s), ids [0], at [0x35ac], end 0x35dc",
        "materials (0x12, model id 1, default animation 10): 2",
        "palette from TIM 2 image block",
    ] {
        assert!(out.contains(needle), "lacks {needle:?}:\n{out}");
    }
    let (code, out) = run(&["--ff9-kind", "world"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("kind: world (from --ff9-kind)"), "{out}");
    let (code, out) = run(&["--ff9-kind", "party"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("not an FF9 model kind"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
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
    assert_eq!(c.objects.len(), 6);
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
