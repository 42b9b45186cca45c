//! Unit tests on synthetic models from [`super::writer`].

use std::path::{Path, PathBuf};

use super::mdl::{ControllerType, NodeKind};
use super::writer::{
    build, sample_model, BuildController, BuildMesh, BuildModel, BuildNode, BuildSkin,
};
use super::*;
use crate::formats::images::ImageAllowance;
use crate::scene::{Model, PoseRequest};

fn close(a: [f32; 3], b: [f32; 3]) -> bool {
    (0..3).all(|i| (a[i] - b[i]).abs() < 1e-4)
}

fn load_bytes(data: &[u8]) -> NWNModel {
    load(
        Path::new("/nonexistent-dir/synth.mdl"),
        data,
        &LoadOptions::default(),
    )
    .unwrap()
}

/// A fresh scratch directory under the system temp dir.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psxrender-nwn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn writer_round_trips_through_the_parser() {
    let data = build(&sample_model());
    let mut w = Vec::new();
    let m = parse(&data, &mut w).unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(m.name, "synth");
    let kinds: Vec<(&str, NodeKind)> = m.nodes.iter().map(|n| (n.name.as_str(), n.kind)).collect();
    assert_eq!(
        kinds,
        [
            ("synth", NodeKind::Dummy),
            ("arm", NodeKind::Dummy),
            ("box", NodeKind::TriMesh)
        ]
    );
    assert_eq!(m.nodes[1].parent, Some(0));
    assert_eq!(m.nodes[2].parent, Some(1));
    let mesh = m.nodes[2].mesh.as_ref().unwrap();
    assert_eq!((mesh.vertices.len(), mesh.faces.len()), (4, 2));
    assert_eq!(mesh.textures[0], "tex");
    assert_eq!(mesh.uvs.len(), 4);
    assert_eq!(m.animations.len(), 1);
    let a = &m.animations[0];
    assert_eq!((a.name.as_str(), a.length), ("wave", 1.0));
    let det = a.nodes[1]
        .controllers
        .iter()
        .find(|c| c.ty == ControllerType::DETONATE)
        .unwrap();
    assert_eq!(
        (det.columns, det.times.clone()),
        (0, vec![0.5]),
        "detonate: times, no data"
    );
}

#[test]
fn rest_pose_and_keyed_animation_with_slerp_and_wrap() {
    let mut model = sample_model();
    // The box has a static offset the animation does not key: it must be kept.
    model.root.children[0].children[0].controllers =
        vec![BuildController::position([0.0, 0.5, 0.0])];
    let m = load_bytes(&build(&model));
    assert_eq!(m.animations().len(), 1);
    assert_eq!(m.animations()[0].frames, 30);
    let rest = m.pose(&PoseRequest::default());
    assert_eq!(rest.vertices.len(), 4);
    assert_eq!(rest.faces.len(), 2);
    // Vertex 1 (1,0,0) + box (0,0.5,0) + arm (0,0,1) = NWN (1,0.5,1) → scene (−1,1,0.5).
    assert!(
        close(rest.vertices[1].position, [-1.0, 1.0, 0.5]),
        "{:?}",
        rest.vertices[1]
    );
    let wave = m.find_animation("WAVE").unwrap();
    let half = m.pose(&PoseRequest {
        animation: Some(wave),
        frame: 15,
        camera: None,
    });
    // t = 0.5 s: arm at (0,0,2), rotated 45° about Z.
    let (s, c) = (
        std::f32::consts::FRAC_PI_4.sin(),
        std::f32::consts::FRAC_PI_4.cos(),
    );
    let p = [c - 0.5 * s, s + 0.5 * c, 2.0];
    assert!(
        close(half.vertices[1].position, to_scene(p)),
        "{:?} vs {:?}",
        half.vertices[1],
        to_scene(p)
    );
    let wrapped = m.pose(&PoseRequest {
        animation: Some(wave),
        frame: 45,
        camera: None,
    });
    assert_eq!(
        wrapped.vertices, half.vertices,
        "frame 45 wraps to frame 15 of a 30-frame animation"
    );
    // Normals turn with the node: (0,−1,0) rotated 45° about Z.
    assert!(
        close(half.vertices[0].normal, to_scene([s, -c, 0.0])),
        "{:?}",
        half.vertices[0].normal
    );
}

#[test]
fn animation_scale_scales_animated_positions() {
    let mut model = sample_model();
    model.animation_scale = 0.5;
    let m = load_bytes(&build(&model));
    let half = m.pose(&PoseRequest {
        animation: Some(0),
        frame: 15,
        camera: None,
    });
    // Arm position keyed (0,0,2) at t=0.5, times 0.5 → (0,0,1); vertex 0 sits at the arm.
    assert!(
        close(half.vertices[0].position, to_scene([0.0, 0.0, 1.0])),
        "{:?}",
        half.vertices[0]
    );
}

#[test]
fn texture_missing_is_a_warning_and_a_checkerboard() {
    let m = load_bytes(&build(&sample_model()));
    assert!(
        m.warnings().iter().any(|w| w.contains("'tex' MISSING")),
        "{:?}",
        m.warnings()
    );
    let pose = m.pose(&PoseRequest::default());
    assert_eq!(pose.textures.len(), 1);
    assert_eq!(*pose.textures[0].image, textures::fallback());
    assert!(matches!(
        pose.faces[0].texture,
        crate::scene::FaceTexture::Image { texture: 0, .. }
    ));
    assert!(m.info().contains("tex -> MISSING"), "{}", m.info());
}

#[test]
fn textures_past_the_model_allowance_are_checkerboards_named_in_a_warning() {
    let dir = scratch("allowance");
    let mut tga = std::io::Cursor::new(Vec::new());
    image::RgbaImage::from_pixel(8, 8, image::Rgba([1, 2, 3, 255]))
        .write_to(&mut tga, image::ImageFormat::Tga)
        .unwrap();
    for name in ["a", "b", "c"] {
        std::fs::write(dir.join(format!("{name}.tga")), tga.get_ref()).unwrap();
    }
    // Three 8×8 textures of 256 decoded bytes each against 600: the third does not fit.
    let allowance = ImageAllowance::new(600);
    let mut warnings = Vec::new();
    let got: Vec<textures::Resolved> = ["a", "b", "c"]
        .iter()
        .map(|n| textures::resolve(n, &dir, &LoadOptions::default(), &allowance, &mut warnings))
        .collect();
    assert!(got[0].path.is_some() && got[1].path.is_some());
    assert_eq!(
        (got[2].path.as_ref(), &*got[2].image),
        (None, &textures::fallback())
    );
    assert_eq!(allowance.used(), 512);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let c = dir.join("c.tga");
    assert!(
        warnings[0].contains(&format!("{}: TGA decoded image bytes", c.display()))
            && warnings[0].contains("count 768 is larger than the limit 600"),
        "{warnings:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn skin_model() -> BuildModel {
    // root(0) → bone_a(1), bone_b(2) at (0,0,1); skin(3) under root.
    let mut a = BuildNode::dummy("bone_a", 1);
    a.controllers = vec![BuildController::position([0.0, 0.0, 0.0])];
    let mut b = BuildNode::dummy("bone_b", 2);
    b.controllers = vec![BuildController::position([0.0, 0.0, 1.0])];
    let mut skin = BuildNode::dummy("skin", 3);
    skin.mesh = Some(BuildMesh {
        vertices: vec![[1.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]],
        faces: vec![[0, 1, 2]],
        render: true,
        skin: Some(BuildSkin {
            // Slot 0 → node 1 (bone_a), slot 1 → node 2 (bone_b); slot 2 is garbage.
            bone_parts: vec![1, 2, 999],
            lanes: vec![
                [0, 0xFFFF, 2, 0xFFFF],
                [0xFFFF, 1, 0xFFFF, 0xFFFF],
                [0, 1, 0xFFFF, 0xFFFF],
            ],
            weights: vec![
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.5, 0.5, 0.0, 0.0],
            ],
        }),
        ..Default::default()
    });
    let mut root = BuildNode::dummy("skinned", 0);
    root.children = vec![a, b, skin];
    let mut anim_b = BuildNode::dummy("bone_b", 2);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    // bone_b turns 90° about Z over one second.
    anim_b.controllers = vec![BuildController::keyed(
        20,
        &[0.0, 1.0],
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, s, s],
        4,
    )];
    let mut anim_root = BuildNode::dummy("skinned", 0);
    anim_root.children = vec![anim_b];
    BuildModel {
        name: "skinned".into(),
        animation_scale: 1.0,
        root,
        animations: vec![writer::BuildAnimation {
            name: "turn".into(),
            length: 1.0,
            root: anim_root,
        }],
        ..Default::default()
    }
}

#[test]
fn skin_follows_bone_weights_and_skips_unused_lanes() {
    let m = load_bytes(&build(&skin_model()));
    let mesh = m.mdl.nodes[3].mesh.as_ref().unwrap();
    assert_eq!(
        mesh.skin[0],
        vec![(1, 1.0)],
        "0xFFFF lanes and zero weights are skipped"
    );
    assert_eq!(
        mesh.skin[1],
        vec![(2, 1.0)],
        "a used lane after an unused one is kept"
    );
    let rest = m.pose(&PoseRequest::default());
    assert!(
        close(rest.vertices[1].position, to_scene([1.0, 0.0, 1.0])),
        "rest = bind shape"
    );
    let end = m.pose(&PoseRequest {
        animation: Some(0),
        frame: 29,
        camera: None,
    });
    let t = 29.0f32 / 30.0 * std::f32::consts::FRAC_PI_2;
    // Vertex 1 is bound to bone_b at (0,0,1): it turns about Z around that point.
    assert!(
        close(end.vertices[1].position, to_scene([t.cos(), t.sin(), 1.0])),
        "{:?}",
        end.vertices[1]
    );
    // Vertex 0 is bound to bone_a only: unmoved.
    assert!(close(end.vertices[0].position, to_scene([1.0, 0.0, 0.0])));
    // Vertex 2 is half/half: the average of the two bones' results.
    let q = [-t.sin(), t.cos(), 1.0];
    let want = [(0.0 + q[0]) / 2.0, (1.0 + q[1]) / 2.0, 1.0];
    assert!(
        close(end.vertices[2].position, to_scene(want)),
        "{:?} vs {want:?}",
        end.vertices[2]
    );
}

#[test]
fn bezier_flag_and_stride_are_read() {
    let mut model = sample_model();
    model.root.children[0].controllers = vec![BuildController::keyed(
        8,
        &[0.0, 1.0],
        &[
            0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0,
        ],
        0x13,
    )];
    let mut w = Vec::new();
    let m = parse(&build(&model), &mut w).unwrap();
    let c = &m.nodes[1].controllers[0];
    assert!(c.bezier);
    assert_eq!((c.columns, c.stride(), c.values.len()), (3, 9, 18));
    assert_eq!(
        anim::sample(c, 0.5),
        vec![0.0, 0.0, 2.0],
        "zero handles: bezier = linear at 0.5"
    );
}

#[test]
fn supermodel_chain_supplies_animations_and_missing_links_warn() {
    let dir = scratch("chain");
    let mut child = sample_model();
    child.name = "child".into();
    child.animations.clear();
    child.supermodel = "Parent_M".into();
    let mut parent = sample_model();
    parent.name = "parent_m".into();
    parent.supermodel = "gone".into();
    std::fs::write(dir.join("child.mdl"), build(&child)).unwrap();
    // Found case-insensitively in a --search-path directory.
    let sp = dir.join("super");
    std::fs::create_dir_all(&sp).unwrap();
    std::fs::write(sp.join("PARENT_M.MDL"), build(&parent)).unwrap();
    let opts = LoadOptions {
        search_paths: vec![sp],
        ..Default::default()
    };
    let path = dir.join("child.mdl");
    let m = load(&path, &std::fs::read(&path).unwrap(), &opts).unwrap();
    assert_eq!(m.animations().len(), 1);
    assert_eq!(m.animations[0].source, "parent_m");
    assert_eq!(m.chain.len(), 2);
    assert!(m.chain[1].path.is_none());
    assert!(
        m.warnings()
            .iter()
            .any(|w| w.contains("supermodel 'gone' MISSING")),
        "{:?}",
        m.warnings()
    );
    assert!(m.info().contains("child -> Parent_M ("), "{}", m.info());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ascii_model_parses_geometry_keys_and_animation() {
    let text = "#MAXMODEL ASCII\nnewmodel t\nsetsupermodel t NULL\nclassification character\n\
        setanimationscale 2\nbeginmodelgeom t\nnode dummy t\n  parent NULL\nendnode\n\
        node trimesh m\n  parent t\n  #part-number 1\n  position 0 0 1\n  orientation 0 0 1 1.5707963\n  bitmap tex\n\
        verts 3\n    0 0 0\n    1 0 0\n    0 1 0\n  tverts 1\n    0.5 0.5 0\n\
        faces 1\n    0 1 2 1 0 0 0 1\nendnode\n\
        node light l\n  parent t\n  lightpriority 3\n  shadow 0\nendnode\n\
        node danglymesh d\n  parent t\n  displacement 0.5\n  constraints 1\n    255\n  period 2\nendnode\nendmodelgeom t\n\
        newanim go t\n  length 2\n  transtime 0.25\n  animroot t\n  event 0.5 hit\n\
        node dummy m\n    parent t\n    positionkey\n      0 0 0 1\n      2 0 0 3\n    endlist\n\
        endnode\ndoneanim go t\ndonemodel t\n";
    assert!(looks_ascii(text.as_bytes()));
    let mut w = Vec::new();
    let m = ascii::parse(text.as_bytes(), &mut w).unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(
        (m.name.as_str(), m.supermodel.clone(), m.animation_scale),
        ("t", None, 2.0)
    );
    assert_eq!(m.nodes.len(), 4);
    assert_eq!(m.nodes[1].part, 1);
    assert_eq!(
        m.nodes[2].detail.describe(),
        "priority 3, flare radius 0, ambient only false, shadow false"
    );
    assert_eq!(
        m.nodes[3].detail.describe(),
        "1 constraints, displacement 0.5, tightness 0, period 2"
    );
    let mesh = m.nodes[1].mesh.as_ref().unwrap();
    assert_eq!(
        (mesh.vertices.len(), mesh.faces.len(), mesh.faces[0].t),
        (3, 1, [0, 0, 0])
    );
    let a = &m.animations[0];
    assert_eq!(
        (a.name.as_str(), a.length, a.events.clone()),
        ("go", 2.0, vec![(0.5, "hit".to_string())])
    );
    let model = load_bytes(text.as_bytes());
    let rest = model.pose(&PoseRequest::default());
    // Vertex 1 (1,0,0) turned 90° about Z → (0,1,0), + (0,0,1).
    assert!(
        close(rest.vertices[1].position, to_scene([0.0, 1.0, 1.0])),
        "{:?}",
        rest.vertices[1]
    );
    let mid = model.pose(&PoseRequest {
        animation: Some(0),
        frame: 30,
        camera: None,
    });
    // t = 1 s: position key (0,0,2) × animation scale 2 = (0,0,4).
    assert!(
        close(mid.vertices[0].position, to_scene([0.0, 0.0, 4.0])),
        "{:?}",
        mid.vertices[0]
    );
}

#[test]
fn ascii_errors_name_the_line_column_and_offset() {
    let text = b"newmodel t\nbeginmodelgeom t\nnode trimesh m\n  verts 2\n    0 0 0\n    1 x 0\nendnode\nendmodelgeom t\n";
    let e = ascii::parse(text, &mut Vec::new()).unwrap_err();
    // The word's own offset: its line starts at 63, the word 6 bytes in.
    assert_eq!(e.offset, 69, "{e}");
    assert!(
        e.to_string()
            .contains("line 6, column 7: 'x' is not a number at byte 0x45"),
        "{e}"
    );
    let e = ascii::parse(
        b"newmodel t\nbeginmodelgeom t\nnode blob m\n",
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("unknown node type"), "{e}");
}

#[test]
fn shared_subtrees_cannot_multiply_memory() {
    // 200 children that all point at one 60000-vertex mesh would materialise 144 MB from a
    // 0.7 MB file: the read budget refuses it with a typed error.
    let mut big = BuildNode::dummy("big", 1);
    big.mesh = Some(BuildMesh {
        vertices: vec![[0.0; 3]; 60_000],
        faces: vec![[0, 1, 2]],
        render: true,
        ..Default::default()
    });
    let mut model = sample_model();
    model.animations.clear();
    model.root.children = vec![big, BuildNode::dummy("x", 2)];
    let mut data = build(&model);
    assert!(parse(&data, &mut Vec::new()).is_ok());
    // Give the root 200 children, all the big mesh.
    let root_off = 12 + u32::from_le_bytes(data[12 + 0x48..12 + 0x4C].try_into().unwrap()) as usize;
    let arr_ptr = u32::from_le_bytes(data[root_off + 0x48..root_off + 0x4C].try_into().unwrap());
    let first = data[12 + arr_ptr as usize..12 + arr_ptr as usize + 4].to_vec();
    let new_arr = data.len() - 12; // append inside model data by growing the model section
    let model_size = u32::from_le_bytes(data[4..8].try_into().unwrap()) as usize;
    let raw_size = u32::from_le_bytes(data[8..12].try_into().unwrap()) as usize;
    assert_eq!(12 + model_size + raw_size, data.len());
    for _ in 0..200 {
        data.extend_from_slice(&first);
    }
    data[root_off + 0x48..root_off + 0x4C].copy_from_slice(&(new_arr as u32).to_le_bytes());
    data[root_off + 0x4C..root_off + 0x50].copy_from_slice(&200u32.to_le_bytes());
    data[root_off + 0x50..root_off + 0x54].copy_from_slice(&200u32.to_le_bytes());
    // The appended array sits past model+raw; make the raw section cover it.
    data[8..12].copy_from_slice(&((raw_size + 800) as u32).to_le_bytes());
    let e = parse(&data, &mut Vec::new()).unwrap_err();
    assert!(
        matches!(e.kind, crate::formats::ErrorKind::CountTooLarge { .. }),
        "{e}"
    );
}

#[test]
fn ascii_detection() {
    assert!(looks_ascii(b"# comment\nnewmodel x\n"));
    assert!(!looks_ascii(b"hello world"));
    assert!(!looks_ascii(b"newmodel\0"));
    assert!(!looks_ascii(b""));
}

#[test]
fn bad_controller_rows_and_face_indices_are_dropped_with_warnings() {
    let mut model = sample_model();
    model.animations.clear();
    let arm = &mut model.root.children[0];
    // 5 rows claimed, 1 row of data.
    arm.controllers.push(BuildController::keyed(
        36,
        &[0.0, 0.1, 0.2, 0.3, 0.4],
        &[1.0],
        1,
    ));
    arm.children[0].mesh.as_mut().unwrap().faces.push([0, 1, 9]);
    let mut w = Vec::new();
    let m = parse(&build(&model), &mut w).unwrap();
    assert_eq!(
        m.nodes[1].controllers.len(),
        2,
        "the broken scale key is dropped"
    );
    assert_eq!(m.nodes[2].mesh.as_ref().unwrap().faces.len(), 2);
    assert!(
        w.iter().any(|x| x.contains("controller 36 values")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|x| x.contains("1 faces name vertices past its 4")),
        "{w:?}"
    );
}

#[test]
fn unknown_node_flags_are_a_typed_error_at_the_flags_word() {
    let mut data = build(&sample_model());
    let root_off = 12 + u32::from_le_bytes(data[12 + 0x48..12 + 0x4C].try_into().unwrap()) as usize;
    data[root_off + 0x6C..root_off + 0x70].copy_from_slice(&0x1001u32.to_le_bytes());
    let e = parse(&data, &mut Vec::new()).unwrap_err();
    assert_eq!(e.offset, (root_off + 0x6C) as u64, "{e}");
    assert!(e.to_string().contains("unknown flags 0x1001"), "{e}");
}

/// A palette is cut to the 256×256 texels a PLT samples, and one wider than
/// `MAX_PALETTE_SIDE` is refused with a warning (a grey ramp instead), never decoded whole.
#[test]
fn palettes_are_cut_to_what_a_plt_samples_and_huge_ones_refused() {
    let dir = scratch("palettes");
    let tga = |w: u32, h: u32| {
        let mut out = std::io::Cursor::new(Vec::new());
        image::RgbaImage::from_fn(w, h, |x, y| image::Rgba([x as u8, y as u8, 7, 255]))
            .write_to(&mut out, image::ImageFormat::Tga)
            .unwrap();
        out.into_inner()
    };
    let [skin, hair, ..] = crate::formats::plt::PALETTE_FILES;
    std::fs::write(dir.join(format!("{skin}.tga")), tga(300, 260)).unwrap();
    std::fs::write(dir.join(format!("{hair}.tga")), tga(1025, 2)).unwrap();
    let mut warnings = Vec::new();
    let pals = textures::palettes(&dir, &LoadOptions::default(), &mut warnings);
    let skin_pal = pals[0].as_ref().expect("the skin palette is read");
    assert_eq!((skin_pal.width, skin_pal.height), (256, 256));
    assert_eq!(skin_pal.pixels[255 * 256 + 255], [255, 255, 7, 255]);
    assert_eq!(skin_pal.pixels[3 * 256 + 200], [200, 3, 7, 255]);
    assert!(pals[1].is_none());
    let refused = warnings
        .iter()
        .filter(|w| w.contains(hair))
        .collect::<Vec<_>>();
    assert!(
        refused.len() == 1 && refused[0].contains("1025x2 is larger than the limit 1024"),
        "{warnings:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Skin weights resolve bone names case-insensitively, each name looked up once: 20,000 lanes
/// naming 20,000 bones no node has are dropped under one warning listing the first eight.
#[test]
fn ascii_skin_weights_resolve_each_bone_name_once() {
    let n = 20_000;
    let mut text = String::from(
        "newmodel t\nbeginmodelgeom t\nnode dummy t\n  parent NULL\nendnode\n\
         node dummy Arm\n  parent t\nendnode\nnode skin s\n  parent t\n",
    );
    text += &format!("  verts {n}\n{}", "0 0 0\n".repeat(n));
    text += &format!("  weights {n}\n  arm 0.5 t 0.5\n");
    for i in 1..n {
        text += &format!("  b{i} 1\n");
    }
    text += "  faces 1\n    0 1 2 1 0 1 2 0\nendnode\nendmodelgeom t\n";
    let mut w = Vec::new();
    let m = ascii::parse(text.as_bytes(), &mut w).unwrap();
    let skin = &m.nodes[2].mesh.as_ref().unwrap().skin;
    assert_eq!(skin.len(), n);
    assert_eq!(skin[0], vec![(1, 0.5), (0, 0.5)]);
    assert!(skin[1..].iter().all(Vec::is_empty));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains(
            r#"bones ["b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"] and 19991 more not found"#
        ),
        "{w:?}"
    );
}

/// An explosion's bursts count the detonate events and keys in [from, to) of every loop it
/// meets, unsorted in the file as they may be, as a scan of every time does. Events come from
/// an ASCII animation; keys (which only binary files carry) from the writer.
#[test]
fn detonations_are_counted_by_binary_search_as_a_scan_counts_them() {
    use crate::effects::EmitterSource;
    let check = |src: &dyn EmitterSource, times: &[f32]| {
        let scan = |a: f32, b: f32| times.iter().filter(|&&t| a <= t && t < b).count() as u32;
        for k in 0..80 {
            let from = k as f32 * 0.05;
            for width in [0.0, 1.0 / 60.0, 0.1, 0.5, 0.95] {
                let to = from + width;
                let (la, lb) = (from.floor(), to.floor());
                let want = if la == lb {
                    scan(from - la, to - la)
                } else {
                    scan(from - la, 1.0) + scan(0.0, to - lb)
                };
                assert_eq!(src.bursts(from, to), want, "[{from}, {to})");
            }
        }
    };
    let text = "newmodel t\nbeginmodelgeom t\nnode dummy t\n  parent NULL\nendnode\n\
        node emitter e\n  parent t\n  update Explosion\nendnode\nendmodelgeom t\n\
        newanim boom t\n  length 1\n  event 0.7 detonate\n  event 0.2 detonate\n  event 0.5 hit\n\
        event 0.05 DETONATE\n  node dummy t\n    parent NULL\n  endnode\ndoneanim boom t\n\
        donemodel t\n";
    let m = load_bytes(text.as_bytes());
    let src = effects::AnimatedNode::new(&m, m.emitters[0].0, m.find_animation("boom"));
    check(&src, &[0.05, 0.2, 0.7]);
    // The sample's ARM node: detonate keys out of order (and one NaN, which no range holds).
    let mut model = writer::sample_model();
    let arm = &mut model.animations[0].root.children[0];
    arm.controllers[2] = BuildController::keyed(228, &[0.9, 0.05, f32::NAN, 0.45], &[], 0xFF);
    let m = load_bytes(&writer::build(&model));
    let node = (m.mdl.nodes.iter()).position(|n| n.name.eq_ignore_ascii_case("arm"));
    let src = effects::AnimatedNode::new(&m, node.unwrap(), Some(0));
    check(&src, &[0.05, 0.45, 0.9]);
}

/// At most `MAX_EMITTERS` emitters are drawn; the rest are named in one warning.
#[test]
fn emitters_past_the_cap_are_counted_in_a_warning() {
    let mut text =
        String::from("newmodel t\nbeginmodelgeom t\nnode dummy t\n  parent NULL\nendnode\n");
    for i in 0..effects::MAX_EMITTERS + 4 {
        text += &format!("node emitter e{i}\n  parent t\n  update Fountain\nendnode\n");
    }
    text += "endmodelgeom t\n";
    let m = load_bytes(text.as_bytes());
    assert_eq!(m.emitters.len(), effects::MAX_EMITTERS);
    assert_eq!(m.emitters[0].1.name, "e0");
    let w = m.warnings();
    assert!(
        w.iter()
            .any(|w| w == "4 emitters past the first 256 are not drawn"),
        "{w:?}"
    );
}

/// The byte offset of the root node of the sample model's first animation.
fn first_animation_root(data: &[u8]) -> usize {
    let word = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap()) as usize;
    let anim_ptrs = 12 + word(12 + 0x78);
    let anim = 12 + word(anim_ptrs);
    12 + word(anim + 0x48)
}

/// An animation's tree is read when first drawn: one that is damaged does not stop the model
/// loading (the whole-file parse refuses it), keys nothing (the frame is the rest pose) and
/// says why in the warnings, naming the file, the byte and what was wrong.
#[test]
fn a_damaged_animation_tree_is_a_warning_and_the_rest_pose() {
    let mut data = build(&sample_model());
    let root = first_animation_root(&data);
    data[root + 0x6C..root + 0x70].copy_from_slice(&0x1001u32.to_le_bytes());
    let e = parse(&data, &mut Vec::new()).unwrap_err();
    assert_eq!(e.offset, (root + 0x6C) as u64, "{e}");
    let m = load_bytes(&data);
    let at_load = m.warnings().len();
    assert!(
        m.warnings().iter().all(|w| !w.contains("animation")),
        "nothing read yet: {:?}",
        m.warnings()
    );
    assert_eq!(m.animations().len(), 1, "still listed");
    let request = PoseRequest {
        animation: Some(0),
        frame: 10,
        camera: None,
    };
    assert_eq!(m.pose(&request), m.pose(&PoseRequest::default()));
    assert_eq!(
        m.warnings()[at_load..],
        [format!(
            "animation 'wave' of 'synth' failed to load: {}; the model stays in its rest pose \
             in it",
            e.in_file(Path::new("/nonexistent-dir/synth.mdl"))
        )]
    );
    assert!(
        m.info().contains("wave: 1.000 s (30 frames), 0 nodes"),
        "{}",
        m.info()
    );
    assert_eq!(m.warnings().len(), at_load + 1, "told once");
}

/// The trees read when drawn are those the whole-file parse reads, and the frames the same,
/// from however many threads ask for them at once.
#[test]
fn animation_trees_read_when_drawn_are_the_whole_parse_s() {
    let mut model = sample_model();
    model.root.children[0].children[0].controllers =
        vec![BuildController::position([0.0, 0.5, 0.0])];
    let data = build(&model);
    let whole = parse(&data, &mut Vec::new()).unwrap();
    let m = load_bytes(&data);
    let request = PoseRequest {
        animation: Some(0),
        frame: 7,
        camera: None,
    };
    let poses: Vec<_> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..4).map(|_| s.spawn(|| m.pose(&request))).collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    assert!(poses.iter().all(|p| *p == poses[0]));
    assert_ne!(
        poses[0],
        m.pose(&PoseRequest::default()),
        "the animation moves it"
    );
    let k = m.keyed(0).unwrap();
    assert_eq!(k.nodes, &whole.animations[0].nodes[..]);
    assert_eq!(k.node_map, [Some(0), Some(1), None]);
    assert!(
        m.warnings().iter().all(|w| !w.contains("animation")),
        "{:?}",
        m.warnings()
    );
}
