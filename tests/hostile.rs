//! What a newcomer and a hostile file found (issue 33), one test per finding, named after what
//! it guards: bare model file names, files a model names outside its folder (URIs, symlinks,
//! devices, FIFOs), pixel history memory, big glTF textures, closed standard output, outputs
//! named and checked before rendering, up-front refusals, and messages.
//!
//! The hostile files are made here, in scratch folders: devices and FIFOs cannot be committed,
//! and the big textures are generated rather than stored.

mod cli_run;
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use cli_run::psxrender;
use psxrender::formats::gltf::writer::Builder;
use psxrender::formats::LoadOptions;
use psxrender::render::{RenderOptions, Renderer};
use psxrender::scene::PoseRequest;
use serde_json::json;

/// A fresh, empty scratch folder `target/tmp/hostile/<name>`.
fn scratch(name: &str) -> PathBuf {
    let d = cli_run::tmp("hostile", name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn exe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_psxrender"))
}

/// stdout + stderr of a finished run.
fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs `psxrender ARGS` in `dir` under a 256 MiB address-space cap (`prlimit --as`), returning
/// the output and how long it took. A run that reads a device without end, waits on a FIFO or
/// allocates without bound fails this: killed by the cap, or far over the time asked of it.
fn capped(dir: &Path, args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let o = Command::new("prlimit")
        .arg("--as=268435456")
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_psxrender"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("prlimit (util-linux) runs");
    (o, start.elapsed())
}

/// Asserts a capped run of `args` in `dir` was refused (exit 2, or a warning when `warn` is
/// set: a missing texture or supermodel is not fatal) in under a second, naming `needle`.
fn refused_quickly(dir: &Path, args: &[&str], needle: &str, warn: bool) {
    let (o, took) = capped(dir, args);
    let t = text(&o);
    assert!(!t.contains("panicked"), "{args:?}: {t}");
    if warn {
        assert!(t.contains("warning"), "{args:?}: {t}");
    } else {
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
    }
    assert!(t.contains(needle), "{args:?} does not say '{needle}': {t}");
    assert!(took < Duration::from_secs(1), "{args:?} took {took:?}: {t}");
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

// ---------------------------------------------------------------------------------------------
// 1. A model given by a bare file name keeps its folder.

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn bare_file_name_finds_the_nwn_supermodel_and_textures_beside_it() {
    let dir = common::shared("samples/nwn");
    let out = scratch("bare-nwn").join("x.png");
    for args in [
        vec!["info", "c_aribeth.mdl"],
        vec!["c_aribeth.mdl", out.to_str().unwrap()],
    ] {
        let o = exe().args(&args).current_dir(&dir).output().unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {t}");
        // `a_ba`, a_fa's own supermodel, is really absent from the samples.
        assert!(!t.contains("'a_fa' MISSING"), "{args:?}: {t}");
        assert!(!t.contains("texture 'c_aribeth' MISSING"), "{args:?}: {t}");
        assert!(
            !t.contains("searched ;") && !t.contains("searched  for"),
            "{args:?}: {t}"
        );
    }
    let o = exe()
        .args(["info", "c_aribeth.mdl"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(text(&o).contains("-> a_fa (./a_fa.mdl)"), "{}", text(&o));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn bare_file_name_finds_the_plt_palettes_beside_it() {
    let dir = common::shared("samples/nwn");
    let out = scratch("plt").join("head.png");
    let o = exe()
        .args(["texture", "pmh0_head001.plt"])
        .arg(&out)
        .current_dir(&dir)
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(!t.contains("not found"), "{t}");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn bare_file_name_finds_m2_skins_and_gltf_buffers_beside_it() {
    for (dir, file, unwanted) in [
        ("samples/m2", "Rabbit2.m2", "not found"),
        ("samples/gltf/Fox-separate", "Fox.gltf", "error"),
    ] {
        let o = exe()
            .args(["info", file])
            .current_dir(common::shared(dir))
            .output()
            .unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "{file}: {t}");
        assert!(!t.contains(unwanted), "{file}: {t}");
    }
}

// ---------------------------------------------------------------------------------------------
// 2. A model reads only files beside it; no read is unbounded.

/// A `.gltf` whose only buffer is `uri` (the 97-byte file).
fn gltf_naming(uri: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "asset": {"version": "2.0"},
        "buffers": [{"uri": uri, "byteLength": 4096}]
    }))
    .unwrap()
}

/// A `.gltf` whose only image is `uri`.
fn gltf_image_naming(uri: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({"asset": {"version": "2.0"}, "images": [{"uri": uri}]})).unwrap()
}

#[test]
fn gltf_uris_to_devices_fifos_and_outside_the_folder_are_refused_quickly() {
    let top = scratch("gltf-uris");
    let dir = top.join("model");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(top.join("secret.bin"), [0u8; 4096]).unwrap();
    mkfifo(&dir.join("fifo.bin"));
    symlink(Path::new("/dev/zero"), &dir.join("zero.bin"));
    symlink(&top.join("secret.bin"), &dir.join("out.bin"));
    // Enough `..` to reach `/` from any scratch folder (more stay at `/`).
    let to_zero = format!("{}dev/zero", "../".repeat(40));
    let cases = [
        (
            "dotdot.gltf",
            gltf_naming(&to_zero),
            "outside the model's folder",
        ),
        (
            "up.gltf",
            gltf_naming("../secret.bin"),
            "outside the model's folder",
        ),
        (
            "escaped.gltf",
            gltf_naming("%2e%2e/secret.bin"),
            "outside the model's folder",
        ),
        (
            "link.gltf",
            gltf_naming("out.bin"),
            "outside the model's folder",
        ),
        (
            "device.gltf",
            gltf_naming("zero.bin"),
            "outside the model's folder",
        ),
        ("fifo.gltf", gltf_naming("fifo.bin"), "FIFO"),
        ("dir.gltf", gltf_naming("."), "directory"),
        ("img-fifo.gltf", gltf_image_naming("fifo.bin"), "FIFO"),
        (
            "img-up.gltf",
            gltf_image_naming("../secret.bin"),
            "outside the model's folder",
        ),
    ];
    for (name, doc, needle) in &cases {
        std::fs::write(dir.join(name), doc).unwrap();
        for args in [vec!["info", name], vec![name, "x.png"]] {
            refused_quickly(&dir, &args, needle, false);
            let o = capped(&dir, &args).0;
            // The error names the URI as the model gives it.
            assert!(text(&o).contains("uri"), "{args:?}: {}", text(&o));
        }
    }
    // A folder the user names is allowed: the same file then loads (and is too short for the
    // byteLength asked, which is the next check).
    let o = exe()
        .args(["info", "up.gltf", "--search-path", ".."])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!text(&o).contains("outside"), "{}", text(&o));
}

#[test]
fn model_files_that_are_devices_fifos_or_folders_are_refused_quickly() {
    let dir = scratch("model-kinds");
    mkfifo(&dir.join("fifo.mdl"));
    for (file, needle) in [
        ("/dev/zero", "a device"),
        ("fifo.mdl", "FIFO"),
        (".", "a directory"),
    ] {
        for args in [vec!["info", file], vec![file, "x.png"]] {
            refused_quickly(&dir, &args, needle, false);
        }
    }
}

/// A scratch folder `<name>/` holding a copy of the sample `outside` (where a link from the
/// model's folder will lead), and in it `<name>/model/` holding a copy of the sample `model`;
/// returns both folders.
fn model_beside(name: &str, samples: &str, model: &str, outside: &str) -> (PathBuf, PathBuf) {
    let top = scratch(name);
    let dir = top.join("model");
    std::fs::create_dir_all(&dir).unwrap();
    let from = common::shared(samples);
    std::fs::copy(from.join(model), dir.join(model)).unwrap();
    std::fs::copy(from.join(outside), top.join(outside)).unwrap();
    (top, dir)
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn nwn_supermodels_and_textures_that_are_devices_fifos_or_links_out_are_refused() {
    let (top, dir) = model_beside("nwn-links", "samples/nwn", "c_aribeth.mdl", "a_fa.mdl");
    // The supermodel by a link out of the folder, the textures a FIFO and a device.
    symlink(&top.join("a_fa.mdl"), &dir.join("a_fa.mdl"));
    mkfifo(&dir.join("c_aribeth.dds"));
    symlink(Path::new("/dev/zero"), &dir.join("c_aribeth.tga"));
    for args in [
        vec!["info", "c_aribeth.mdl"],
        vec!["c_aribeth.mdl", "x.png"],
    ] {
        refused_quickly(&dir, &args, "outside the model's folder", true);
        let t = text(&capped(&dir, &args).0);
        assert!(t.contains("supermodel 'a_fa' failed to load"), "{t}");
        assert!(t.contains("FIFO"), "{t}");
    }
    // --search-path names the folder the link leads to: the supermodel loads.
    let o = exe()
        .args(["info", "c_aribeth.mdl", "--search-path", ".."])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        !text(&o).contains("supermodel 'a_fa' failed"),
        "{}",
        text(&o)
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn m2_textures_that_are_devices_fifos_or_links_out_are_refused() {
    let (top, dir) = model_beside("m2-links", "samples/m2", "Rabbit2.m2", "ArmorReflect5.blp");
    // The env map by a link out of the folder; the skin a FIFO; a device is no file either.
    symlink(
        &top.join("ArmorReflect5.blp"),
        &dir.join("ArmorReflect5.blp"),
    );
    mkfifo(&dir.join("rabbitskin2_default.blp"));
    symlink(Path::new("/dev/zero"), &dir.join("rabbitskin2_zero.blp"));
    for args in [vec!["info", "Rabbit2.m2"], vec!["Rabbit2.m2", "x.png"]] {
        refused_quickly(&dir, &args, "outside the model's folder", true);
        // The FIFO is no file: not taken as the creature skin.
        let t = text(&capped(&dir, &args).0);
        assert!(t.contains("none was given"), "{t}");
    }
    // A path the user gives is the user's choice, but a device is still no file: an error
    // (exit 2), since they asked for that file.
    let args = ["info", "Rabbit2.m2", "--texture", "11=/dev/zero"];
    refused_quickly(&dir, &args, "a device, not a regular file", false);
}

// ---------------------------------------------------------------------------------------------
// 3. Pixel history memory is bounded by what it prints.

#[test]
fn pixel_history_of_a_long_polyline_keeps_a_few_words_per_event() {
    let mut g = gpu::Gpu::new();
    g.gp0(0xe300_0000);
    g.gp0(0xe407_ffff);
    g.watch(&[(0, 0)]);
    // A flat polyline zig-zagging through (0,0): every segment touches the watched pixel.
    const N: u32 = 20_000;
    g.gp0(0x4800_ff00);
    for i in 0..N {
        let x = if i % 2 == 0 { 0 } else { 40 };
        g.gp0(x);
    }
    g.gp0(0x5555_5555);
    let events = g.history();
    assert!(events.len() as u32 >= N - 1, "{} events", events.len());
    let words: usize = events.iter().map(|e| e.words.len()).sum();
    assert!(
        words <= 4 * events.len(),
        "{words} words kept for {} events",
        events.len()
    );
    // Each event still says which segment and where its vertices are.
    let last = events.last().unwrap();
    assert_eq!(last.part, gpu::trace::Part::Segment(N - 2));
    assert_eq!(last.words.len(), 3);
}

#[test]
fn replay_history_of_a_long_polyline_runs_in_bounded_memory() {
    let dir = scratch("polyline");
    let mut s = String::from("gp0 e3000000\ngp0 e407ffff\ngp0 480000ff\n");
    for i in 0..30_000u32 {
        s.push_str(if i % 2 == 0 {
            "gp0 00000000\n"
        } else {
            "gp0 00000028\n"
        });
    }
    s.push_str("gp0 55555555\n");
    std::fs::write(dir.join("polyline.txt"), s).unwrap();
    let start = Instant::now();
    let o = Command::new("prlimit")
        .arg("--as=268435456")
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_psxrender"))
        .args(["replay", "polyline.txt", "--history", "0,0"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        &t[t.len().saturating_sub(2000)..]
    );
    assert!(
        t.contains("segment 29999 (v29998 to v29999)"),
        "{}",
        &t[t.len().saturating_sub(2000)..]
    );
    assert!(start.elapsed() < Duration::from_secs(60));
}

// ---------------------------------------------------------------------------------------------
// 4. Textures up to the documented 8192² decode in glTF.

/// The grey levels of [`big_png`]'s quadrants.
const QUADRANTS: [u8; 4] = [60, 120, 180, 240];

/// A `side`² greyscale PNG in four quadrants of [`QUADRANTS`], compressed fast (it is made to
/// be read once; grey keeps the test's own encoding to a byte a pixel).
fn big_png(side: u32) -> Vec<u8> {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::ImageEncoder;
    let h = side as usize / 2;
    let mut grey = Vec::with_capacity(side as usize * side as usize);
    for y in 0..side as usize {
        let (left, right) = if y < h { (0, 1) } else { (2, 3) };
        grey.extend(std::iter::repeat_n(QUADRANTS[left], h));
        grey.extend(std::iter::repeat_n(QUADRANTS[right], h));
    }
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::NoFilter)
        .write_image(&grey, side, side, image::ExtendedColorType::L8)
        .unwrap();
    out
}

/// A textured quad; `image` is pushed by the caller (a buffer view or a URI).
fn textured_quad(b: &mut Builder, image: usize) {
    let (pos, uv, idx) = b.square();
    let mat = b.textured_material(image, json!({"doubleSided": true}));
    let mesh = b.push(
        "meshes",
        json!({"primitives": [{"attributes": {"POSITION": pos, "TEXCOORD_0": uv},
            "indices": idx, "material": mat}]}),
    );
    b.root_node(json!({"mesh": mesh}));
}

/// Writes a `.gltf` (texture as a file beside it) and a `.glb` (texture inside) of a quad
/// textured with `png`; returns their paths.
fn quad_models(dir: &Path, png: &[u8]) -> [PathBuf; 2] {
    std::fs::write(dir.join("tex.png"), png).unwrap();
    let mut b = Builder::new();
    let img = b.push("images", json!({"uri": "tex.png"}));
    textured_quad(&mut b, img);
    std::fs::write(dir.join("quad.bin"), &b.bin).unwrap();
    std::fs::write(dir.join("quad.gltf"), b.gltf_external("quad.bin")).unwrap();
    let mut b = Builder::new();
    let v = b.view(png);
    let img = b.push("images", json!({"bufferView": v, "mimeType": "image/png"}));
    textured_quad(&mut b, img);
    std::fs::write(dir.join("quad.glb"), b.glb()).unwrap();
    [dir.join("quad.gltf"), dir.join("quad.glb")]
}

#[test]
fn gltf_textures_of_4096_and_8192_render_and_8193_is_refused_naming_the_cap() {
    for side in [4096u32, 8192] {
        let dir = scratch(&format!("tex{side}"));
        for path in quad_models(&dir, &big_png(side)) {
            let m = psxrender::detect::load(&path, &LoadOptions::default())
                .unwrap_or_else(|e| panic!("{side}: {e}"));
            let o = RenderOptions {
                lighting: false,
                dither: false,
                ..RenderOptions::default()
            };
            let f = Renderer::new(m.as_ref(), &o)
                .unwrap()
                .render(&PoseRequest::default())
                .unwrap();
            assert_eq!(f.stats.drawn, 2, "{}", path.display());
            // The four quadrants reach the frame: each grey level is drawn.
            let has = |g: u8| {
                f.rgb
                    .chunks(3)
                    .any(|p| p[0] == p[1] && p[1] == p[2] && p[0].abs_diff(g) < 12)
            };
            for g in QUADRANTS {
                assert!(
                    has(g),
                    "{side} {}: no grey {g} in the frame",
                    path.display()
                );
            }
        }
    }
    // One pixel wider than the cap: refused from the header, the cap named.
    let dir = scratch("tex8193");
    let mut png = Vec::new();
    {
        use image::ImageEncoder;
        image::codecs::png::PngEncoder::new(&mut png)
            .write_image(&[0u8; 8193], 8193, 1, image::ExtendedColorType::L8)
            .unwrap();
    }
    for path in quad_models(&dir, &png) {
        let e = psxrender::detect::load(&path, &LoadOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{} loaded", path.display()));
        let msg = e.to_string();
        assert!(msg.contains("8193x1") && msg.contains("8192"), "{msg}");
    }
}

#[test]
fn a_tiny_png_claiming_8192_squared_is_refused_before_decoding() {
    let dir = scratch("tex-liar");
    let mut png = Vec::new();
    {
        use image::ImageEncoder;
        image::codecs::png::PngEncoder::new(&mut png)
            .write_image(&[7u8; 64], 8, 8, image::ExtendedColorType::L8)
            .unwrap();
    }
    // IHDR says 8192×8192 (CRC mended so only the size lies).
    png[16..20].copy_from_slice(&8192u32.to_be_bytes());
    png[20..24].copy_from_slice(&8192u32.to_be_bytes());
    let crc = crc32(&png[12..29]);
    png[29..33].copy_from_slice(&crc.to_be_bytes());
    for path in quad_models(&dir, &png) {
        let (o, took) = capped(&dir, &["info", path.to_str().unwrap()]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{t}");
        assert!(t.contains("too few for its size"), "{t}");
        assert!(took < Duration::from_secs(1), "{took:?}");
    }
}

/// CRC-32 (ISO-HDLC), as PNG chunks carry.
fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

// ---------------------------------------------------------------------------------------------
// 5. A closed standard output ends the output quietly.

/// Runs `psxrender ARGS` in `dir` with standard output a pipe whose reader is already gone
/// (as `| head -1` leaves it once head exits).
fn closed_stdout(dir: &Path, args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let child = exe()
        .args(args)
        .current_dir(dir)
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn every_command_with_stdout_closed_exits_with_its_own_code() {
    let dir = scratch("pipes");
    let run = |args: &[&str]| exe().args(args).current_dir(&dir).output().unwrap();
    // Inputs: two captures, a stream, a probe file, a vector file.
    assert!(run(&["demo", "a.png"]).status.success());
    assert!(run(&["demo", "b.png", "--yaw", "90"]).status.success());
    std::fs::write(
        dir.join("s.txt"),
        "gp1 00000000\ngp0 02ff0000\ngp0 00000000\ngp0 00100010\nframe\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("p.txt"),
        "case a\ngp0 020000f8\ngp0 00000000\ngp0 00010010\nprobe 0 0 001f hw\nend\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("v.txt"),
        "case 1 NCLIP\nset 12 00000000\nset 13 00000010\nset 14 00100000\ncmd 4a001406\nexpect 24 00000100\nend\n",
    )
    .unwrap();
    for (args, code) in [
        (vec!["info", "a.png"], 0),
        (vec!["info", "a.png", "--json"], 0),
        (vec!["info", "s.txt"], 0),
        (vec!["texture", "a.png", "t.png"], 0),
        (vec!["compare", "a.png", "a.png"], 0),
        (vec!["compare", "a.png", "b.png"], 1),
        (vec!["replay", "s.txt", "--history", "0,0"], 0),
        (vec!["replay", "s.txt", "--display", "d.png"], 0),
        (vec!["conformance", "p.txt"], 0),
        (vec!["gte-vectors", "v.txt"], 0),
        (vec!["demo", "c.png"], 0),
        (vec!["--help"], 0),
        (vec!["replay", "--help"], 0),
        (vec!["--version"], 0),
        (vec!["info", "missing.png"], 2),
    ] {
        let o = closed_stdout(&dir, &args);
        let t = text(&o);
        assert!(!t.contains("panicked"), "{args:?}: {t}");
        assert_eq!(o.status.code(), Some(code), "{args:?}: {t}");
    }
}

// ---------------------------------------------------------------------------------------------
// 6. Outputs: named after the model with the right extension, reported, checked first.

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn render_without_an_output_name_writes_model_named_png_or_gif_and_says_so() {
    let dir = scratch("default-out");
    let fox = common::shared("samples/gltf/Fox.glb");
    let fox = fox.to_str().unwrap();
    let o = exe().arg(fox).current_dir(&dir).output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("wrote Fox.psx.png"), "{t}");
    assert!(std::fs::read(dir.join("Fox.psx.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));
    assert!(!dir.join("out.png").exists());
    let o = exe()
        .args([fox, "--frames", "0..2", "--gif"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("wrote Fox.psx.gif"), "{t}");
    assert!(std::fs::read(dir.join("Fox.psx.gif"))
        .unwrap()
        .starts_with(b"GIF8"));
    // demo: demo.gif with --gif, never a GIF named .png.
    let o = exe()
        .args(["demo", "--frames", "0..2", "--gif"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(text(&o).contains("wrote demo.gif"), "{}", text(&o));
    assert!(std::fs::read(dir.join("demo.gif"))
        .unwrap()
        .starts_with(b"GIF8"));
}

#[test]
fn unwritable_output_is_refused_before_rendering_with_one_message() {
    let dir = scratch("unwritable");
    for args in [
        vec!["demo", "/nonexistent-dir/x.png", "--frames", "0..30"],
        vec![
            "demo",
            "/nonexistent-dir/x.gif",
            "--frames",
            "0..30",
            "--gif",
        ],
        vec!["demo", "/nonexistent-dir/x.png"],
        vec!["demo", "ok.png", "--vram", "/nonexistent-dir/v.png"],
        vec!["demo", "ok.png", "--dump-gp0", "/nonexistent-dir/d.psxgpu"],
        vec!["demo", "."],
    ] {
        let o = exe().args(&args).current_dir(&dir).output().unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {t}");
        assert_eq!(t.matches("error:").count(), 1, "{args:?}: {t}");
        assert!(t.contains("(nothing was written)"), "{args:?}: {t}");
        assert!(
            !t.contains("drew ") && !t.contains("rendered "),
            "{args:?}: {t}"
        );
    }
    assert!(!dir.join("ok.png").exists());
}

// ---------------------------------------------------------------------------------------------
// 7. Refused up front: a thread count nobody needs; a window without a display.

#[test]
fn huge_thread_count_is_refused_up_front_naming_the_option() {
    for args in [
        vec!["demo", "x.png", "--threads", "100000"],
        vec!["replay", "x.txt", "--threads", "100000"],
        vec!["conformance", "x.txt", "--threads", "100000"],
        vec!["view", "--demo", "--threads", "100000"],
    ] {
        let start = Instant::now();
        let (code, t) = psxrender(&args);
        assert_eq!(code, Some(2), "{args:?}: {t}");
        assert!(
            t.contains("--threads") && t.contains("at most 256"),
            "{args:?}: {t}"
        );
        assert!(start.elapsed() < Duration::from_secs(1), "{args:?}");
    }
}

#[test]
#[cfg_attr(not(feature = "preview"), ignore = "needs the `preview` feature")]
fn view_without_a_display_says_so_and_points_to_the_headless_render() {
    let o = exe()
        .args(["view", "--demo", "--exit-after", "1"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("no display") && t.contains("DISPLAY"), "{t}");
    assert!(t.contains("psxrender MODEL OUT.png"), "{t}");
}

// ---------------------------------------------------------------------------------------------
// 8. Messages a person would stumble on.

#[test]
fn messages_name_things_once_and_cut_long_echoes() {
    let dir = scratch("messages");
    let run = |args: &[&str]| {
        let o = exe().args(args).current_dir(&dir).output().unwrap();
        (o.status.code(), text(&o))
    };
    // "cannot read file file".
    let (_, t) = run(&["info", "missing.bin"]);
    assert!(
        t.contains("cannot read input file") && !t.contains("file file"),
        "{t}"
    );
    // "GPU text stream GPU input".
    std::fs::write(
        dir.join("s.txt"),
        "gp0 02ff0000\ngp0 00000000\ngp0 00100010\n",
    )
    .unwrap();
    let (_, t) = run(&["s.txt", "x.png"]);
    assert!(
        t.contains("GPU text stream (GPU input), not a model"),
        "{t}"
    );
    // A UTF-8 byte-order mark before the first line.
    std::fs::write(
        dir.join("bom.txt"),
        b"\xEF\xBB\xBFgp0 02ff0000\ngp0 00000000\ngp0 00100010\n",
    )
    .unwrap();
    let (code, t) = run(&["replay", "bom.txt", "--vram", "v.png"]);
    assert_eq!(code, Some(0), "{t}");
    let (code, t) = run(&["info", "bom.txt"]);
    assert_eq!(code, Some(0), "{t}");
    // A 10 MB bad hex word is not echoed whole.
    let mut s = String::from("gp0 02ff0000\ngp0 ");
    s.push_str(&"z".repeat(10 << 20));
    std::fs::write(dir.join("long.txt"), s).unwrap();
    let (code, t) = run(&["replay", "long.txt"]);
    assert_eq!(code, Some(2), "{}", &t[..t.len().min(500)]);
    assert!(
        t.len() < 1000 && t.contains("(10485760 bytes)"),
        "{}",
        &t[..t.len().min(500)]
    );
    // --distance -5 is a bad distance, not a stray option.
    let (code, t) = run(&["demo", "x.png", "--distance", "-5"]);
    assert_eq!(code, Some(2), "{t}");
    assert!(
        t.contains("not a distance above 0") && !t.contains("-- -5"),
        "{t}"
    );
    // --depth 16 is not the PS1's 15-bit direct colour, silently.
    let (code, t) = run(&["demo", "x.png", "--depth", "16"]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("15-bit"), "{t}");
    // A vector file with no cases does not pass.
    std::fs::write(dir.join("empty.txt"), "# nothing\n").unwrap();
    let (code, t) = run(&["gte-vectors", "empty.txt"]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("no `case` blocks"), "{t}");
    let (code, t) = run(&["conformance", "empty.txt"]);
    assert_eq!(code, Some(2), "{t}");
    // No arguments: the subcommands are named.
    let (code, t) = run(&[]);
    assert_eq!(code, Some(2), "{t}");
    for sub in ["info", "replay", "demo", "compare"] {
        assert!(t.contains(sub), "no-argument help lacks {sub}: {t}");
    }
}

#[test]
fn zero_sized_images_are_invalid_not_too_large() {
    // A standard DDS header with width 0.
    let mut dds = b"DDS ".to_vec();
    dds.extend_from_slice(&124u32.to_le_bytes());
    dds.extend_from_slice(&0x1007u32.to_le_bytes());
    dds.extend_from_slice(&4u32.to_le_bytes()); // height
    dds.extend_from_slice(&0u32.to_le_bytes()); // width
    dds.resize(128 + 64, 0);
    let dir = scratch("zero-dds");
    std::fs::write(dir.join("z.dds"), &dds).unwrap();
    let o = exe()
        .args(["info", "z.dds"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(!t.contains("count 0 is larger"), "{t}");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn sources_md_is_not_taken_for_a_broken_nwn_model() {
    let (_, t) = psxrender([
        "info".as_ref(),
        common::shared("samples/SOURCES.md").as_os_str(),
    ]);
    assert!(t.contains("not a file psxrender reads"), "{t}");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/gltf")]
fn gltf_errors_in_the_json_name_the_gltf_not_the_bin() {
    let sep = common::shared("samples/gltf/Fox-separate");
    let dir = scratch("fox-json");
    for f in ["Fox.bin", "Texture.png"] {
        std::fs::copy(sep.join(f), dir.join(f)).unwrap();
    }
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sep.join("Fox.gltf")).unwrap()).unwrap();
    // An accessor counting more elements than its view holds: the count is the JSON's.
    doc["accessors"][0]["count"] = json!(1_000_000);
    let path = dir.join("Fox.gltf");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    let e = psxrender::detect::load(&path, &LoadOptions::default())
        .err()
        .expect("refused");
    assert_eq!(e.file.as_deref(), Some(path.as_path()), "{e}");
    assert!(e.to_string().contains("accessors[0]"), "{e}");
}

#[test]
fn docs_commands_has_no_repeated_paragraph() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/commands.md"))
            .unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| l.len() > 40).collect();
    for (i, l) in lines.iter().enumerate() {
        assert!(!lines[i + 1..].contains(l), "repeated: {l}");
    }
}

#[test]
fn tga_claiming_a_huge_size_is_refused_from_its_header() {
    let mut tga = vec![0u8; 18 + 12];
    tga[2] = 2;
    tga[12..14].copy_from_slice(&60_000u16.to_le_bytes());
    tga[14..16].copy_from_slice(&60_000u16.to_le_bytes());
    tga[16] = 32;
    let e = psxrender::formats::nwn::textures::decode_tga(&tga).unwrap_err();
    assert!(e.contains("60000x60000") && e.contains("8192"), "{e}");
}
