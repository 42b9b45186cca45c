//! glTF loader: facts and goldens of the samples in ../shared/samples/gltf, the `.glb` and the
//! separate-files Fox rendering alike, the command line on glTF, and fixtures from the writer
//! for what the samples lack — each with an expectation worked out by hand.
mod cli_run;
mod common;

use std::path::{Path, PathBuf};

use psxrender::formats::gltf::writer::{columns, Builder};
use psxrender::formats::gltf::{self, AlphaMode, GltfModel};
use psxrender::formats::LoadOptions;
use psxrender::render::{RenderOptions, Renderer};
use psxrender::scene::{Blend, FaceTexture, Model, PoseRequest, PosedMesh};
use serde_json::json;

fn sample(name: &str) -> PathBuf {
    common::shared(&format!("samples/gltf/{name}"))
}

fn load_file(path: &Path, opts: &LoadOptions) -> GltfModel {
    let data = std::fs::read(path).unwrap();
    gltf::load(path, &data, opts).unwrap_or_else(|e| panic!("{e}"))
}

/// Loads bytes as if they were `name` in the test's scratch directory.
fn load_bytes(name: &str, data: &[u8]) -> GltfModel {
    let path = cli_run::tmp("gltf", name);
    gltf::load(&path, data, &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn pose(m: &GltfModel, animation: Option<usize>, frame: u32) -> PosedMesh {
    m.pose(&PoseRequest {
        animation,
        frame,
        camera: None,
    })
}

fn close(a: [f32; 3], b: [f32; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4)
}

/// The face's geometric normal from its winding.
fn face_normal(p: &PosedMesh, f: usize) -> [f32; 3] {
    let v = |k: usize| p.vertices[p.faces[f].vertices[k] as usize].position;
    let (a, b, c) = (v(0), v(1), v(2));
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    [
        u[1] * w[2] - u[2] * w[1],
        u[2] * w[0] - u[0] * w[2],
        u[0] * w[1] - u[1] * w[0],
    ]
}

// ---------------------------------------------------------------------------------------------
// Samples

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn fox_sample_facts() {
    let p = sample("Fox.glb");
    let m = load_file(&p, &LoadOptions::default());
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    assert_eq!(m.nodes.len(), 26);
    assert_eq!(m.skins.len(), 1);
    assert_eq!(m.skins[0].joints.len(), 24);
    let prim = &m.meshes[0].primitives[0];
    assert_eq!((prim.positions.len(), prim.triangles.len()), (1728, 576));
    assert!(!prim.indexed && prim.normals.is_none());
    let anims = m.animations();
    let names: Vec<(&str, u32)> = anims.iter().map(|a| (a.name.as_str(), a.frames)).collect();
    assert_eq!(names, [("Survey", 103), ("Walk", 21), ("Run", 35)]);
    assert_eq!(m.find_animation("run"), Some(2));
    assert_eq!(m.find_animation("1"), Some(1));
    let info = m.info();
    for want in [
        "glTF 2.0 (binary .glb)",
        "nodes: 26",
        "1728 vertices, 576 triangles",
        "normals computed flat",
        "24 joints",
        "Walk",
        "(1024x1024 PNG)",
        "-> 256x256 8bpp",
        "OPAQUE -> solid",
    ] {
        assert!(info.contains(want), "info lacks {want:?}:\n{info}");
    }
    // Posed: every vertex is skinned (weights present), textured, and the walk moves the legs.
    let rest = pose(&m, None, 0);
    let walk = pose(&m, Some(1), 10);
    assert_eq!(rest.faces.len(), 576);
    assert!(rest
        .faces
        .iter()
        .all(|f| matches!(f.texture, FaceTexture::Image { texture: 0, .. })));
    let moved = rest
        .vertices
        .iter()
        .zip(&walk.vertices)
        .filter(|(a, b)| !close(a.position, b.position))
        .count();
    assert!(moved > 500, "only {moved} vertices moved");
    // Frame N wraps after the animation's 21 frames.
    assert_eq!(
        pose(&m, Some(1), 3).vertices,
        pose(&m, Some(1), 24).vertices
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn fox_separate_files_render_exactly_like_the_glb() {
    let (glb, sep) = (sample("Fox.glb"), sample("Fox-separate/Fox.gltf"));
    let a = load_file(&glb, &LoadOptions::default());
    let b = load_file(&sep, &LoadOptions::default());
    assert!(matches!(b.container, gltf::Container::Json));
    assert_eq!(b.buffers[0].0, "Fox.bin");
    for (anim, frame) in [(None, 0), (Some(1), 7), (Some(2), 20)] {
        let o = RenderOptions {
            framing: PoseRequest {
                animation: anim,
                frame,
                camera: None,
            },
            ..RenderOptions::default()
        };
        let req = o.framing.clone();
        let fa = Renderer::new(&a, &o).unwrap().render(&req).unwrap();
        let fb = Renderer::new(&b, &o).unwrap().render(&req).unwrap();
        assert!(fa.stats.drawn > 100);
        assert!(fa.rgb == fb.rgb, "{anim:?} frame {frame}: pictures differ");
        assert!(
            fa.gp0 == fb.gp0,
            "{anim:?} frame {frame}: GP0 streams differ"
        );
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn box_textured_draco_sample_facts() {
    let p = sample("BoxTextured.glb");
    let m = load_file(&p, &LoadOptions::default());
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    let prim = &m.meshes[0].primitives[0];
    assert!(prim.draco && prim.indexed);
    assert_eq!((prim.positions.len(), prim.triangles.len()), (24, 12));
    assert!(prim.normals.is_some() && prim.uvs.is_some());
    // A unit cube, 1 across (the Draco positions are dequantised to ±0.5) — turned by the root
    // node's matrix (Z up to Y up), which keeps it a unit cube.
    let posed = pose(&m, None, 0);
    for v in &posed.vertices {
        assert!(
            v.position.iter().all(|c| (c.abs() - 0.5).abs() < 1e-3),
            "{:?}",
            v.position
        );
    }
    // Every face's winding agrees with its vertex normals (front faces are counter-clockwise).
    for f in 0..posed.faces.len() {
        let n = face_normal(&posed, f);
        let vn = posed.vertices[posed.faces[f].vertices[0] as usize].normal;
        assert!(n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2] > 0.0, "face {f}");
    }
    let info = m.info();
    assert!(
        info.contains("(Draco)") && info.contains("'CesiumLogoFlat'"),
        "{info}"
    );
}

fn golden(name: &str, model: &dyn Model, animation: Option<usize>, frame: u32) {
    let o = RenderOptions {
        framing: PoseRequest {
            animation,
            frame,
            camera: None,
        },
        ..RenderOptions::default()
    };
    let f = Renderer::new(model, &o)
        .unwrap()
        .render(&o.framing.clone())
        .unwrap();
    assert!(f.stats.drawn > 0, "{name}: nothing drawn");
    common::assert_golden(name, f.width, f.height, &f.rgb);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn golden_gltf_samples() {
    let m = load_file(&sample("Fox.glb"), &LoadOptions::default());
    for (anim, tag) in [(1, "walk"), (2, "run")] {
        for frame in [0, 10] {
            golden(&format!("gltf_fox_{tag}_f{frame}"), &m, Some(anim), frame);
        }
    }
    let m = load_file(&sample("BoxTextured.glb"), &LoadOptions::default());
    golden("gltf_boxtextured_f0", &m, None, 0);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn cli_renders_gltf_gif_dump_and_info() {
    let fox = sample("Fox.glb");
    let gif = cli_run::tmp("gltf", "run.gif");
    let (code, out) = cli_run::psxrender([
        fox.as_os_str(),
        gif.as_os_str(),
        "--anim".as_ref(),
        "Run".as_ref(),
        "--frames".as_ref(),
        "0..35".as_ref(),
        "--gif".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    let decoder = image::codecs::gif::GifDecoder::new(std::io::BufReader::new(
        std::fs::File::open(&gif).unwrap(),
    ))
    .unwrap();
    use image::AnimationDecoder;
    let frames = decoder.into_frames().collect_frames().unwrap();
    assert_eq!(frames.len(), 35);
    assert_eq!(frames[0].buffer().dimensions(), (320, 240));
    assert!(
        frames[0].buffer() != frames[9].buffer(),
        "the fox does not move"
    );

    let png = cli_run::tmp("gltf", "walk.png");
    let dump = cli_run::tmp("gltf", "walk.psxgpu");
    let back = cli_run::tmp("gltf", "walk-back.png");
    let (code, out) = cli_run::psxrender([
        fox.as_os_str(),
        png.as_os_str(),
        "--anim".as_ref(),
        "walk".as_ref(),
        "--frame".as_ref(),
        "4".as_ref(),
        "--dump-gp0".as_ref(),
        dump.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("glTF model"), "{out}");
    let (code, out) = cli_run::psxrender([
        "replay".as_ref(),
        dump.as_os_str(),
        "--display".as_ref(),
        back.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(std::fs::read(&png).unwrap(), std::fs::read(&back).unwrap());

    let (code, out) = cli_run::psxrender(["info".as_ref(), fox.as_os_str()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("[2] Run") && out.contains("skins: 1"), "{out}");

    let (code, out) = cli_run::psxrender([
        fox.as_os_str(),
        png.as_os_str(),
        "--anim".as_ref(),
        "Gallop".as_ref(),
    ]);
    assert_eq!(code, Some(2));
    assert!(out.contains("Survey, Walk, Run"), "{out}");
}

/// `info --json` prints the facts the text prints, from the same structure: for Fox.glb and its
/// separate-files twin they agree on everything but how the bytes were stored.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn info_json_has_the_text_facts() {
    let (glb, sep) = (sample("Fox.glb"), sample("Fox-separate/Fox.gltf"));
    let json = |p: &std::path::Path| -> serde_json::Value {
        let (code, out) = cli_run::psxrender(["info".as_ref(), "--json".as_ref(), p.as_os_str()]);
        assert_eq!(code, Some(0), "{out}");
        let (start, end) = (out.find('{').unwrap(), out.rfind('}').unwrap());
        serde_json::from_str(&out[start..=end]).unwrap()
    };
    let mut a = json(&glb);
    let mut b = json(&sep);
    assert_eq!(
        (&a["kind"], &a["format"]),
        (&"model".into(), &"glTF".into())
    );
    assert_eq!(a["container"], "binary .glb");
    assert_eq!(b["container"], "JSON .gltf");
    assert_eq!(a["node_count"], 26);
    assert_eq!(a["nodes"].as_array().unwrap().len(), 26);
    let prim = &a["meshes"][0]["primitives"][0];
    assert_eq!(
        (&prim["vertices"], &prim["triangles"]),
        (&1728.into(), &576.into())
    );
    assert_eq!(prim["normals"], "computed flat (per face)");
    assert_eq!(a["skins"][0]["joints"], 24);
    let anims: Vec<(&str, u64)> = a["animations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["name"].as_str().unwrap(), x["frames"].as_u64().unwrap()))
        .collect();
    assert_eq!(anims, [("Survey", 103), ("Walk", 21), ("Run", 35)]);
    assert_eq!(a["animations"][2]["interpolations"][0], "LINEAR");
    let tex = &a["textures"][0];
    assert_eq!(
        (&tex["width"], &tex["encoding"]),
        (&1024.into(), &"PNG".into())
    );
    let ps1 = &tex["ps1"][0];
    assert_eq!((&ps1["bits"], &ps1["colours"]), (&8.into(), &206.into()));
    assert_eq!(a["materials"][0]["alpha_mode"], "OPAQUE");
    // The text shows the same numbers.
    let (_, text) = cli_run::psxrender(["info".as_ref(), glb.as_os_str()]);
    assert!(text.contains("material 0: -> 256x256 8bpp, 256-colour CLUT (206 distinct texels)"));
    assert!(text.contains(&format!(
        "load budget {} of {} bytes",
        a["budget_used"], a["budget_limit"]
    )));
    // Only the storage differs between the two files.
    for v in [&mut a, &mut b] {
        let o = v.as_object_mut().unwrap();
        for k in [
            "file",
            "container",
            "buffers",
            "budget_used",
            "budget_limit",
        ] {
            o.remove(k);
        }
        o["textures"][0].as_object_mut().unwrap().remove("origin");
    }
    assert_eq!(a, b);
}

// ---------------------------------------------------------------------------------------------
// Writer fixtures

/// A builder with one mesh of `prim` (JSON) at a root node carrying `node` fields.
fn one_mesh(b: &mut Builder, prim: serde_json::Value, node: serde_json::Value) -> usize {
    let mesh = b.push("meshes", json!({"primitives": [prim]}));
    let mut n = json!({"mesh": mesh});
    if let Some(o) = node.as_object() {
        for (k, v) in o {
            n[k] = v.clone();
        }
    }
    b.root_node(n)
}

const TRI: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

#[test]
fn vertex_colours_become_gouraud_corner_colours() {
    let mut b = Builder::new();
    let pos = b.floats(&TRI);
    let rgb = b.floats(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    one_mesh(
        &mut b,
        json!({"attributes": {"POSITION": pos, "COLOR_0": rgb}}),
        json!({}),
    );
    // The same triangle with normalised-byte RGBA colours: 128/255 linear grey → sRGB 188.
    let pos2 = b.floats(&TRI);
    let rgba = b.unorm8(
        &[128, 128, 128, 255, 255, 255, 255, 255, 0, 0, 0, 255],
        "VEC4",
        3,
    );
    let mat = b.push(
        "materials",
        json!({"pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.5, 1.0, 1.0]}}),
    );
    one_mesh(
        &mut b,
        json!({"attributes": {"POSITION": pos2, "COLOR_0": rgba}, "material": mat}),
        json!({"translation": [2.0, 0.0, 0.0]}),
    );
    let m = load_bytes("colours.glb", &b.glb());
    let p = pose(&m, None, 0);
    assert_eq!(p.faces.len(), 2);
    // Untextured faces take colour × 255 (the GPU draws them as they are).
    assert_eq!(
        &p.faces[0].colors[..3],
        &[[255, 0, 0], [0, 255, 0], [0, 0, 255]]
    );
    // baseColorFactor multiplies COLOR_0 in linear space: green 0.5 → sRGB 188; grey 128/255 ×
    // 0.5 = 0.251 → sRGB 137.
    assert_eq!(
        &p.faces[1].colors[..3],
        &[[188, 137, 188], [255, 188, 255], [0, 0, 0]]
    );
    assert!(close(p.vertices[3].position, [2.0, 0.0, 0.0]));
    // Drawn unlit through the GPU: the triangle's centre is a blend of the three.
    let o = RenderOptions {
        lighting: false,
        dither: false,
        ..RenderOptions::default()
    };
    let f = Renderer::new(&m, &o)
        .unwrap()
        .render(&PoseRequest::default())
        .unwrap();
    assert_eq!(f.stats.drawn, 2);
}

#[test]
fn strips_and_fans_make_counter_clockwise_triangles_and_lines_are_skipped() {
    let mut b = Builder::new();
    // A strip climbing +Y, its first triangle counter-clockwise seen from +Z.
    let strip = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 2.0, 0.0],
    ];
    let sp = b.floats(&strip);
    // A fan: centre then a counter-clockwise ring of 5 points (seen from +Z).
    let mut fan = vec![[0.0f32, 0.0, 0.0]];
    for k in 0..5 {
        let a = k as f32 * std::f32::consts::TAU / 6.0;
        fan.push([a.cos(), a.sin(), 0.0]);
    }
    let fp = b.floats(&fan);
    let lp = b.floats(&TRI);
    let mesh = b.push(
        "meshes",
        json!({"primitives": [
            {"attributes": {"POSITION": sp}, "mode": 5},
            {"attributes": {"POSITION": fp}, "mode": 6},
            {"attributes": {"POSITION": lp}, "mode": 1},
        ]}),
    );
    b.root_node(json!({"mesh": mesh}));
    let m = load_bytes("strips.glb", &b.glb());
    assert_eq!(m.meshes[0].primitives.len(), 2);
    assert_eq!(m.meshes[0].skipped, 1);
    assert!(
        m.warnings()
            .iter()
            .any(|w| w.contains("Lines") && w.contains("skipped")),
        "{:?}",
        m.warnings()
    );
    // Strip of 5 → 3 triangles: (0,1,2), (2,1,3), (2,3,4); fan of 6 → 4: (1,2,0) … (4,5,0).
    assert_eq!(
        m.meshes[0].primitives[0].triangles,
        [[0, 1, 2], [2, 1, 3], [2, 3, 4]]
    );
    assert_eq!(
        m.meshes[0].primitives[1].triangles,
        [[1, 2, 0], [2, 3, 0], [3, 4, 0], [4, 5, 0]]
    );
    let p = pose(&m, None, 0);
    assert_eq!(p.faces.len(), 7);
    for f in 0..7 {
        assert!(face_normal(&p, f)[2] > 0.0, "face {f} faces away from +Z");
    }
}

/// A one-triangle mesh at node 0, animated by `channels` (JSON channel, sampler pairs).
fn animated(b: &mut Builder, samplers: Vec<serde_json::Value>, paths: &[&str]) -> GltfModel {
    let pos = b.floats(&TRI);
    let mesh = b.push(
        "meshes",
        json!({"primitives": [{"attributes": {"POSITION": pos}}]}),
    );
    let node = b.root_node(json!({"mesh": mesh}));
    let channels: Vec<_> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| json!({"sampler": i, "target": {"node": node, "path": p}}))
        .collect();
    b.push(
        "animations",
        json!({"name": "move", "channels": channels, "samplers": samplers}),
    );
    load_bytes("anim.glb", &b.glb())
}

#[test]
fn step_and_cubic_spline_keys_sample_as_specified() {
    let mut b = Builder::new();
    // STEP on translation: x = 0 until t = 1, then 2, then 5 at t = 2.
    let t = b.scalars(&[0.0, 1.0, 2.0]);
    let v = b.floats(&[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [5.0, 0.0, 0.0]]);
    let m = animated(
        &mut b,
        vec![json!({"input": t, "output": v, "interpolation": "STEP"})],
        &["translation"],
    );
    let a = Some(0);
    assert_eq!(m.animations[0].frames(), 60);
    let x = |frame| pose(&m, a, frame).vertices[1].position[0];
    assert_eq!(x(0), 1.0);
    assert_eq!(x(29), 1.0); // t = 0.967: still key 0
    assert_eq!(x(30), 3.0); // t = 1: key 1
    assert_eq!(x(59), 3.0);
    assert_eq!(x(60), 1.0); // wraps

    // CUBICSPLINE on scale Y: keys at t = 0 and 2, values 1 and 2; key 0's out-tangent 1/s,
    // key 1's in-tangent 0. At t = 1 (s = 1/2, dt = 2): 1/2·1 + 1/8·2·1 + 1/2·2 + (−1/8)·2·0
    // = 1.75. The triangle's apex (0,1,0) is scaled to y = 1.75.
    let mut b = Builder::new();
    let t = b.scalars(&[0.0, 2.0]);
    let v = b.floats(&[
        [0.0, 0.0, 0.0], // in-tangent 0
        [1.0, 1.0, 1.0], // value 0
        [0.0, 1.0, 0.0], // out-tangent 0
        [0.0, 0.0, 0.0], // in-tangent 1
        [1.0, 2.0, 1.0], // value 1
        [0.0, 0.0, 0.0], // out-tangent 1
    ]);
    let m = animated(
        &mut b,
        vec![json!({"input": t, "output": v, "interpolation": "CUBICSPLINE"})],
        &["scale"],
    );
    let y = pose(&m, Some(0), 30).vertices[2].position[1];
    assert!((y - 1.75).abs() < 1e-5, "{y}");
    assert!(m.info().contains("CUBICSPLINE"));
}

#[test]
fn two_skins_each_move_their_own_mesh() {
    let mut b = Builder::new();
    // Joints: node 0 (skin 0) and node 1 (skin 1), both roots; inverse bind = identity.
    let j0 = b.root_node(json!({"name": "j0"}));
    let j1 = b.root_node(json!({"name": "j1"}));
    let ibm = b.floats(&[columns([
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ])]);
    let s0 = b.push("skins", json!({"joints": [j0], "inverseBindMatrices": ibm}));
    let s1 = b.push("skins", json!({"joints": [j1]}));
    for skin in [s0, s1] {
        let pos = b.floats(&TRI);
        let joints = b.u16s(&[0; 12], "VEC4", 3);
        let weights = b.floats(&[[1.0, 0.0, 0.0, 0.0]; 3]);
        one_mesh(
            &mut b,
            json!({"attributes": {"POSITION": pos, "JOINTS_0": joints, "WEIGHTS_0": weights}}),
            json!({"skin": skin, "translation": [100.0, 0.0, 0.0]}),
        );
    }
    // Animation: j0 moves +3 in X; j1 turns 90° about Z (x → y, y → −x).
    let t = b.scalars(&[0.0, 1.0]);
    let tr = b.floats(&[[3.0, 0.0, 0.0], [3.0, 0.0, 0.0]]);
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let rot = b.floats(&[[0.0, 0.0, h, h], [0.0, 0.0, h, h]]);
    b.push(
        "animations",
        json!({"channels": [
            {"sampler": 0, "target": {"node": j0, "path": "translation"}},
            {"sampler": 1, "target": {"node": j1, "path": "rotation"}},
        ], "samplers": [{"input": t, "output": tr}, {"input": t, "output": rot}]}),
    );
    let m = load_bytes("skins.glb", &b.glb());
    assert_eq!(m.skins.len(), 2);
    assert_eq!(m.animations[0].name, "animation 0");
    let p = pose(&m, Some(0), 0);
    // Skinned meshes ignore their node's translation (100): only the joints move them.
    assert!(close(p.vertices[1].position, [4.0, 0.0, 0.0]));
    assert!(close(p.vertices[2].position, [3.0, 1.0, 0.0]));
    assert!(close(p.vertices[4].position, [0.0, 1.0, 0.0]));
    assert!(close(p.vertices[5].position, [-1.0, 0.0, 0.0]));
    // At rest the joints are at the origin: both triangles lie where they were modelled.
    let rest = pose(&m, None, 0);
    assert!(close(rest.vertices[4].position, [1.0, 0.0, 0.0]));
}

#[test]
fn texture_alpha_becomes_cutout_or_semi_transparency() {
    let mut b = Builder::new();
    // 4×1 texels, alpha 0, 64, 128, 255.
    let img = b.png(
        4,
        1,
        &[
            [255, 0, 0, 0],
            [0, 255, 0, 64],
            [0, 0, 255, 128],
            [255, 255, 255, 255],
        ],
    );
    let mask = b.textured_material(img, json!({"alphaMode": "MASK", "alphaCutoff": 0.3}));
    let blend = b.textured_material(
        img,
        json!({"alphaMode": "BLEND", "doubleSided": true,
               "pbrMetallicRoughness": {"baseColorTexture": {"index": 0},
                                        "baseColorFactor": [1.0, 1.0, 1.0, 0.5]}}),
    );
    for mat in [mask, blend] {
        let pos = b.floats(&TRI);
        let uv = b.floats(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
        one_mesh(
            &mut b,
            json!({"attributes": {"POSITION": pos, "TEXCOORD_0": uv}, "material": mat}),
            json!({}),
        );
    }
    let m = load_bytes("alpha.glb", &b.glb());
    assert_eq!(m.materials[0].alpha, AlphaMode::Mask(0.3));
    // MASK bakes the cutoff: 64/255 = 0.25 < 0.3 is cleared, 128/255 kept solid.
    let alphas = |v: usize| -> Vec<u8> {
        m.variants[v]
            .texture
            .image
            .pixels
            .iter()
            .map(|p| p[3])
            .collect()
    };
    assert_eq!(alphas(m.material_variant[0].unwrap()), [0, 0, 255, 255]);
    // BLEND multiplies in the factor's alpha 0.5.
    assert_eq!(alphas(m.material_variant[1].unwrap()), [0, 32, 64, 128]);
    let p = pose(&m, None, 0);
    assert_eq!(p.faces[0].blend, Blend::Cutout);
    assert_eq!(p.faces[1].blend, Blend::Alpha);
    assert!(!p.faces[0].two_sided && p.faces[1].two_sided);
    // Textured faces carry the neutral modulation 128.
    assert_eq!(p.faces[0].colors[0], [128, 128, 128]);
    let info = m.info();
    assert!(info.contains("semi-transparency mode 0"), "{info}");
    assert!(info.contains("MASK (cutoff 0.3)"), "{info}");
    assert!(info.contains("4bpp, 16-colour CLUT"), "{info}");
    let f = Renderer::new(&m, &RenderOptions::default())
        .unwrap()
        .render(&PoseRequest::default())
        .unwrap();
    assert_eq!(f.stats.drawn, 2);
}

/// A PBR model as exporters write them: one quad whose material has all five glTF maps (base
/// colour, metallic-roughness, normal, occlusion, emissive), each a `side`² JPEG of its own
/// generated pattern, in a GLB.
fn pbr_five_maps(side: u32) -> Vec<u8> {
    let mut b = Builder::new();
    let maps: Vec<usize> = (0..5u32)
        .map(|k| {
            let rgb: Vec<[u8; 3]> = (0..side * side)
                .map(|i| {
                    let (x, y) = (i % side, i / side);
                    let n = (x ^ y.wrapping_mul(k + 3)).wrapping_mul(0x9e37_79b9) >> 24;
                    [
                        (x * (k + 1) / 8) as u8,
                        (y / 8 + n / 4) as u8,
                        (n + k * 40) as u8,
                    ]
                })
                .collect();
            let img = b.jpeg(side, side, &rgb);
            b.push("textures", json!({"source": img}))
        })
        .collect();
    let mat = b.push(
        "materials",
        json!({
            "pbrMetallicRoughness": {
                "baseColorTexture": {"index": maps[0]},
                "metallicRoughnessTexture": {"index": maps[1]}
            },
            "normalTexture": {"index": maps[2]},
            "occlusionTexture": {"index": maps[3]},
            "emissiveTexture": {"index": maps[4]},
            "emissiveFactor": [1.0, 1.0, 1.0]
        }),
    );
    let (pos, uv, idx) = b.square();
    one_mesh(
        &mut b,
        json!({"attributes": {"POSITION": pos, "TEXCOORD_0": uv}, "indices": idx, "material": mat}),
        json!({}),
    );
    b.glb()
}

#[test]
fn a_pbr_model_decodes_only_its_base_colour_map() {
    let glb = pbr_five_maps(2048);
    // Written where a profiler can find it: `target/tmp/gltf/pbr5.glb`.
    std::fs::write(cli_run::tmp("gltf", "pbr5.glb"), &glb).unwrap();
    let m = load_bytes("pbr5.glb", &glb);
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    // Only the base colour is decoded; every image's size is known from its header.
    let decoded: Vec<bool> = m.images.iter().map(|i| i.texture.is_some()).collect();
    assert_eq!(decoded, [true, false, false, false, false]);
    assert!(m.images.iter().all(|i| i.size == [2048, 2048]));
    // Eight times the PS1 side: decoded at the JPEG's 1/8 scale, its PS1 size itself.
    let base = m.images[0].texture.as_ref().unwrap();
    assert_eq!(base.image.size(), [256, 256]);
    assert_eq!(m.variants.len(), 1);
    let facts = m.facts();
    for t in 0..5 {
        assert_eq!(facts["textures"][t]["width"], 2048, "{facts}");
        assert_eq!(facts["textures"][t]["encoding"], "JPEG", "{facts}");
    }
    let f = Renderer::new(&m, &RenderOptions::default())
        .unwrap()
        .render(&PoseRequest::default())
        .unwrap();
    assert_eq!(f.stats.drawn, 2);
}

#[test]
fn a_jpeg_within_twice_the_ps1_side_is_decoded_whole() {
    let m = load_bytes("pbr5.glb", &pbr_five_maps(512));
    let base = m.images[0].texture.as_ref().unwrap();
    assert_eq!(base.image.size(), [512, 512]);
}

#[test]
fn node_matrix_places_the_mesh() {
    let mut b = Builder::new();
    // 90° about Y (x → −z, z → x), then translate (1, 2, 3): vertex (1,0,0) → (1, 2, 2).
    let m4 = columns([
        [0.0, 0.0, 1.0, 1.0],
        [0.0, 1.0, 0.0, 2.0],
        [-1.0, 0.0, 0.0, 3.0],
    ]);
    let pos = b.floats(&TRI);
    one_mesh(
        &mut b,
        json!({"attributes": {"POSITION": pos}}),
        json!({"matrix": m4}),
    );
    let m = load_bytes("matrix.glb", &b.glb());
    let p = pose(&m, None, 0);
    assert!(
        close(p.vertices[1].position, [1.0, 2.0, 2.0]),
        "{:?}",
        p.vertices[1]
    );
    assert!(close(p.vertices[2].position, [1.0, 3.0, 3.0]));
    assert!(m.info().contains("matrix"));
}

#[test]
fn mirroring_node_reverses_winding_so_faces_stay_front() {
    let mut b = Builder::new();
    let pos = b.floats(&TRI);
    one_mesh(
        &mut b,
        json!({"attributes": {"POSITION": pos}}),
        json!({"scale": [-1.0, 1.0, 1.0]}),
    );
    let m = load_bytes("mirror.glb", &b.glb());
    let p = pose(&m, None, 0);
    assert_eq!(p.faces[0].vertices[..3], [0, 2, 1]);
    assert!(face_normal(&p, 0)[2] > 0.0);
}

#[test]
fn morph_targets_and_sparse_accessors_apply_on_the_cpu() {
    let mut b = Builder::new();
    let pos = b.floats(&TRI);
    // Target 0 lifts every vertex by 2 in Z; mesh default weight 0.5.
    let d = b.floats(&[[0.0, 0.0, 2.0]; 3]);
    let mesh = b.push(
        "meshes",
        json!({"primitives": [{"attributes": {"POSITION": pos}, "targets": [{"POSITION": d}]}],
               "weights": [0.5]}),
    );
    let node = b.root_node(json!({"mesh": mesh}));
    let t = b.scalars(&[0.0, 1.0]);
    let w = b.scalars(&[0.0, 1.0]);
    b.push(
        "animations",
        json!({"name": "lift", "channels": [{"sampler": 0, "target": {"node": node, "path": "weights"}}],
               "samplers": [{"input": t, "output": w}]}),
    );
    // A sparse accessor: zeros with element 1 replaced by (5, 6, 7).
    let idx = b.view(&1u16.to_le_bytes());
    let vals: Vec<u8> = [5.0f32, 6.0, 7.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let vals = b.view(&vals);
    let sparse = b.push(
        "accessors",
        json!({"componentType": 5126, "type": "VEC3", "count": 3, "min": [0,0,0], "max": [5,6,7],
               "sparse": {"count": 1, "indices": {"bufferView": idx, "componentType": 5123},
                          "values": {"bufferView": vals}}}),
    );
    one_mesh(
        &mut b,
        json!({"attributes": {"POSITION": sparse}}),
        json!({}),
    );
    let m = load_bytes("morph.glb", &b.glb());
    assert!(m.info().contains("1 morph targets"));
    let rest = pose(&m, None, 0);
    assert!(close(rest.vertices[0].position, [0.0, 0.0, 1.0]));
    // Frame 15 = t 0.5: the animated weight is 0.5 too; frame 29 ≈ 0.967 → z ≈ 1.93.
    let late = pose(&m, Some(0), 29);
    assert!((late.vertices[0].position[2] - 2.0 * 29.0 / 30.0).abs() < 1e-4);
    assert!(close(rest.vertices[4].position, [5.0, 6.0, 7.0]));
    assert!(close(rest.vertices[3].position, [0.0, 0.0, 0.0]));
}

#[test]
fn embedded_and_external_buffers_load_like_the_glb() {
    let mut b = Builder::new();
    let pos = b.floats(&TRI);
    let img = b.png(2, 2, &[[255, 0, 0, 255]; 4]);
    let mat = b.textured_material(img, json!({}));
    let uv = b.floats(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
    one_mesh(
        &mut b,
        json!({"attributes": {"POSITION": pos, "TEXCOORD_0": uv}, "material": mat}),
        json!({}),
    );
    let glb = load_bytes("buffers.glb", &b.glb());
    let emb = load_bytes("embedded.gltf", &b.gltf_embedded());
    std::fs::write(cli_run::tmp("gltf", "ext data.bin"), &b.bin).unwrap();
    let ext = load_bytes("external.gltf", &b.gltf_external("ext%20data.bin"));
    assert_eq!(emb.buffers[0].0, "data URI");
    assert_eq!(ext.buffers[0].0, "ext%20data.bin");
    let want = pose(&glb, None, 0);
    assert_eq!(pose(&emb, None, 0), want);
    assert_eq!(pose(&ext, None, 0), want);
    assert_eq!(want.textures[0].image.pixels[0], [255, 0, 0, 255]);
}

#[test]
fn smooth_normals_are_averaged_on_request_and_flat_otherwise() {
    let mut b = Builder::new();
    // Two triangles folded 90° along the X axis, sharing the edge (0,0,0)-(1,0,0).
    let pos = b.floats(&[
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0],
    ]);
    one_mesh(&mut b, json!({"attributes": {"POSITION": pos}}), json!({}));
    let data = b.glb();
    let flat = load_bytes("fold.glb", &data);
    assert_eq!(pose(&flat, None, 0).vertices[0].normal, [0.0; 3]);
    let path = cli_run::tmp("gltf", "fold.glb");
    let smooth = gltf::load(
        &path,
        &data,
        &LoadOptions {
            smooth_normals: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    // Face normals +Z (first) and +Y (second, (1,0,0)-(0,0,0)-(0,0,1)): the shared edge's
    // vertices average to (0, h, h); the others keep their own face's.
    let p = pose(&smooth, None, 0);
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert!(
        close(p.vertices[0].normal, [0.0, h, h]),
        "{:?}",
        p.vertices[0]
    );
    assert!(close(p.vertices[2].normal, [0.0, 0.0, 1.0]));
    assert!(close(p.vertices[5].normal, [0.0, 1.0, 0.0]));
    assert!(smooth.info().contains("computed smooth"));
}
