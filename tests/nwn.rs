//! NWN MDL loader on the real samples in ../shared/samples/nwn, plus a bad-input corpus
//! (truncation at every offset, seeded byte flips).

mod common;

use std::path::{Path, PathBuf};

use psxrender::formats::images::ImageAllowance;
use psxrender::formats::nwn::{self, textures, NWNModel};
use psxrender::formats::{dds, plt, LoadOptions};
use psxrender::scene::{Blend, FaceTexture, Model, PoseRequest};

fn sample(name: &str) -> PathBuf {
    common::shared(&format!("samples/nwn/{name}"))
}

fn load(path: &Path, opts: &LoadOptions) -> NWNModel {
    let data = std::fs::read(path).unwrap();
    nwn::load(path, &data, opts).unwrap_or_else(|e| panic!("{e}"))
}

fn assert_finite(model: &NWNModel, request: &PoseRequest) {
    let pose = model.pose(request);
    for (i, v) in pose.vertices.iter().enumerate() {
        assert!(
            v.position.iter().all(|x| x.is_finite()),
            "vertex {i} not finite: {v:?}"
        );
    }
    for f in &pose.faces {
        assert!(f.vertices[..3]
            .iter()
            .all(|&v| (v as usize) < pose.vertices.len()));
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn it_torch_000_facts() {
    let p = sample("it_torch_000.mdl");
    let m = load(&p, &LoadOptions::default());
    let kinds: Vec<&str> = m.mdl.nodes.iter().map(|n| n.kind.name()).collect();
    assert_eq!(kinds, ["dummy", "trimesh", "emitter", "emitter"]);
    assert_eq!(m.drawn_counts(), (1, 143, 110));
    let emitters: Vec<String> = m.mdl.nodes[2..]
        .iter()
        .map(|n| n.detail.describe())
        .collect();
    assert!(emitters[0].contains("texture fxpa_smoke01"), "{emitters:?}");
    assert!(
        emitters[1].contains("blend Lighten, texture fxpa_Flame00"),
        "{emitters:?}"
    );
    let names: Vec<(String, u32)> = m
        .animations()
        .into_iter()
        .map(|a| (a.name, a.duration_ms))
        .collect();
    assert_eq!(
        names,
        [("equip".to_string(), 100), ("unequip".to_string(), 100)]
    );
    // The mesh's texture, then the two emitters' particle textures.
    let names: Vec<&str> = m.textures.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["W_metal_tex", "fxpa_smoke01", "fxpa_Flame00"]);
    let path = m.textures[0]
        .path
        .as_ref()
        .expect("w_metal_tex.tga found case-insensitively");
    assert!(path.ends_with("w_metal_tex.tga"), "{}", path.display());
    assert!(m.textures[0].txi.contains("envmaptexture ttr01__ref01"));
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    let pose = m.pose(&PoseRequest::default());
    assert_eq!((pose.vertices.len(), pose.faces.len()), (143, 110));
    assert!(pose
        .faces
        .iter()
        .all(|f| matches!(f.texture, FaceTexture::Image { texture: 0, .. })));
    assert_finite(
        &m,
        &PoseRequest {
            animation: Some(1),
            frame: 2,
            camera: None,
        },
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn ttd01_tile_facts_and_aabb_not_drawn() {
    let p = sample("ttd01_a04_03.mdl");
    let m = load(&p, &LoadOptions::default());
    assert_eq!(m.mdl.classification, 2);
    let count = |k: &str| m.mdl.nodes.iter().filter(|n| n.kind.name() == k).count();
    assert_eq!((count("trimesh"), count("aabb"), count("light")), (9, 1, 2));
    assert_eq!(m.mdl.nodes.len(), 13);
    let aabb = m
        .mdl
        .nodes
        .iter()
        .find(|n| n.kind.name() == "aabb")
        .unwrap();
    assert_eq!(aabb.name, "Line580");
    let walk = aabb.mesh.as_ref().unwrap();
    assert_eq!(
        (walk.vertices.len(), walk.faces.len(), walk.render),
        (93, 53, false)
    );
    assert_eq!(m.drawn_counts(), (9, 244, 128));
    let pose = m.pose(&PoseRequest::default());
    assert_eq!(
        pose.faces.len(),
        128,
        "the walkmesh's 53 faces are not drawn"
    );
    let tex: Vec<(&str, &str)> = m
        .textures
        .iter()
        .map(|t| {
            let f = t
                .path
                .as_ref()
                .unwrap()
                .file_name()
                .unwrap()
                .to_str()
                .unwrap();
            (t.name.as_str(), f)
        })
        .collect();
    assert_eq!(
        tex,
        [
            ("ttd01_cliff02", "ttd01_cliff02.tga"),
            ("ttd01_floor01", "ttd01_floor01.tga"),
            ("ttd01_cliff01", "ttd01_cliff01.dds"),
            ("Black", "black.tga"),
        ],
        "DDS is preferred over TGA"
    );
    let cliff = &m.textures[2].image;
    assert_eq!((cliff.width, cliff.height), (512, 512));
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    assert!(m
        .info()
        .contains("aabb 'Line580' part 5: 93 verts, 53 faces"));
    assert!(m.info().contains("(not drawn)"));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn tiles_prefer_the_game_camera_creatures_the_default_view() {
    let (tile, creature) = (sample("ttd01_a04_03.mdl"), sample("it_torch_000.mdl"));
    let opts = LoadOptions::default();
    assert_eq!(load(&tile, &opts).preferred_view(), Some((200.0, 50.0)));
    assert_eq!(load(&creature, &opts).preferred_view(), None);
}

/// c_aribeth's 49 animations have their node trees read from a_fa when first drawn, each the
/// tree a whole parse of a_fa reads, and nothing of them before.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn c_aribeth_reads_each_animation_tree_when_drawn_as_the_whole_parse_does() {
    let m = load(&sample("c_aribeth.mdl"), &LoadOptions::default());
    let a_fa = nwn::parse(&std::fs::read(sample("a_fa.mdl")).unwrap(), &mut Vec::new()).unwrap();
    assert_eq!(m.animations.len(), a_fa.animations.len());
    for (i, whole) in a_fa.animations.iter().enumerate() {
        let pa = &m.animations[i];
        assert!(
            pa.animation.nodes.is_empty(),
            "{}: read at load",
            whole.name
        );
        assert_eq!(
            (
                &pa.animation.name,
                pa.animation.length,
                &pa.animation.events
            ),
            (&whole.name, whole.length, &whole.events)
        );
        // Compared as text: a_fa's dangly nodes hold NaN displacements, never equal to NaN.
        let read = format!("{:?}", m.keyed(i).unwrap().nodes);
        assert!(read == format!("{:?}", whole.nodes), "{}", whole.name);
    }
    assert!(m.warnings().iter().all(|w| !w.contains("failed to load")));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn c_aribeth_animations_come_from_a_fa() {
    let p = sample("c_aribeth.mdl");
    let m = load(&p, &LoadOptions::default());
    assert_eq!(m.mdl.supermodel.as_deref(), Some("a_fa"));
    assert_eq!(m.mdl.header_node_count, 133);
    assert_eq!(m.mdl.nodes.len(), 27);
    assert!((m.mdl.animation_scale - 0.894).abs() < 1e-4);
    assert_eq!(m.drawn_counts(), (18, 1969, 1242));
    let dangly = m
        .mdl
        .nodes
        .iter()
        .filter(|n| n.kind.name() == "danglymesh")
        .count();
    assert_eq!(dangly, 2);
    let torso = m.mdl.nodes.iter().find(|n| n.name == "torso_g").unwrap();
    let psxrender::formats::nwn::mdl::NodeDetail::Dangly {
        constraints,
        weights,
        displacement,
        tightness,
        period,
    } = &torso.detail
    else {
        panic!("torso_g is a dangly mesh: {:?}", torso.detail)
    };
    assert_eq!(
        (*constraints, *displacement, *tightness, *period),
        (327, 0.02, 4.0, 6.0)
    );
    // One constraint per vertex, 0 (held) … 255 (free).
    assert_eq!(weights.len(), 327);
    assert!(weights.iter().all(|w| (0.0..=255.0).contains(w)));
    assert!(weights.iter().any(|w| *w > 0.0) && weights.contains(&0.0));
    assert!(
        m.mdl.animations.is_empty(),
        "c_aribeth itself holds no animations"
    );
    let anims = m.animations();
    assert_eq!(anims.len(), 49);
    assert!(m.animations.iter().all(|a| a.source == "a_fa"));
    let find = |n: &str| {
        anims
            .iter()
            .find(|a| a.name == n)
            .unwrap_or_else(|| panic!("{n}"))
    };
    assert_eq!((find("walk").frames, find("walk").duration_ms), (30, 1000));
    assert_eq!((find("run").frames, find("run").duration_ms), (24, 800));
    assert_eq!(find("pause1").duration_ms, 2000);
    assert_eq!(find("taunt").duration_ms, 2167);
    assert_eq!(m.chain.len(), 2);
    assert!(m.chain[0].path.is_some() && m.chain[0].animations == 49);
    assert_eq!(m.chain[1].name, "a_ba");
    assert_eq!(m.textures.len(), 1);
    let tex = &m.textures[0];
    assert!(tex.path.as_ref().unwrap().ends_with("c_aribeth.dds"));
    assert_eq!((tex.image.width, tex.image.height), (512, 512));
    // Walking moves the mesh; the rest pose is the bind pose.
    let walk = m.find_animation("walk").unwrap();
    let rest = m.pose(&PoseRequest::default());
    let w10 = m.pose(&PoseRequest {
        animation: Some(walk),
        frame: 10,
        camera: None,
    });
    assert_eq!(rest.vertices.len(), w10.vertices.len());
    let moved = rest
        .vertices
        .iter()
        .zip(&w10.vertices)
        .filter(|(a, b)| a.position != b.position)
        .count();
    assert!(moved > 1000, "walk frame 10 moved only {moved} vertices");
    assert!(rest
        .faces
        .iter()
        .all(|f| f.blend == Blend::Opaque && !f.two_sided));
    for (i, _) in anims.iter().enumerate().step_by(7) {
        assert_finite(
            &m,
            &PoseRequest {
                animation: Some(i),
                frame: 13,
                camera: None,
            },
        );
    }
    let info = m.info();
    assert!(
        info.contains("supermodel chain: c_aribeth -> a_fa ("),
        "{info}"
    );
    assert!(info.contains("walk: 1.000 s (30 frames)"), "{info}");
    assert!(info.contains("from a_fa"), "{info}");
}

/// The figure stands up +Y and faces +Z: feet low, head high, right hand on −X.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn c_aribeth_stands_up_and_faces_plus_z() {
    let p = sample("c_aribeth.mdl");
    let m = load(&p, &LoadOptions::default());
    let pose = m.pose(&PoseRequest::default());
    let mut base = 0;
    let mut centre = std::collections::HashMap::new();
    for n in &m.mdl.nodes {
        let Some(mesh) = n.mesh.as_ref().filter(|m| m.render && !m.faces.is_empty()) else {
            continue;
        };
        let vs = &pose.vertices[base..base + mesh.vertices.len()];
        let c = vs.iter().fold([0.0f32; 3], |a, v| {
            [
                a[0] + v.position[0],
                a[1] + v.position[1],
                a[2] + v.position[2],
            ]
        });
        centre.insert(n.name.to_ascii_lowercase(), c.map(|x| x / vs.len() as f32));
        base += mesh.vertices.len();
    }
    let head = centre["head_g"];
    let foot = centre["rfoot_g"];
    let rhand = centre["rhand_g"];
    let lhand = centre["lhand_g"];
    assert!(head[1] > foot[1] + 1.0, "head {head:?} above foot {foot:?}");
    assert!(
        rhand[0] < 0.0 && lhand[0] > 0.0,
        "facing +Z, her right is −X: {rhand:?} {lhand:?}"
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn c_satyrarcher_reports_its_missing_supermodel_and_still_renders() {
    let p = sample("c_satyrarcher.mdl");
    let m = load(&p, &LoadOptions::default());
    assert_eq!(m.mdl.supermodel.as_deref(), Some("a_ba"));
    let w = m.warnings().join("\n");
    assert!(w.contains("supermodel 'a_ba' MISSING"), "{w}");
    assert!(w.contains("rest pose"), "{w}");
    assert!(w.contains("texture 'c_satyr2' MISSING"), "{w}");
    assert!(m.animations().is_empty());
    assert!(m.info().contains("a_ba (MISSING)"));
    assert!(m.info().contains("c_satyr2 -> MISSING"));
    let skins: Vec<_> = m
        .mdl
        .nodes
        .iter()
        .filter(|n| n.kind.name() == "skin")
        .collect();
    assert_eq!(skins.len(), 1);
    let mesh = skins[0].mesh.as_ref().unwrap();
    assert_eq!((mesh.vertices.len(), mesh.faces.len()), (964, 1250));
    assert!(mesh.skin.iter().all(|l| !l.is_empty() && l.len() <= 4));
    let mut bones: Vec<&str> = mesh
        .skin
        .iter()
        .flatten()
        .map(|l| m.mdl.nodes[l.0].name.as_str())
        .collect();
    bones.sort_unstable();
    bones.dedup();
    assert_eq!(bones.len(), 16);
    assert!(
        bones.iter().all(|b| b.ends_with("_g")),
        "bones are the _g meshes: {bones:?}"
    );
    // Only the skin is drawn (the _g parts have render 0); it renders with the fallback texture.
    assert_eq!(m.drawn_counts(), (1, 964, 1250));
    let pose = m.pose(&PoseRequest::default());
    assert_eq!(*pose.textures[0].image, textures::fallback());
    assert_finite(&m, &PoseRequest::default());
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn c_satyr_ascii_facts() {
    let p = sample("c_satyr.ascii.mdl");
    let data = std::fs::read(&p).unwrap();
    assert_eq!(
        psxrender::detect::identify(&data),
        Ok(psxrender::detect::Kind::NwnAscii)
    );
    let m = load(&p, &LoadOptions::default());
    assert!(m.mdl.ascii);
    assert_eq!(m.mdl.name, "c_satyr");
    assert_eq!(m.mdl.supermodel.as_deref(), Some("a_ba"));
    assert_eq!(m.mdl.classification, 4);
    assert!((m.mdl.animation_scale - 1.14).abs() < 1e-4);
    assert_eq!(m.mdl.nodes.len(), 25);
    let skin = m.mdl.nodes.iter().find(|n| n.name == "bodymesh_g").unwrap();
    assert_eq!(skin.kind.name(), "skin");
    let mesh = skin.mesh.as_ref().unwrap();
    assert_eq!((mesh.vertices.len(), mesh.faces.len()), (530, 1039));
    assert_eq!(mesh.textures[0], "c_satyr");
    assert_eq!(mesh.skin.len(), 530);
    let pelvis = m.mdl.nodes.iter().find(|n| n.name == "pelvis_g").unwrap();
    assert_eq!(pelvis.part, 17);
    assert_eq!(m.drawn_counts(), (1, 530, 1039));
    assert!(m
        .warnings()
        .iter()
        .any(|w| w.contains("supermodel 'a_ba' MISSING")));
    assert_finite(&m, &PoseRequest::default());
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn plt_head_composites_from_palettes() {
    let (p, pal) = (sample("pmh0_head001.plt"), sample("pal"));
    let data = std::fs::read(&p).unwrap();
    let plt = plt::parse(&data).unwrap();
    assert_eq!((plt.width, plt.height), (256, 256));
    assert!(plt.pixels.iter().all(|&(_, g)| g < 10));
    let opts = LoadOptions {
        palette_dir: Some(pal),
        plt_colors: Some([3, 1, 0, 0, 0, 0, 0, 0, 0, 0]),
        ..Default::default()
    };
    let mut warnings = Vec::new();
    let r = textures::resolve(
        "PMH0_HEAD001",
        p.parent().unwrap(),
        &opts,
        &ImageAllowance::default(),
        &mut warnings,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(r.path.unwrap().ends_with("pmh0_head001.plt"));
    assert_eq!((r.image.width, r.image.height), (256, 256));
    // Skin texels are coloured by the skin palette, not the grey-ramp fallback.
    let coloured = r
        .image
        .pixels
        .iter()
        .filter(|p| p[0] != p[1] || p[1] != p[2])
        .count();
    assert!(coloured > 1000, "only {coloured} coloured texels");
    // Another skin row gives other colours.
    let other = textures::resolve(
        "pmh0_head001",
        p.parent().unwrap(),
        &LoadOptions {
            plt_colors: Some([10; 10]),
            ..opts
        },
        &ImageAllowance::default(),
        &mut warnings,
    );
    assert_ne!(other.image, r.image);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn dds_samples_decode() {
    let (a, t) = (sample("c_aribeth.dds"), sample("ttd01_cliff01.dds"));
    let img = dds::decode(&std::fs::read(a).unwrap()).unwrap();
    assert_eq!((img.width, img.height), (512, 512));
    assert!(img.pixels.iter().any(|p| p[3] < 255), "DXT5 carries alpha");
    let img = dds::decode(&std::fs::read(t).unwrap()).unwrap();
    assert_eq!((img.width, img.height), (512, 512));
    assert!(img.pixels.iter().all(|p| p[3] == 255 || p[3] == 0));
}

/// BioWare DDS rows are bottom-up: after the flip the 512² DDS matches the 128² TGA of the
/// same texture far better than unflipped.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn bioware_dds_orientation_matches_the_tga() {
    let (d, t) = (sample("c_aribeth.dds"), sample("c_aribeth.tga"));
    let dds = dds::decode(&std::fs::read(d).unwrap()).unwrap();
    let tga = textures::decode_tga(&std::fs::read(t).unwrap()).unwrap();
    let diff = |flip: bool| {
        let mut s = 0u64;
        for y in 0..128u32 {
            for x in 0..128u32 {
                let dy = if flip { 511 - 4 * y } else { 4 * y };
                let a = tga.pixels[(y * 128 + x) as usize];
                let b = dds.pixels[(dy * 512 + 4 * x) as usize];
                s += (0..3)
                    .map(|k| (a[k] as i32 - b[k] as i32).unsigned_abs() as u64)
                    .sum::<u64>();
            }
        }
        s / (128 * 128)
    };
    let (same, flipped) = (diff(false), diff(true));
    assert!(
        same * 3 < flipped * 2,
        "as decoded {same}, flipped {flipped}"
    );
}

/// A small deterministic generator for the flip corpus.
struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn truncation_at_every_offset_of_it_torch_000_is_a_typed_error() {
    let p = sample("it_torch_000.mdl");
    let data = std::fs::read(&p).unwrap();
    let opts = LoadOptions::default();
    for len in 0..data.len() {
        match nwn::load(&p, &data[..len], &opts) {
            Ok(_) => panic!("truncated to {len} bytes still loaded"),
            Err(e) => {
                assert!(e.offset <= data.len() as u64, "len {len}: {e}");
                assert!(e.file.is_some(), "len {len}: no file named: {e}");
                assert!(e.to_string().contains("at byte 0x"), "{e}");
            }
        }
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn random_byte_flips_of_every_sample_never_panic() {
    let dir = sample("");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.extend(
        std::fs::read_dir(dir.join("pal"))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path())),
    );
    files.sort();
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut tried = 0;
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let ext = f
            .extension()
            .unwrap()
            .to_str()
            .unwrap()
            .to_ascii_lowercase();
        // Big files get fewer rounds to keep the test fast.
        let rounds = if data.len() > 1 << 20 { 12 } else { 60 };
        for _ in 0..rounds {
            let mut d = data.clone();
            let flips = 1 + rng.next() % 8;
            for _ in 0..flips {
                // Bias half the flips into the first 4 KiB, where the headers live.
                let span = if rng.next().is_multiple_of(2) {
                    d.len().min(4096)
                } else {
                    d.len()
                };
                let i = (rng.next() % span as u64) as usize;
                d[i] ^= 1 << (rng.next() % 8);
            }
            tried += 1;
            match ext.as_str() {
                "mdl" => {
                    if let Ok(m) = nwn::parse(&d, &mut Vec::new()) {
                        // Pose it too: no panic on whatever the flips left behind.
                        let model = nwn_model_from(f, &d);
                        if let Some(model) = model {
                            let _ = model.pose(&PoseRequest::default());
                            if !model.animations().is_empty() {
                                let _ = model.pose(&PoseRequest {
                                    animation: Some(0),
                                    frame: 7,
                                    camera: None,
                                });
                            }
                        }
                        let _ = m;
                    }
                }
                "dds" => {
                    let _ = dds::decode(&d);
                }
                "plt" => {
                    let _ = plt::parse(&d);
                }
                "tga" => {
                    let _ = textures::decode_tga(&d);
                }
                _ => {}
            }
        }
    }
    assert!(tried > 500, "{tried}");
}

/// Loads flipped bytes as a model without following the supermodel chain (a_fa is large:
/// the parse of every flip is covered by `nwn::parse` above).
fn nwn_model_from(path: &Path, data: &[u8]) -> Option<NWNModel> {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nwn-flip");
    let _ = std::fs::create_dir_all(&scratch);
    let fake = scratch.join(path.file_name()?);
    nwn::load(&fake, data, &LoadOptions::default()).ok()
}

/// Twenty copies of c_aribeth with 4 random bit flips each (ten anywhere, ten in the headers),
/// loaded with its supermodel chain: each either loads, and then poses to a mesh whose faces
/// index its own vertices and textures, or fails with an error naming a file and an offset
/// inside it. With this seed both happen (17 load, 3 are refused), so both checks ran.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn flipped_c_aribeth_with_its_supermodel_loads_or_fails_cleanly() {
    let p = sample("c_aribeth.mdl");
    let data = std::fs::read(&p).unwrap();
    let mut rng = XorShift(42);
    let (mut loaded, mut failed) = (0, 0);
    for round in 0..20 {
        let mut d = data.clone();
        // Rounds 10.. flip inside the first 512 bytes (the file and model headers), so some
        // copies are refused and the error path is checked too.
        let span = if round < 10 {
            d.len()
        } else {
            d.len().min(512)
        };
        for _ in 0..4 {
            let i = (rng.next() % span as u64) as usize;
            d[i] ^= 1 << (rng.next() % 8);
        }
        match nwn::load(&p, &d, &LoadOptions::default()) {
            Ok(m) => {
                loaded += 1;
                let pose = m.pose(&PoseRequest {
                    animation: (!m.animations().is_empty()).then_some(0),
                    frame: 5,
                    camera: None,
                });
                for f in &pose.faces {
                    let corners = &f.vertices[..f.corners as usize];
                    assert!(
                        corners.iter().all(|&v| (v as usize) < pose.vertices.len()),
                        "round {round}: face {f:?} indexes past {} vertices",
                        pose.vertices.len()
                    );
                    if let FaceTexture::Image { texture, .. } = f.texture {
                        assert!(texture < pose.textures.len(), "round {round}: {f:?}");
                    }
                }
            }
            Err(e) => {
                failed += 1;
                let file = e
                    .file
                    .as_ref()
                    .unwrap_or_else(|| panic!("round {round}: {e}"));
                // The named file is the flipped model itself or a supermodel read from disk.
                let len = match file == &p {
                    true => d.len() as u64,
                    false => std::fs::metadata(file).map_or(u64::MAX, |m| m.len()),
                };
                assert!(e.offset <= len, "round {round}: offset past the file: {e}");
            }
        }
    }
    println!("{loaded} flipped copies loaded and posed, {failed} refused");
    assert!(
        loaded > 0,
        "no flipped copy loaded: the posed-mesh checks ran on nothing"
    );
    assert!(
        failed > 0,
        "no flipped copy was refused: the error checks ran on nothing"
    );
}
