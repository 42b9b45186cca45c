//! glTF bad input: truncation at every offset of BoxTextured.glb, seeded byte flips of every
//! sample file, and a corpus of broken documents from the writer. Each must fail with a typed
//! error naming the file and the JSON path or byte offset — never a panic — and no load may
//! allocate past a bound derived from its input's size: this test binary counts every
//! allocation and checks the peak of each load.
mod cli_run;
mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use psxrender::formats::gltf::writer::Builder;
use psxrender::formats::gltf::{self, BUDGET_BASE, BUDGET_PER_INPUT_BYTE};
use psxrender::formats::{ErrorKind, LoadError, LoadOptions};
use psxrender::scene::{Model, PoseRequest};
use serde_json::json;

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let now = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                    + (new_size - layout.size());
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One test at a time, so the peak belongs to the load being measured.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The bound every load must stay under: the loader's own budget for `input` bytes, twice over
/// (the budget counts what the file describes; the allocator also sees the decoders' working
/// memory and the posed frame).
fn memory_bound(input: usize) -> usize {
    2 * (BUDGET_BASE as usize + input * BUDGET_PER_INPUT_BYTE as usize)
}

/// Loads `data` as `path` (plus posing and `info` when it loads), asserting the allocation
/// peak stays under the bound for `input` bytes of input; returns the load's result.
fn measured(path: &Path, data: &[u8], input: usize) -> Result<(), LoadError> {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let r = gltf::load(path, data, &LoadOptions::default()).map(|m| {
        for a in [None, Some(0)] {
            let _ = m.pose(&PoseRequest {
                animation: a,
                frame: 7,
                camera: None,
            });
        }
        let _ = m.info();
    });
    let peak = PEAK.load(Ordering::Relaxed) - before;
    assert!(
        peak <= memory_bound(input),
        "{}: peak {peak} bytes over the bound {}",
        path.display(),
        memory_bound(input)
    );
    r
}

fn sample(name: &str) -> PathBuf {
    common::shared(&format!("samples/gltf/{name}"))
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn truncation_at_every_offset_of_box_textured_is_a_clean_error() {
    let _g = serial();
    let p = sample("BoxTextured.glb");
    let data = std::fs::read(&p).unwrap();
    let path = cli_run::tmp("gltf-bad", "box.glb");
    for len in 0..data.len() {
        match measured(&path, &data[..len], len) {
            Ok(()) => panic!("loaded when cut to {len} of {} bytes", data.len()),
            Err(e) => {
                assert!(e.file.as_deref() == Some(path.as_path()), "at {len}: {e}");
                assert!(e.offset <= data.len() as u64, "at {len}: {e}");
            }
        }
    }
    // The whole file loads.
    measured(&path, &data, data.len()).unwrap();
}

#[test]
fn truncation_of_a_gltf_json_file_is_a_clean_error() {
    let _g = serial();
    let data = fixture().gltf_embedded();
    let path = cli_run::tmp("gltf-bad", "cut.gltf");
    let mut refused = 0;
    for len in 0..data.len() {
        if let Err(e) = measured(&path, &data[..len], len) {
            assert!(e.offset <= len as u64, "at {len}: {e}");
            refused += 1;
        }
    }
    // Only a cut in the trailing white space can still be a whole document.
    assert!(refused >= data.len() - 2, "{refused} of {}", data.len());
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

/// Flips 1–8 random bits of `data`, half the rounds within the first `head` bytes.
fn flip(rng: &mut Rng, data: &[u8], round: usize, head: usize) -> Vec<u8> {
    let mut d = data.to_vec();
    let span = if round.is_multiple_of(2) {
        d.len().min(head)
    } else {
        d.len()
    } as u64;
    for _ in 0..1 + rng.next() % 8 {
        let at = (rng.next() % span) as usize;
        d[at] ^= 1 << (rng.next() % 8);
    }
    d
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn seeded_byte_flips_of_every_sample_never_panic() {
    let _g = serial();
    let (fox, boxt, sep) = (
        sample("Fox.glb"),
        sample("BoxTextured.glb"),
        sample("Fox-separate"),
    );
    let mut rng = Rng(0x676c_5446_6c69_7073);
    let (mut ok, mut err) = (0, 0);
    let mut tally = |r: Result<(), LoadError>, what: &str, len: usize| match r {
        Ok(()) => ok += 1,
        Err(e) => {
            assert!(e.file.is_some(), "{what}: {e}");
            assert!(e.offset <= len as u64 + 16, "{what}: {e}");
            err += 1;
        }
    };
    // The binary files: flips anywhere, half of them in the header and JSON chunk.
    for (p, rounds, head) in [(&fox, 120, 4096), (&boxt, 300, 1500)] {
        let data = std::fs::read(p).unwrap();
        let path = cli_run::tmp("gltf-bad", "flipped.glb");
        for round in 0..rounds {
            let d = flip(&mut rng, &data, round, head);
            tally(
                measured(&path, &d, d.len()),
                &format!("{} round {round}", p.display()),
                d.len(),
            );
        }
    }
    // The separate files: each of .gltf, .bin and .png flipped in turn, in a scratch copy.
    let dir = cli_run::tmp("gltf-bad", "fox-separate");
    std::fs::create_dir_all(&dir).unwrap();
    let files = ["Fox.gltf", "Fox.bin", "Texture.png"];
    let originals: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(sep.join(f)).unwrap())
        .collect();
    let total: usize = originals.iter().map(Vec::len).sum();
    for (k, name) in files.iter().enumerate() {
        for round in 0..40 {
            for (j, other) in files.iter().enumerate() {
                let bytes = if j == k {
                    flip(&mut rng, &originals[j], round, 2048)
                } else {
                    originals[j].clone()
                };
                std::fs::write(dir.join(other), bytes).unwrap();
            }
            let gltf_path = dir.join("Fox.gltf");
            let data = std::fs::read(&gltf_path).unwrap();
            tally(
                measured(&gltf_path, &data, total + 64),
                &format!("{name} round {round}"),
                total,
            );
        }
    }
    eprintln!("byte flips: {ok} loaded, {err} refused");
    assert!(ok > 50 && err > 50, "{ok} loaded, {err} refused");
}

// ---------------------------------------------------------------------------------------------
// The corpus

/// A small valid document: a textured triangle with a skin and an animation.
fn fixture() -> Builder {
    let mut b = Builder::new();
    let pos = b.floats(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let uv = b.floats(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
    let joints = b.u16s(&[0; 12], "VEC4", 3);
    let weights = b.floats(&[[1.0, 0.0, 0.0, 0.0]; 3]);
    let img = b.png(2, 2, &[[10, 200, 30, 255]; 4]);
    let mat = b.textured_material(img, json!({}));
    let idx = b.u16s(&[0, 1, 2], "SCALAR", 3);
    let mesh = b.push(
        "meshes",
        json!({"primitives": [{"attributes": {"POSITION": pos, "TEXCOORD_0": uv,
            "JOINTS_0": joints, "WEIGHTS_0": weights}, "indices": idx, "material": mat}]}),
    );
    let joint = b.root_node(json!({"name": "joint"}));
    b.push("skins", json!({"joints": [joint]}));
    b.root_node(json!({"mesh": mesh, "skin": 0}));
    let t = b.scalars(&[0.0, 1.0]);
    let v = b.floats(&[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    b.push(
        "animations",
        json!({"name": "bob", "channels": [{"sampler": 0, "target": {"node": joint, "path": "translation"}}],
               "samplers": [{"input": t, "output": v}]}),
    );
    b
}

fn load_err(name: &str, data: &[u8]) -> LoadError {
    let path = cli_run::tmp("gltf-bad", name);
    match measured(&path, data, data.len()) {
        Ok(()) => panic!("{name} loaded"),
        Err(e) => {
            assert_eq!(e.file.as_deref(), Some(path.as_path()), "{name}: {e}");
            e
        }
    }
}

/// The error's message, which must name `path` (a JSON path) and say `what`.
fn expect_json(name: &str, b: &Builder, path: &str, what: &str) {
    let e = load_err(name, &b.glb());
    let msg = e.to_string();
    assert!(matches!(e.kind, ErrorKind::Json { .. }), "{name}: {msg}");
    assert!(msg.contains(path) && msg.contains(what), "{name}: {msg}");
    assert!(msg.contains(name), "{name}: {msg}");
}

#[test]
fn the_fixture_itself_loads() {
    let _g = serial();
    let b = fixture();
    let path = cli_run::tmp("gltf-bad", "fixture.glb");
    measured(&path, &b.glb(), b.glb().len()).unwrap();
    let m = gltf::load(&path, &b.glb(), &LoadOptions::default()).unwrap();
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
}

#[test]
fn broken_documents_fail_with_their_json_path() {
    let _g = serial();
    // Accessor past the end of its buffer view.
    let mut b = fixture();
    b.root["accessors"][0]["count"] = json!(4);
    expect_json(
        "acc.glb",
        &b,
        "accessors[0]",
        "run past the end of bufferViews[0]",
    );
    // Buffer view past the end of its buffer.
    let mut b = fixture();
    b.root["bufferViews"][1]["byteLength"] = json!(1_000_000);
    expect_json("view.glb", &b, "bufferViews[1]", "outside buffers[0]");
    // A node cycle: 0 → 1 → 0.
    let mut b = fixture();
    b.root["nodes"][0]["children"] = json!([1]);
    b.root["nodes"][1]["children"] = json!([0]);
    expect_json("cycle.glb", &b, "nodes[", "cycle");
    // A node that is its own child, and one with two parents.
    let mut b = fixture();
    b.root["nodes"][0]["children"] = json!([0]);
    expect_json("self.glb", &b, "nodes[0].children", "its own child");
    let mut b = fixture();
    b.push("nodes", json!({"children": [0]}));
    b.push("nodes", json!({"children": [0]}));
    expect_json("twoparents.glb", &b, "nodes[3].children", "already a child");
    // A skin naming a node that does not exist (the crate's validation).
    let mut b = fixture();
    b.root["skins"][0]["joints"] = json!([0, 99]);
    expect_json("skin.glb", &b, "skins[0].joints[1]", "index out of range");
    // JOINTS_0 past the skin's joints.
    let mut b = fixture();
    let j = b.u16s(&[0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0], "VEC4", 3);
    b.root["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = json!(j);
    expect_json(
        "joint.glb",
        &b,
        "JOINTS_0",
        "joint 5 is past skins[0]'s 1 joints",
    );
    // An index past the vertices.
    let mut b = fixture();
    let i = b.u16s(&[0, 1, 7], "SCALAR", 3);
    b.root["meshes"][0]["primitives"][0]["indices"] = json!(i);
    expect_json(
        "index.glb",
        &b,
        "primitives[0].indices",
        "index 7 is past the 3 vertices",
    );
    // POSITION naming an accessor that does not exist (the crate's validation would index it
    // unchecked).
    let mut b = fixture();
    b.root["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(999);
    expect_json(
        "position.glb",
        &b,
        "attributes.POSITION",
        "accessor 999 does not exist",
    );
    // An absurd count: a sparse accessor with no data behind it claims 2^31 elements.
    let mut b = fixture();
    let iv = b.view(&[0, 0]);
    let vv = b.view(&[0; 12]);
    b.push(
        "accessors",
        json!({"componentType": 5126, "type": "VEC3", "count": 2147483648u64, "min": [0,0,0], "max": [0,0,0],
               "sparse": {"count": 1, "indices": {"bufferView": iv, "componentType": 5123}, "values": {"bufferView": vv}}}),
    );
    let n = b.root["accessors"].as_array().unwrap().len() - 1;
    b.root["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(n);
    expect_json(
        "huge.glb",
        &b,
        &format!("accessors[{n}].count"),
        "more than the limit",
    );
    // Animation output too short for its keys.
    let mut b = fixture();
    let short = b.floats(&[[0.0, 0.0, 0.0]]);
    b.root["animations"][0]["samplers"][0]["output"] = json!(short);
    expect_json(
        "keys.glb",
        &b,
        "animations[0].samplers[0]",
        "2 keys need 2 output elements",
    );
    // A URI with a bad %-escape, and with a scheme.
    let mut b = fixture();
    b.root["images"][0] = json!({"uri": "tex%FF.png"});
    expect_json("uri.glb", &b, "images[0].uri", "not UTF-8");
    let mut b = fixture();
    b.root["images"][0] = json!({"uri": "http://example.invalid/t.png"});
    expect_json("scheme.glb", &b, "images[0].uri", "scheme");
    // An image that is not PNG or JPEG: a warning and the checkerboard, as NWN and M2 do.
    let mut b = fixture();
    let junk = b.view(b"GIF89a not really");
    b.root["images"][0] = json!({"bufferView": junk});
    let path = cli_run::tmp("gltf-bad", "junk.glb");
    let m = gltf::load(&path, &b.glb(), &LoadOptions::default()).unwrap();
    assert_eq!(
        m.warnings(),
        [format!(
            "images[0] (bufferViews[{junk}]) cannot be decoded: not a PNG or JPEG image \
             (mimeType not given); drawn as a magenta checkerboard"
        )]
    );
    assert_eq!(
        *m.images[0].texture.as_ref().unwrap().image,
        psxrender::formats::images::checkerboard(16)
    );
    // A required extension nobody implements.
    let mut b = fixture();
    b.root.insert(
        "extensionsRequired".into(),
        json!(["EXT_meshopt_compression"]),
    );
    expect_json("ext.glb", &b, "extensionsRequired[0]", "not supported");
}

#[test]
fn missing_files_are_named() {
    let _g = serial();
    let b = fixture();
    let dir = cli_run::tmp("gltf-bad", "missing");
    std::fs::create_dir_all(&dir).unwrap();
    let _ = std::fs::remove_file(dir.join("nowhere.bin"));
    let gltf_path = dir.join("m.gltf");
    let data = b.gltf_external("nowhere.bin");
    let e = gltf::load(&gltf_path, &data, &LoadOptions::default()).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Io(_)), "{e}");
    assert!(e.to_string().contains("nowhere.bin"), "{e}");
    // A short external buffer: its byteLength is checked against the file.
    std::fs::write(dir.join("short.bin"), &b.bin[..10]).unwrap();
    let e = gltf::load(
        &gltf_path,
        &b.gltf_external("short.bin"),
        &LoadOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e.kind, ErrorKind::UnexpectedEof { .. }), "{e}");
    assert_eq!(e.file.as_deref(), Some(dir.join("short.bin").as_path()));
    assert_eq!(e.offset, 10);
    // A missing image file: a warning naming it, and the checkerboard.
    let mut b2 = fixture();
    b2.root["images"][0] = json!({"uri": "gone.png"});
    std::fs::write(dir.join("ok.bin"), &b2.bin).unwrap();
    let m = gltf::load(
        &gltf_path,
        &b2.gltf_external("ok.bin"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(
        m.warnings(),
        [
            "images[0]: image file 'gone.png' not found beside the model; drawn as a magenta \
          checkerboard"
        ]
    );
    assert_eq!(
        m.images[0].encoding,
        "none (missing or undecodable; checkerboard)"
    );
    // A GLB whose buffer wants a BIN chunk it lacks.
    let mut g = fixture().glb();
    let json_len = u32::from_le_bytes(g[12..16].try_into().unwrap()) as usize;
    g.truncate(20 + json_len);
    let n = g.len() as u32;
    g[8..12].copy_from_slice(&n.to_le_bytes());
    let e = load_err("nobin.glb", &g);
    assert!(
        e.to_string().contains("buffers[0]") && e.to_string().contains("BIN"),
        "{e}"
    );
}

#[test]
fn container_and_version_errors_name_the_byte() {
    let _g = serial();
    let g = fixture().glb();
    let mut v1 = g.clone();
    v1[4] = 1;
    let e = load_err("v1.glb", &v1);
    assert!(
        matches!(e.kind, ErrorKind::UnsupportedVersion { .. }) && e.offset == 4,
        "{e}"
    );
    let mut short = g.clone();
    short[8..12].copy_from_slice(&4u32.to_le_bytes());
    assert_eq!(load_err("len.glb", &short).offset, 8);
    let mut chunk = g.clone();
    chunk[16] = b'X';
    assert_eq!(load_err("chunk.glb", &chunk).offset, 16);
    // JSON syntax errors point at their byte.
    let bad = b"{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [}";
    let e = load_err("syntax.gltf", bad);
    assert_eq!(e.offset, 40, "{e}");
    assert!(
        e.to_string()
            .contains("glTF: JSON syntax error at line 1, column 41: expected value at byte 0x28"),
        "{e}"
    );
    // Broken before any "asset" (a file cut short): still glTF, its JSON error named.
    let cut = b"{\n  \"scene\": 0,\n  \"nodes\": [{\"mesh\": ";
    assert_eq!(
        psxrender::detect::identify(cut),
        Ok(psxrender::detect::Kind::Gltf)
    );
    let e = load_err("cut.gltf", cut);
    assert!(
        e.to_string()
            .contains("JSON syntax error at line 3, column 21: EOF while parsing a value"),
        "{e}"
    );
    // glTF 1.0 is recognised as glTF and refused by version.
    let old = br#"{"asset": {"version": "1.0"}}"#;
    let e = load_err("old.gltf", old);
    assert!(
        matches!(e.kind, ErrorKind::UnsupportedVersion { version: 1, .. }),
        "{e}"
    );
    assert_eq!(
        psxrender::detect::identify(old),
        Ok(psxrender::detect::Kind::Gltf)
    );
}

#[test]
fn unsupported_features_warn_and_the_rest_renders() {
    let _g = serial();
    let mut b = fixture();
    b.root
        .insert("extensionsUsed".into(), json!(["KHR_texture_transform"]));
    b.root.insert("samplers".into(), json!([{"wrapS": 33071}]));
    b.root["textures"][0]["sampler"] = json!(0);
    let pos = b.floats(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    b.push(
        "meshes",
        json!({"primitives": [{"attributes": {"POSITION": pos}, "mode": 0}]}),
    );
    b.root_node(json!({"mesh": 1}));
    b.root.insert(
        "cameras".into(),
        json!([{"type": "perspective", "perspective": {"yfov": 1.0, "znear": 0.1}}]),
    );
    let path = cli_run::tmp("gltf-bad", "unsupported.glb");
    let m = gltf::load(&path, &b.glb(), &LoadOptions::default()).unwrap();
    let w = m.warnings().join("\n");
    for want in [
        "KHR_texture_transform",
        "CLAMP_TO_EDGE",
        "Points",
        "cameras",
    ] {
        assert!(w.contains(want), "warnings lack {want}:\n{w}");
    }
    let f = psxrender::render::Renderer::new(&m, &Default::default())
        .unwrap()
        .render(&PoseRequest::default())
        .unwrap();
    assert_eq!(f.stats.drawn, 1);
}

/// Every object key and array element of `v`, as paths.
fn json_slots(v: &serde_json::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut visit = |k: String, x: &serde_json::Value, out: &mut Vec<Vec<String>>| {
        path.push(k);
        out.push(path.clone());
        json_slots(x, path, out);
        path.pop();
    };
    match v {
        serde_json::Value::Object(m) => m.iter().for_each(|(k, x)| visit(k.clone(), x, out)),
        serde_json::Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| visit(format!("#{i}"), x, out)),
        _ => {}
    }
}

fn slot<'a>(v: &'a mut serde_json::Value, path: &[String]) -> &'a mut serde_json::Value {
    path.iter().fold(v, |cur, k| match k.strip_prefix('#') {
        Some(i) => &mut cur[i.parse::<usize>().unwrap()],
        None => &mut cur[k.as_str()],
    })
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn structural_mutations_of_the_fox_json_never_panic() {
    // Byte flips mostly break JSON syntax; these replace values (indices, counts, offsets,
    // enums, whole objects) with hostile ones, so the document parses and reaches the loader.
    let _g = serial();
    let sep = sample("Fox-separate");
    let dir = cli_run::tmp("gltf-bad", "fox-mutated");
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["Fox.bin", "Texture.png"] {
        std::fs::copy(sep.join(f), dir.join(f)).unwrap();
    }
    let text = std::fs::read(sep.join("Fox.gltf")).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&text).unwrap();
    let input = text.len() + 119_904 + 26_764;
    let mut rng = Rng(0x6a73_6f6e_6d75_7421);
    let (mut ok, mut err) = (0, 0);
    for round in 0..400 {
        let mut d = doc.clone();
        for _ in 0..1 + rng.next() % 4 {
            let mut slots = Vec::new();
            json_slots(&d, &mut Vec::new(), &mut slots);
            let s = slot(&mut d, &slots[(rng.next() % slots.len() as u64) as usize]);
            let n = s.as_u64().unwrap_or(0);
            *s = match rng.next() % 10 {
                0 => json!(0),
                1 => json!(-1),
                2 => json!(u32::MAX),
                3 => json!(1u64 << 40),
                4 => json!(rng.next() % 64),
                5 => json!(null),
                6 => json!("FOO"),
                7 => json!([]),
                8 => json!(n + 1),
                _ => json!(n * 2 + 3),
            };
        }
        let bytes = serde_json::to_vec(&d).unwrap();
        match measured(&dir.join("Fox.gltf"), &bytes, input) {
            Ok(()) => ok += 1,
            Err(e) => {
                assert!(e.file.is_some(), "round {round}: {e}");
                err += 1;
            }
        }
    }
    eprintln!("JSON mutations: {ok} loaded, {err} refused");
    assert!(ok > 20 && err > 200, "{ok} loaded, {err} refused");
}

/// `n` copies of `item`, comma-separated.
fn repeat(item: &str, n: usize) -> String {
    vec![item; n].join(",")
}

/// Documents whose JSON costs far more parsed than written: empty elements of every top-level
/// array, nested lists, attribute and extension maps, `Value` trees, structs written as arrays.
fn costly_documents(n: usize) -> Vec<(&'static str, String)> {
    let doc = |body: String| format!(r#"{{"asset":{{"version":"2.0"}},{body}}}"#);
    let keys = |prefix: &str| {
        (0..n)
            .map(|i| format!(r#""{prefix}{i}":0"#))
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut docs = Vec::new();
    for array in [
        "nodes",
        "materials",
        "samplers",
        "images",
        "scenes",
        "textures",
        "buffers",
    ] {
        docs.push((array, doc(format!(r#""{array}":[{}]"#, repeat("{}", n)))));
    }
    let item =
        |key: &'static str, item: &str| (key, doc(format!(r#""{key}":[{}]"#, repeat(item, n))));
    docs.extend([
        item("cameras", r#"{"type":"x"}"#),
        item("textures", r#"{"source":0}"#),
        item("buffers", r#"{"byteLength":0}"#),
        item("bufferViews", r#"{"buffer":0,"byteLength":0}"#),
        item(
            "accessors",
            r#"{"componentType":5126,"count":1,"type":"VEC3"}"#,
        ),
        item("animations", r#"{"channels":[],"samplers":[]}"#),
        item("skins", r#"{"joints":[]}"#),
        item("meshes", r#"{"primitives":[]}"#),
        item("extensionsUsed", r#""""#),
        item("nodes", r#"{"extensions":{"a":{"b":[]}}}"#),
        item("nodes", r#"{"extras":{"a":[0]}}"#),
        item("nodes", "[]"),
        item("nodes", "[null,[]]"),
        item(
            "materials",
            r#"{"pbrMetallicRoughness":{"baseColorTexture":{"index":0,"extensions":{"x":0}}}}"#,
        ),
        item("n\\u006fdes", "{}"),
    ]);
    let one = |key: &'static str, body: String| (key, doc(body));
    docs.extend([
        one(
            "meshes",
            format!(
                r#""meshes":[{{"primitives":[{}]}}]"#,
                repeat(r#"{"attributes":{"_A":0}}"#, n)
            ),
        ),
        one(
            "meshes",
            format!(
                r#""meshes":[{{"primitives":[{{"attributes":{{{}}}}}]}}]"#,
                keys("_")
            ),
        ),
        one(
            "meshes",
            format!(
                r#""meshes":[{{"primitives":[{{"attributes":{{}},"targets":[{}]}}]}}]"#,
                repeat("{}", n)
            ),
        ),
        one(
            "accessors",
            format!(
                r#""accessors":[{{"componentType":5126,"count":1,"type":"VEC3","min":[{}]}}]"#,
                repeat("0", n)
            ),
        ),
        one(
            "accessors",
            format!(
                r#""accessors":[{{"componentType":5126,"count":1,"type":"VEC3","max":[{}]}}]"#,
                repeat("[{}]", n)
            ),
        ),
        one(
            "animations",
            format!(
                r#""animations":[{{"channels":[{}],"samplers":[]}}]"#,
                repeat(r#"{"sampler":0,"target":{"node":0,"path":""}}"#, n)
            ),
        ),
        one(
            "animations",
            format!(
                r#""animations":[{{"channels":[],"samplers":[{}]}}]"#,
                repeat(r#"{"input":0,"output":0}"#, n)
            ),
        ),
        one(
            "skins",
            format!(r#""skins":[{{"joints":[{}]}}]"#, repeat("0", n)),
        ),
        one(
            "nodes",
            format!(r#""nodes":[{{"children":[{}]}}]"#, repeat("0", n)),
        ),
        one(
            "nodes",
            format!(
                r#""nodes":[{{"extensions":{{"x":[{}]}}}}]"#,
                repeat("[]", n)
            ),
        ),
        one(
            "nodes",
            format!(r#""nodes":[{{"extensions":{{"x":[{}]}}}}]"#, repeat("0", n)),
        ),
        one(
            "nodes",
            format!(r#""nodes":[{{"extensions":{{{}}}}}]"#, keys("")),
        ),
        one(
            "nodes",
            format!(r#""nodes":[{{"extensions":{{"x":{{{}}}}}}}]"#, keys("")),
        ),
        one(
            "extensions",
            format!(r#""extensions":{{"x":[{}]}}"#, repeat(r#"{"name":""}"#, n)),
        ),
        one("nodes", format!(r#""nodes":[[null,[{}]]]"#, repeat("0", n))),
    ]);
    docs
}

#[test]
fn parsing_costly_json_stays_within_what_the_load_charged() {
    // The `gltf` crate parses the whole document before the loader sees a count: what it will
    // allocate is charged from the text first. Each document is measured opening (the crate's
    // parse and validation) against the charge.
    let _g = serial();
    let path = cli_run::tmp("gltf-bad", "costly.gltf");
    let mut parsed = 0;
    for (name, text) in costly_documents(20_000) {
        let budget = gltf::Budget::new(text.len() as u64);
        let folders = psxrender::formats::Folders::new(Path::new("."), &LoadOptions::default());
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let r = gltf::source::open(&path, text.as_bytes(), &budget, folders);
        let peak = (PEAK.load(Ordering::Relaxed) - before) as u64;
        drop(r);
        // A document refused by its charge was never parsed: only its error was allocated.
        let error = 4096;
        assert!(
            peak <= budget.used() + error,
            "{name} ({} bytes): peak {peak} over the {} charged",
            text.len(),
            budget.used()
        );
        parsed += usize::from(budget.used() > 0);
    }
    assert!(parsed >= 30, "only {parsed} documents were parsed");
}

#[test]
fn a_document_too_costly_to_parse_is_refused_naming_its_array() {
    // An empty node is written in three bytes and parsed into a whole node struct: this many
    // are charged more than the budget (64 MiB + 32 × input) and refused before any is parsed.
    let _g = serial();
    let n = 100_000;
    let text = format!(
        r#"{{"asset":{{"version":"2.0"}},"nodes":[{}]}}"#,
        repeat("{}", n)
    );
    let e = load_err("empty-nodes.gltf", text.as_bytes());
    let msg = e.to_string();
    assert!(
        matches!(&e.kind, ErrorKind::Json { path, .. } if path == "nodes"),
        "{msg}"
    );
    assert!(msg.contains(&format!("{n} elements")), "{msg}");
}

// ---------------------------------------------------------------------------------------------
// One source named many times

/// Runs `f`, returning its result and the most bytes it held allocated at once.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let r = f();
    (r, PEAK.load(Ordering::Relaxed) - before)
}

/// The budget limit of a load whose input files (the model and the distinct files it names)
/// hold `input` bytes.
fn limit_for(input: usize) -> u64 {
    BUDGET_BASE + BUDGET_PER_INPUT_BYTE * input as u64
}

/// A PNG of `side`×`side` pixels of one colour, followed by `pad` zero bytes after its end.
fn png_file(side: u32, pad: usize) -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(side, side, image::Rgba([200, 120, 40, 255]));
    let mut bytes = Vec::new();
    img.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )
    .unwrap();
    bytes.resize(bytes.len() + pad, 0);
    bytes
}

/// Writes `doc` as `name` in `dir` and loads it from there, measuring the load's peak.
fn load_written(
    dir: &Path,
    name: &str,
    doc: &serde_json::Value,
) -> (Result<gltf::GltfModel, LoadError>, usize, usize) {
    let text = serde_json::to_vec(doc).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, &text).unwrap();
    let (r, peak) = peak_of(|| gltf::load(&path, &text, &LoadOptions::default()));
    (r, peak, text.len())
}

#[test]
fn a_file_named_by_many_buffers_is_read_once_and_counted_once() {
    let _g = serial();
    let dir = cli_run::tmp("gltf-bad", "many-buffers");
    std::fs::create_dir_all(&dir).unwrap();
    let b = fixture();
    // The buffer file, with 256 KiB no buffer uses after the fixture's bytes.
    let mut bin = b.bin.clone();
    bin.resize(bin.len() + (256 << 10), 0);
    std::fs::write(dir.join("data.bin"), &bin).unwrap();
    let mut doc: serde_json::Value = serde_json::from_slice(&b.gltf_external("data.bin")).unwrap();
    // 1200 more buffers of byteLength 1: the buffer file under three spellings, and the model
    // file itself.
    let buffers = doc["buffers"].as_array_mut().unwrap();
    for i in 0..1200 {
        let uri = ["data.bin", "./data.bin", ".//data.bin", "m.gltf"][i % 4];
        buffers.push(json!({"uri": uri, "byteLength": 1}));
    }
    let (m, peak, model_len) = load_written(&dir, "m.gltf", &doc);
    let m = m.unwrap();
    assert_eq!(m.buffers.len(), 1201);
    assert_eq!(m.buffers[0].1, b.bin.len() as u64);
    assert!(m.buffers[1..].iter().all(|(_, len)| *len == 1));
    // The limit grew once for each of the two input files, not once per mention.
    assert_eq!(m.budget.0, limit_for(model_len + bin.len()));
    // Each file is held once, and only what the buffers take of it.
    assert!(
        peak < 3 * (model_len + bin.len()) + (4 << 20),
        "peak {peak} bytes for {model_len} + {} bytes of input",
        bin.len()
    );
    // It draws as the fixture does.
    let one = gltf::load(&dir.join("one.glb"), &b.glb(), &LoadOptions::default()).unwrap();
    let req = PoseRequest {
        animation: Some(0),
        frame: 7,
        camera: None,
    };
    let (p, q) = (m.pose(&req), one.pose(&req));
    assert_eq!((p.vertices, p.faces), (q.vertices, q.faces));
}

#[test]
fn an_image_file_named_many_times_is_decoded_once_and_counted_once() {
    let _g = serial();
    let dir = cli_run::tmp("gltf-bad", "many-images");
    std::fs::create_dir_all(&dir).unwrap();
    // A valid 8x8 PNG padded with 256 KiB after its end: each mention that counted it anew
    // would lift the limit by 8 MiB.
    let png = png_file(8, 256 << 10);
    std::fs::write(dir.join("pad.png"), &png).unwrap();
    let mut b = fixture();
    let n = 200;
    let mut doc = serde_json::Value::Object(b.root.clone());
    doc["images"] = json!((0..n)
        .map(|i| {
            let uri = ["pad.png", "./pad.png"][i % 2];
            json!({ "uri": uri })
        })
        .collect::<Vec<_>>());
    doc["textures"] = json!((0..n).map(|i| json!({"source": i})).collect::<Vec<_>>());
    doc["materials"] = json!((0..n)
        .map(|i| json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": i}}}))
        .collect::<Vec<_>>());
    let with_bin = |doc: &serde_json::Value, b: &Builder| {
        let mut doc = doc.clone();
        doc["buffers"] = json!([{"uri": "data.bin", "byteLength": b.bin.len()}]);
        std::fs::write(dir.join("data.bin"), &b.bin).unwrap();
        doc
    };
    let (m, _, model_len) = load_written(&dir, "m.gltf", &with_bin(&doc, &b));
    let m = m.unwrap();
    let input = model_len + png.len() + b.bin.len();
    assert_eq!(m.budget.0, limit_for(input));
    // One decode, one copy with the materials' alpha treatment.
    assert_eq!(m.images.len(), n);
    let first = &m.images[0].texture.as_ref().unwrap().image;
    assert!(m.images.iter().all(|img| std::sync::Arc::ptr_eq(
        img.texture.as_ref().unwrap().image.image(),
        first.image()
    )));
    assert_eq!(m.variants.len(), 1);
    assert!(m.material_variant.iter().all(|&v| v == Some(0)));
    // So an accessor larger than the limit of the true input is refused: 3.5M zero-filled
    // positions (84 MB decoded) drawn as the mesh's vertices.
    let count = 3_500_000u64;
    assert!(count * 24 > limit_for(input + 200));
    let big = b.push(
        "accessors",
        json!({"componentType": 5126, "type": "VEC3", "count": count, "min": [0, 0, 0], "max": [0, 0, 0]}),
    );
    doc["accessors"] = b.root["accessors"].clone();
    doc["meshes"][0]["primitives"][0]["attributes"] = json!({"POSITION": big});
    doc["meshes"][0]["primitives"][0]
        .as_object_mut()
        .unwrap()
        .remove("indices");
    let (r, _, _) = load_written(&dir, "big.gltf", &with_bin(&doc, &b));
    let e = r.unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e.kind, ErrorKind::Json { .. }), "{msg}");
    assert!(
        msg.contains(&format!("accessors[{big}]")) && msg.contains("larger than the limit"),
        "{msg}"
    );
}

#[test]
fn images_naming_one_source_share_one_decode_and_one_copy() {
    let _g = serial();
    let dir = cli_run::tmp("gltf-bad", "one-source");
    std::fs::create_dir_all(&dir).unwrap();
    // A 256x256 texture (256 KiB decoded) named by 600 images through a file, and by 100
    // through one buffer view: decoded separately, the copies alone would pass the budget.
    let png = png_file(256, 0);
    std::fs::write(dir.join("tex.png"), &png).unwrap();
    let mut b = fixture();
    let view = b.view(&png);
    let (files, views) = (600, 100);
    let mut doc = serde_json::Value::Object(b.root.clone());
    let images: Vec<_> = (0..files)
        .map(|_| json!({"uri": "tex.png"}))
        .chain((0..views).map(|_| json!({"bufferView": view, "mimeType": "image/png"})))
        .collect();
    doc["images"] = json!(images);
    doc["textures"] = json!((0..files + views)
        .map(|i| json!({"source": i}))
        .collect::<Vec<_>>());
    doc["materials"] = json!((0..files + views)
        .map(|i| json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": i}}}))
        .collect::<Vec<_>>());
    doc["buffers"] = json!([{"uri": "data.bin", "byteLength": b.bin.len()}]);
    std::fs::write(dir.join("data.bin"), &b.bin).unwrap();
    let (m, peak, model_len) = load_written(&dir, "m.gltf", &doc);
    let m = m.unwrap();
    let from_file = &m.images[0].texture.as_ref().unwrap().image;
    let from_view = &m.images[files].texture.as_ref().unwrap().image;
    assert_eq!((from_file.width, from_file.height), (256, 256));
    assert_eq!(from_file, from_view);
    assert!(m.images[..files].iter().all(|i| std::sync::Arc::ptr_eq(
        i.texture.as_ref().unwrap().image.image(),
        from_file.image()
    )));
    assert!(m.images[files..].iter().all(|i| std::sync::Arc::ptr_eq(
        i.texture.as_ref().unwrap().image.image(),
        from_view.image()
    )));
    assert_eq!(m.variants.len(), 2);
    assert!(m.material_variant[..files].iter().all(|&v| v == Some(0)));
    assert!(m.material_variant[files..].iter().all(|&v| v == Some(1)));
    let input = model_len + png.len() + b.bin.len();
    assert!(peak < 8 * input + (4 << 20), "peak {peak} bytes");
    // `info` lists every texture, each material's PS1 form the same.
    let facts = m.facts();
    let textures = facts["textures"].as_array().unwrap();
    assert_eq!(textures.len(), files + views);
    assert_eq!(
        textures[0]["ps1"][0]["size"],
        textures[files + 1]["ps1"][0]["size"]
    );
}

#[test]
fn a_data_uri_shorter_than_its_byte_length_names_the_buffer() {
    let _g = serial();
    let b = fixture();
    let mut doc: serde_json::Value = serde_json::from_slice(&b.gltf_embedded()).unwrap();
    doc["buffers"][0]["byteLength"] = json!(4294967295u64);
    let data = serde_json::to_vec(&doc).unwrap();
    let e = load_err("short-uri.gltf", &data);
    let msg = e.to_string();
    assert!(
        matches!(&e.kind, ErrorKind::Json { path, .. } if path == "buffers[0]"),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("data URI holds {} bytes", b.bin.len()))
            && msg.contains("byteLength 4294967295"),
        "{msg}"
    );
    // The position is the JSON text's start, not one inside the decoded URI.
    assert_eq!(e.offset, 0, "{msg}");
}

#[test]
fn a_texture_copy_past_the_budget_names_its_material() {
    let _g = serial();
    // One 1024x1024 image (4 MiB decoded) shown by 24 materials, each masking at its own
    // cutoff: each needs its own copy, and the copies pass the budget of a small file.
    let mut b = fixture();
    let png = png_file(1024, 0);
    let view = b.view(&png);
    b.root["images"][0] = json!({"bufferView": view, "mimeType": "image/png"});
    for k in 1..24 {
        b.push(
            "materials",
            json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}},
                   "alphaMode": "MASK", "alphaCutoff": k as f64 / 32.0}),
        );
    }
    let e = load_err("copies.glb", &b.glb());
    let msg = e.to_string();
    assert!(
        matches!(&e.kind, ErrorKind::Json { path, .. }
            if path.starts_with("materials[") && path.ends_with("].pbrMetallicRoughness.baseColorTexture")),
        "{msg}"
    );
    assert!(
        msg.contains("textures[0]'s images[0] (1024x1024, 4194304 bytes)")
            && msg.contains("more than the limit"),
        "{msg}"
    );
}
