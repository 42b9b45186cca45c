//! Everyday use (issue 21): `info` on every file psxrender reads, `texture`, creature skins
//! found beside the model, `--bg none`, sprite sheets and `--help` examples
//! (the README's examples are run by `tests/readme.rs`).

mod cli_run;
mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use cli_run::{psxrender, tmp};
use common::shared;
use psxrender::render::synthetic::Robot;
use psxrender::render::{RenderOptions, Renderer};
use psxrender::scene::{Model, PoseRequest};

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// SOURCES.md is the samples' documentation, not a sample.
fn is_sample(p: &Path) -> bool {
    p.file_name().unwrap() != "SOURCES.md"
}

/// A sample that nothing can identify from its content: a glTF `.bin` buffer is raw vertex
/// data without a header (only the `.gltf` naming it knows what it holds).
fn is_bare_buffer(p: &Path) -> bool {
    p.ends_with("gltf/Fox-separate/Fox.bin")
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn info_reads_every_sample_and_says_what_it_is() {
    let dir = shared("samples");
    let mut seen = HashSet::new();
    let files: Vec<PathBuf> = files_under(&dir)
        .into_iter()
        .filter(|p| is_sample(p))
        .collect();
    assert!(files.len() >= 35, "{} samples", files.len());
    assert_eq!(files.iter().filter(|p| is_bare_buffer(p)).count(), 1);
    for p in &files {
        if is_bare_buffer(p) {
            // Refused the way every unknown file is, text and --json alike.
            for args in [
                vec!["info".as_ref()],
                vec!["info".as_ref(), "--json".as_ref()],
            ] {
                let mut args: Vec<&std::ffi::OsStr> = args;
                args.push(p.as_os_str());
                let (code, out) = psxrender(args);
                assert_eq!(code, Some(2), "{}:\n{out}", p.display());
                assert!(out.contains("not a file psxrender reads"), "{out}");
                assert!(out.contains("  glTF: no \"glTF\" magic"), "{out}");
            }
            continue;
        }
        let (code, out) = psxrender(["info".as_ref(), p.as_os_str()]);
        assert_eq!(code, Some(0), "{}:\n{out}", p.display());
        let first = out.lines().next().unwrap_or("").to_string();
        println!("{}: {first}", p.display());
        seen.insert(first.split([' ', ':']).next().unwrap_or("").to_string());
        let (code, json) = psxrender(["info".as_ref(), "--json".as_ref(), p.as_os_str()]);
        assert_eq!(code, Some(0), "{}:\n{json}", p.display());
        let start = json.find('{').unwrap();
        let end = json.rfind('}').unwrap();
        let v: serde_json::Value = serde_json::from_str(&json[start..=end])
            .unwrap_or_else(|e| panic!("{}: {e}\n{json}", p.display()));
        assert!(v["format"].is_string(), "{}: {v}", p.display());
        assert!(v["kind"].is_string() && v["warnings"].is_array(), "{v}");
        if p.extension().is_some_and(|e| e == "glb" || e == "gltf") {
            assert!(first.starts_with("format: glTF 2.0"), "{first}");
            assert_eq!(v["format"], "glTF", "{}", p.display());
            assert_eq!(v["kind"], "model", "{}", p.display());
        }
    }
    // First words: models ("format: M2", "format: glTF", "NWN MDL"; FF9 has no sample),
    // textures (the DDS samples are BioWare's; the glTF folder's PNG), texture info.
    for want in [
        "TIM", "BLP2", "BioWare", "TGA", "PLT", "PNG", "NWN", "format",
    ] {
        assert!(seen.contains(want), "no {want} among {seen:?}");
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn info_facts_of_textures() {
    let dir = shared("samples");
    let (_, t) = psxrender(["info".as_ref(), dir.join("tim/texture.tim").as_os_str()]);
    assert!(t.contains("TIM texture: 128x128 px"), "{t}");
    assert!(t.contains("depth: 8bpp"), "{t}");
    assert!(t.contains("CLUTs: 1 of 256 colours"), "{t}");
    assert!(t.contains("its length field says 268"), "{t}");
    let (_, b) = psxrender([
        "info".as_ref(),
        dir.join("m2/rabbitskin2_default.blp").as_os_str(),
    ]);
    assert!(
        b.contains("compression: DXT5") && b.contains("mips: "),
        "{b}"
    );
    let (_, d) = psxrender([
        "info".as_ref(),
        dir.join("nwn/ttd01_cliff01.dds").as_os_str(),
    ]);
    assert!(d.contains("variant: BioWare") && d.contains("DXT1"), "{d}");
    let (_, p) = psxrender([
        "info".as_ref(),
        dir.join("nwn/pmh0_head001.plt").as_os_str(),
    ]);
    assert!(p.contains("layers: 10 in the header"), "{p}");
    let (_, g) = psxrender(["info".as_ref(), dir.join("nwn/black.tga").as_os_str()]);
    assert!(g.starts_with("TGA texture:"), "{g}");
}

#[test]
fn info_reads_gpu_dumps_and_text_streams() {
    let dump = tmp("everyday", "demo.psxgpu");
    let png = tmp("everyday", "demo-for-dump.png");
    let (code, out) = psxrender([
        "demo".as_ref(),
        png.as_os_str(),
        "--dump-gp0".as_ref(),
        dump.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = psxrender(["info".as_ref(), dump.as_os_str()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.starts_with("GPUDUMP (14-byte DuckStation magic"),
        "{out}"
    );
    assert!(out.contains("frames: 1"), "{out}");
    assert!(out.contains("quads") && out.contains("uploads"), "{out}");
    // The frame is cleared and drawn inside the 320x240 framebuffer at (0,0).
    assert!(out.contains("fills    (0,0)-(319,239), 320x240"), "{out}");
    let drawing = out.lines().find(|l| l.starts_with("  drawing")).unwrap();
    let nums: Vec<u32> = drawing
        .split(|c: char| !c.is_ascii_digit())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().unwrap())
        .collect();
    assert!(
        nums.len() == 6 && nums[2] < 320 && nums[3] < 240,
        "{drawing}"
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/gpu-images")]
fn info_reads_text_streams() {
    let stream = shared("hwtests/gpu-images/triangle/stream.txt");
    let (code, out) = psxrender(["info".as_ref(), stream.as_os_str()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("GPU text stream"), "{out}");
    assert!(out.contains("triangles"), "{out}");
    let (_, json) = psxrender(["info".as_ref(), "--json".as_ref(), stream.as_os_str()]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert!(v["census"]["gp0"]["triangles"].as_u64().unwrap() > 0, "{v}");
}

#[test]
fn an_unknown_file_names_the_formats_tried() {
    let junk = tmp("everyday", "junk.bin");
    std::fs::write(&junk, b"hello").unwrap();
    let (code, out) = psxrender(["info".as_ref(), junk.as_os_str()]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("not a file psxrender reads"), "{out}");
    // Its bytes are never shown: the file may be anyone's (issue 66).
    assert!(
        out.contains("(5 bytes; none shown") && !out.contains("hello"),
        "{out}"
    );
    for f in [
        "TIM",
        "BLP2",
        "DDS",
        "TGA",
        "PLT",
        "M2",
        "FF9",
        "GPUDUMP",
        "GPU text stream",
        "glTF",
    ] {
        assert!(out.contains(&format!("  {f}")), "{f} missing:\n{out}");
    }
    assert!(!out.contains("not a FF9 file"), "{out}");
    // Rendering it says the same; rendering a texture says what it is.
    let (code, out) = psxrender([junk.as_os_str()]);
    assert_eq!(code, Some(2));
    assert!(out.contains("not a file psxrender reads"), "{out}");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/tim")]
fn rendering_a_texture_says_it_is_not_a_model() {
    let tim = shared("samples/tim/texture.tim");
    let (code, out) = psxrender([tim.as_os_str()]);
    assert_eq!(code, Some(2));
    assert!(out.contains("is a TIM texture, not a model"), "{out}");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn texture_shows_the_ps1_form_beside_the_original() {
    let tim = shared("samples/tim/texture.tim");
    let out = tmp("everyday", "tex4.png");
    let tim_out = tmp("everyday", "tex4.tim");
    let (code, text) = psxrender([
        "texture".as_ref(),
        tim.as_os_str(),
        out.as_os_str(),
        "--depth".as_ref(),
        "4".as_ref(),
        "--tim".as_ref(),
        tim_out.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("PS1 4bpp 128x128"), "{text}");
    let img = image::open(&out).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (128 + 8 + 128, 128));
    // The right half holds at most 16 colours; the left is the 8bpp original with more.
    let colours = |x0: u32| {
        let mut s = HashSet::new();
        for y in 0..128 {
            for x in x0..x0 + 128 {
                s.insert(img.get_pixel(x, y).0);
            }
        }
        s.len()
    };
    assert!(colours(136) <= 16, "{} colours at 4bpp", colours(136));
    assert!(colours(0) > 16, "{} colours in the original", colours(0));
    let t = psxrender::formats::tim::Tim::parse(&std::fs::read(&tim_out).unwrap()).unwrap();
    assert_eq!(t.depth, psxrender::formats::tim::TimDepth::Bpp4);
    assert_eq!(t.clut.as_ref().unwrap().data.len(), 16);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn rabbit_finds_its_skin_without_texture() {
    let (model, skin) = (
        shared("samples/m2/Rabbit2.m2"),
        shared("samples/m2/rabbitskin2_default.blp"),
    );
    let auto = tmp("everyday", "rabbit-auto.png");
    let given = tmp("everyday", "rabbit-given.png");
    let (code, out) = psxrender([model.as_os_str(), auto.as_os_str()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("note: M2 texture 0 (type 11"), "{out}");
    assert!(out.contains("rabbitskin2_default.blp"), "{out}");
    assert!(!out.contains("checkerboard"), "{out}");
    let arg = format!("11={}", skin.display());
    let (code, _) = psxrender([
        model.as_os_str(),
        given.as_os_str(),
        "--texture".as_ref(),
        arg.as_ref(),
    ]);
    assert_eq!(code, Some(0));
    let (a, b) = (image::open(&auto).unwrap(), image::open(&given).unwrap());
    assert_eq!(
        a.to_rgb8().as_raw(),
        b.to_rgb8().as_raw(),
        "same picture as --texture 11="
    );
    // No magenta checker anywhere.
    assert!(!a.to_rgb8().pixels().any(|p| p.0 == [255, 0, 255]));
    let (_, info) = psxrender(["info".as_ref(), model.as_os_str()]);
    assert!(info.contains("[skin search]"), "{info}");
    assert!(info.contains("skins (rabbitskin2*.blp"), "{info}");
    assert!(
        info.contains("  0: rabbitskin2_default.blp (in use)"),
        "{info}"
    );
    let (code, out) = psxrender([
        model.as_os_str(),
        auto.as_os_str(),
        "--skin".as_ref(),
        "winter".as_ref(),
    ]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("0: rabbitskin2_default.blp"), "{out}");
}

fn robot_opts(background: [u8; 3], transparent: bool) -> RenderOptions {
    RenderOptions {
        background,
        transparent,
        framing: PoseRequest {
            animation: Some(0),
            frame: 3,
            camera: None,
        },
        ..RenderOptions::default()
    }
}

fn render(model: &dyn Model, o: &RenderOptions) -> psxrender::render::Frame {
    let mut r = Renderer::new(model, o).unwrap();
    r.render(&o.framing).unwrap()
}

/// `--bg none` on the synthetic robot (opaque, cut-out and alpha-blended faces): alpha is
/// 255 wherever two renders on different backgrounds agree, 0 only where the clear colour
/// shows in both, and the colours are those of the plain render.
#[test]
fn bg_none_marks_exactly_what_the_gpu_drew() {
    let robot = Robot::default();
    let (a, b) = ([0x20, 0x20, 0x30], [0xf0, 0x80, 0x08]);
    let plain_a = render(&robot, &robot_opts(a, false));
    let plain_b = render(&robot, &robot_opts(b, false));
    let none = render(&robot, &robot_opts(a, true));
    let none_b = render(&robot, &robot_opts(b, true));
    let alpha = none.alpha.as_ref().expect("alpha with transparent");
    assert!(plain_a.alpha.is_none());
    assert_eq!(
        none.rgb, plain_a.rgb,
        "RGB bit-identical to the plain render"
    );
    assert_eq!(
        none.alpha, none_b.alpha,
        "what was drawn does not depend on the colour"
    );
    let shown =
        |f: &psxrender::render::Frame, i: usize| [f.rgb[3 * i], f.rgb[3 * i + 1], f.rgb[3 * i + 2]];
    let bg = |c: [u8; 3]| c.map(|v| psxrender::output::expand5(u16::from(v >> 3)));
    let (mut opaque, mut clear, mut blended) = (0, 0, 0);
    for (i, &al) in alpha.iter().enumerate() {
        let (pa, pb) = (shown(&plain_a, i), shown(&plain_b, i));
        if pa == pb {
            assert_eq!(al, 255, "pixel {i} is the same on both backgrounds");
            opaque += 1;
        } else if al == 0 {
            assert_eq!(
                (pa, pb),
                (bg(a), bg(b)),
                "pixel {i}: alpha 0 but not the clear colour"
            );
            clear += 1;
        } else {
            blended += 1;
        }
    }
    println!("{opaque} opaque, {clear} clear, {blended} semi-transparent over the background");
    assert!(opaque > 1000 && clear > 10_000 && blended > 0);
}

/// On a model without semi-transparent faces the mask is exactly "drawn": alpha 255 where two
/// backgrounds agree and 0 elsewhere.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn bg_none_on_an_opaque_model_is_exact() {
    let crate_path = shared("samples/m2/STORMWINDCRATE01.M2");
    let model = psxrender::detect::load(&crate_path, &Default::default()).unwrap();
    let opts = |bg, t| RenderOptions {
        background: bg,
        transparent: t,
        ..RenderOptions::default()
    };
    let a = render(model.as_ref(), &opts([0, 0, 0], false));
    let b = render(model.as_ref(), &opts([255, 255, 255], false));
    let none = render(model.as_ref(), &opts([0, 0, 0], true));
    let alpha = none.alpha.unwrap();
    assert_eq!(none.rgb, a.rgb);
    let mut drawn = 0;
    for (i, &al) in alpha.iter().enumerate() {
        let same = a.rgb[3 * i..3 * i + 3] == b.rgb[3 * i..3 * i + 3];
        assert_eq!(al == 255, same, "pixel {i}");
        drawn += same as usize;
    }
    assert!(drawn > 5000, "{drawn} pixels drawn");
}

#[test]
fn bg_none_writes_an_rgba_png() {
    let out = tmp("everyday", "robot-none.png");
    let plain = tmp("everyday", "robot-plain.png");
    let (code, o) = psxrender([
        "demo".as_ref(),
        "--robot".as_ref(),
        out.as_os_str(),
        "--bg".as_ref(),
        "none".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{o}");
    psxrender(["demo".as_ref(), "--robot".as_ref(), plain.as_os_str()]);
    let img = image::open(&out).unwrap();
    assert_eq!(img.color(), image::ColorType::Rgba8);
    let rgba = img.to_rgba8();
    let rgb = image::open(&plain).unwrap().to_rgb8();
    assert_eq!(rgba.get_pixel(0, 0).0[3], 0, "the corner is background");
    assert!(rgba.pixels().any(|p| p.0[3] == 255));
    for (p, q) in rgba.pixels().zip(rgb.pixels()) {
        assert_eq!(p.0[..3], q.0, "RGB equals the plain render's");
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn turntable_sheet_of_8_angles_by_12_frames() {
    let model = shared("samples/m2/Rabbit2.m2");
    let out = tmp("everyday", "turn.png");
    let (code, o) = psxrender([
        model.as_os_str(),
        out.as_os_str(),
        "--anim".as_ref(),
        "Walk".as_ref(),
        "--frames".as_ref(),
        "0..12".as_ref(),
        "--sheet".as_ref(),
        "auto".as_ref(),
        "--yaw-steps".as_ref(),
        "8".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{o}");
    let sheet = image::open(&out).unwrap().to_rgb8();
    assert_eq!(sheet.dimensions(), (12 * 320, 8 * 240));
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.with_extension("json")).unwrap()).unwrap();
    assert_eq!(index["image"], "turn.png");
    assert_eq!(
        (&index["width"], &index["height"]),
        (&3840.into(), &1920.into())
    );
    assert_eq!((&index["columns"], &index["rows"]), (&12.into(), &8.into()));
    assert_eq!(index["animation"], "Walk");
    let cells = index["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 96);
    let mut covered = HashSet::new();
    for c in cells {
        let get = |k: &str| c[k].as_u64().unwrap() as u32;
        let (x, y, w, h, col, row, frame) = (
            get("x"),
            get("y"),
            get("w"),
            get("h"),
            get("column"),
            get("row"),
            get("frame"),
        );
        assert_eq!((x, y, w, h), (col * 320, row * 240, 320, 240), "{c}");
        assert_eq!(frame, col, "columns are frames");
        assert!((c["time_s"].as_f64().unwrap() - f64::from(frame) / 30.0).abs() < 1e-9);
        assert_eq!(
            c["yaw"].as_f64().unwrap(),
            f64::from(row) * 45.0,
            "rows are angles"
        );
        assert!(covered.insert((col, row)), "cell {col},{row} twice");
    }
    // Each cell is the picture a plain render at that yaw and the sheet's distance makes.
    let distance = index["distance"].as_f64().unwrap().to_string();
    for (row, frame) in [(3u32, 5u32), (6, 11)] {
        let yaw = (row * 45).to_string();
        let single = tmp("everyday", &format!("turn-y{row}.png"));
        let (code, o) = psxrender([
            model.as_os_str(),
            single.as_os_str(),
            "--anim".as_ref(),
            "Walk".as_ref(),
            "--frames".as_ref(),
            "0..12".as_ref(),
            "--yaw".as_ref(),
            yaw.as_ref(),
            "--distance".as_ref(),
            distance.as_ref(),
        ]);
        assert_eq!(code, Some(0), "{o}");
        let one = image::open(single.with_file_name(format!("turn-y{row}_{frame:04}.png")))
            .unwrap()
            .to_rgb8();
        let cell = image::imageops::crop_imm(&sheet, frame * 320, row * 240, 320, 240).to_image();
        assert!(
            cell.as_raw() == one.as_raw(),
            "cell row {row} frame {frame} differs"
        );
    }
    // The rows really turn: the front row and the back row differ.
    let front = image::imageops::crop_imm(&sheet, 0, 0, 320, 240).to_image();
    let back = image::imageops::crop_imm(&sheet, 0, 4 * 240, 320, 240).to_image();
    assert!(front.as_raw() != back.as_raw());
}

#[test]
fn help_shows_every_new_option_with_an_example() {
    let (_, help) = psxrender(["--help"]);
    for opt in ["--bg <RRGGBB|none>", "--sheet", "--yaw-steps", "--skin"] {
        assert!(help.contains(opt), "{opt} missing from --help:\n{help}");
    }
    assert!(help.matches("Example:").count() >= 4, "{help}");
    let (_, help) = psxrender(["texture", "--help"]);
    assert!(
        help.contains("Example:") && help.contains("--depth"),
        "{help}"
    );
    let (_, help) = psxrender(["info", "--help"]);
    assert!(
        help.contains("--json") && help.contains("Examples:"),
        "{help}"
    );
}

/// `info` on cut and bit-flipped copies of every sample texture and of a GPUDUMP: an answer
/// or an error naming the file, never a panic.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn info_on_damaged_files_never_panics() {
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for p in files_under(&shared("samples"))
        .into_iter()
        .filter(|p| is_sample(p) && !is_bare_buffer(p))
    {
        let data = std::fs::read(&p).unwrap();
        let kind = psxrender::detect::identify(&data).unwrap();
        if kind.role() != psxrender::detect::Role::Model {
            inputs.push((p.file_name().unwrap().to_string_lossy().into(), data));
        }
    }
    let dump = tmp("everyday", "damaged-src.psxgpu");
    psxrender([
        "demo".as_ref(),
        tmp("everyday", "damaged-src.png").as_os_str(),
        "--dump-gp0".as_ref(),
        dump.as_os_str(),
    ]);
    inputs.push(("demo.psxgpu".into(), std::fs::read(&dump).unwrap()));
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let path = tmp("everyday", "damaged.bin");
    let (mut ok, mut refused) = (0, 0);
    for (name, data) in &inputs {
        for k in 0..12u64 {
            let mut d = data.clone();
            if k < 6 {
                d.truncate((data.len() as u64 * k / 6) as usize + (next() % 64) as usize);
            } else {
                for _ in 0..1 + next() % 6 {
                    let i = (next() % d.len() as u64) as usize;
                    d[i] ^= 1 << (next() % 8);
                }
            }
            std::fs::write(&path, &d).unwrap();
            match psxrender::describe::describe(&path, &Default::default()) {
                Ok(desc) => {
                    ok += 1;
                    let _ = (desc.text(), desc.json(&path));
                }
                Err(e) => {
                    refused += 1;
                    assert!(e.to_string().contains("damaged.bin"), "{name}: {e}");
                }
            }
        }
    }
    println!("{} inputs: {ok} described, {refused} refused", inputs.len());
    assert!(refused > 0 && ok > 0);
}
