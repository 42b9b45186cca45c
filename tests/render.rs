//! The render pipeline end to end: goldens (exact) for the synthetic models and the shared
//! samples, culling, sorting, dump round trips, parallel == serial, and the CLI's exit codes.
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use psxrender::formats::{ff9, LoadOptions};
use psxrender::render::camera::View;
use psxrender::render::synthetic::Robot;
use psxrender::render::{default_animation, Frame, RenderError, RenderOptions, Renderer};
use psxrender::scene::{
    AnimationInfo, Blend, Face, FaceTexture, Model, PoseRequest, PosedMesh, Shading, Vertex,
};

fn opts(animation: Option<usize>, frame: u32) -> RenderOptions {
    RenderOptions {
        framing: PoseRequest {
            animation,
            frame,
            camera: None,
        },
        ..RenderOptions::default()
    }
}

fn render(model: &dyn Model, o: &RenderOptions, frame: u32) -> Frame {
    let mut r = Renderer::new(model, o).unwrap();
    r.render(&PoseRequest {
        animation: o.framing.animation,
        frame,
        camera: None,
    })
    .unwrap()
}

/// Renders like `psxrender MODEL --anim A --frame F`: framed on that frame.
fn golden(name: &str, model: &dyn Model, animation: Option<usize>, frames: [u32; 2]) {
    golden_view(name, model, animation, frames, View::default());
}

fn golden_view(
    name: &str,
    model: &dyn Model,
    animation: Option<usize>,
    frames: [u32; 2],
    view: View,
) {
    for f in frames {
        // Every thread count draws the golden picture (the GPU's plan depends on the count
        // alone, whatever the machine's cores).
        for threads in [0, 1, 2, 3, 5, 8, 16, 33, 64] {
            let o = RenderOptions {
                view,
                threads,
                ..opts(animation, f)
            };
            let mut r = Renderer::new(model, &o).unwrap();
            let frame = r
                .render(&PoseRequest {
                    animation,
                    frame: f,
                    camera: None,
                })
                .unwrap();
            assert!(frame.stats.drawn > 0, "{name} frame {f}: nothing drawn");
            common::assert_golden(
                &format!("{name}_f{f}"),
                frame.width,
                frame.height,
                &frame.rgb,
            );
        }
    }
}

#[test]
fn golden_robot() {
    golden("robot", &Robot::default(), Some(0), [0, 10]);
}

#[test]
fn golden_ff9_demo_character() {
    let model = ff9::load(
        Path::new("demo"),
        &ff9::demo_character(),
        &LoadOptions::default(),
    )
    .unwrap();
    golden("ff9_demo", &model, Some(0), [0, 5]);
}

#[test]
fn golden_nwn_synthetic() {
    use psxrender::formats::nwn;
    let bytes = nwn::writer::build(&nwn::writer::sample_model());
    let model = nwn::load(Path::new("synth.mdl"), &bytes, &LoadOptions::default()).unwrap();
    // Its one quad faces NWN −Y, the scene's back (−Z): seen from behind.
    let view = View {
        yaw: 215.0,
        ..View::default()
    };
    golden_view("nwn_synthetic", &model, Some(0), [0, 15], view);
}

/// The M2 writer's own model: a 3×1.6×2 plank box (TBC layout, int16 quaternions) turning about
/// its bone on a 1 s Stand sequence, textured from a palettized BLP2 the writer also made.
#[test]
fn golden_m2_synthetic() {
    use psxrender::formats::blp;
    use psxrender::formats::m2::writer::{
        SynthBatch, SynthBone, SynthModel, SynthSequence, SynthTrack, SynthVertex,
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("render-m2-synthetic");
    std::fs::create_dir_all(&dir).unwrap();
    // 16×16 planks: three browns in horizontal boards, a dark frame and a dark diagonal.
    let palette = [[120, 72, 32], [150, 96, 44], [176, 120, 60], [40, 24, 12]];
    let indices: Vec<u8> = (0..256)
        .map(|i| {
            let (x, y) = (i % 16, i / 16);
            if x == 0 || y == 0 || x == 15 || y == 15 || x == y || x == 15 - y {
                3
            } else {
                (y / 5) as u8 % 3
            }
        })
        .collect();
    let texture = blp::write_palettized(16, 16, &palette, &indices, &[255; 256], 0);
    std::fs::write(dir.join("planks.blp"), texture).unwrap();

    // WoW space: x forward, y left, z up. Each face: centre normal n, tangents u × v = n, so
    // corners (−u−v, +u−v, +u+v, −u+v) wind counter-clockwise seen from outside.
    let half = [1.5f32, 0.8, 1.0];
    let axes: [([f32; 3], usize, usize); 6] = [
        ([1.0, 0.0, 0.0], 1, 2),
        ([-1.0, 0.0, 0.0], 2, 1),
        ([0.0, 1.0, 0.0], 2, 0),
        ([0.0, -1.0, 0.0], 0, 2),
        ([0.0, 0.0, 1.0], 0, 1),
        ([0.0, 0.0, -1.0], 1, 0),
    ];
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for (n, u, v) in axes {
        let base = vertices.len() as u16;
        for (su, sv, uv) in [
            (-1.0, -1.0, [0.0, 1.0]),
            (1.0, -1.0, [1.0, 1.0]),
            (1.0, 1.0, [1.0, 0.0]),
            (-1.0, 1.0, [0.0, 0.0]),
        ] {
            let mut p = [0.0f32; 3];
            for k in 0..3 {
                p[k] = n[k] * half[k];
            }
            p[u] += su * half[u];
            p[v] += sv * half[v];
            p[2] += half[2]; // stand on the ground
            vertices.push(SynthVertex {
                position: p,
                weights: [255, 0, 0, 0],
                bones: [0; 4],
                normal: n,
                uv,
            });
        }
        triangles.push([base, base + 1, base + 2]);
        triangles.push([base, base + 2, base + 3]);
    }
    let turn = |deg: f32| {
        let h = deg.to_radians() / 2.0;
        [0.0, 0.0, h.sin(), h.cos()]
    };
    let model = SynthModel {
        version: 263,
        name: "PlankBox".into(),
        sequences: vec![SynthSequence {
            id: 0,
            variation: 0,
            start_ms: 0,
            end_ms: 1000,
        }],
        bones: vec![SynthBone {
            parent: -1,
            rotation: SynthTrack {
                interpolation: 1,
                global_sequence: -1,
                ranges: vec![(0, 2)],
                times: vec![0, 500, 1000],
                values: vec![turn(0.0), turn(60.0), turn(120.0)],
            },
            ..Default::default()
        }],
        vertices,
        batches: vec![SynthBatch {
            triangles,
            texture: Some(0),
            ..Default::default()
        }],
        textures: vec![(0, r"World\Synthetic\PLANKS.BLP".into())],
        ..Default::default()
    };
    let path = dir.join("plankbox.m2");
    std::fs::write(&path, model.write()).unwrap();
    let loaded = psxrender::detect::load(&path, &LoadOptions::default()).unwrap();
    assert!(loaded.warnings().is_empty(), "{:?}", loaded.warnings());
    golden("m2_synthetic", loaded.as_ref(), Some(0), [0, 15]);
}

fn sample(sub: &str, opts: LoadOptions) -> Box<dyn Model> {
    let path = common::shared(sub);
    psxrender::detect::load(&path, &opts).unwrap_or_else(|e| panic!("{sub}: {e}"))
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn golden_m2_samples() {
    let skin = LoadOptions {
        replaceable_textures: vec![(11, common::shared("samples/m2/rabbitskin2_default.blp"))],
        ..LoadOptions::default()
    };
    let m = sample("samples/m2/Rabbit2.m2", skin);
    // Animation 2 is "Stand" (what the CLI picks by default), 0 is "Walk".
    golden("m2_rabbit2", m.as_ref(), Some(2), [0, 10]);
    golden("m2_rabbit2_walk", m.as_ref(), Some(0), [0, 10]);
    let m = sample("samples/m2/STORMWINDCRATE01.M2", LoadOptions::default());
    golden("m2_stormwindcrate01", m.as_ref(), Some(0), [0, 10]);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn golden_nwn_samples() {
    for name in [
        "c_aribeth",
        "c_satyr.ascii",
        "c_satyrarcher",
        "a_fa",
        "it_torch_000",
    ] {
        let m = sample(&format!("samples/nwn/{name}.mdl"), LoadOptions::default());
        let tag = format!("nwn_{}", name.replace('.', "_"));
        golden(&tag, m.as_ref(), default_animation(m.as_ref()), [0, 10]);
    }
    // The torch burning: flame and smoke sprites through the GTE and the ordering table.
    let m = sample("samples/nwn/it_torch_000.mdl", LoadOptions::default());
    golden(
        "nwn_it_torch_000",
        m.as_ref(),
        default_animation(m.as_ref()),
        [45, 60],
    );
    // An area tile is built to be seen from the south (scene −Z) and above, as the game's
    // camera does; from the default front 3/4 view its black void shroud hides the cliff.
    let m = sample("samples/nwn/ttd01_a04_03.mdl", LoadOptions::default());
    let view = View {
        yaw: 200.0,
        pitch: 50.0,
        ..View::default()
    };
    golden_view("nwn_ttd01_a04_03", m.as_ref(), None, [0, 10], view);
}

/// A fixed mesh: faces given, no animation.
struct Fixed(PosedMesh);

impl Model for Fixed {
    fn format(&self) -> &'static str {
        "test"
    }
    fn animations(&self) -> Vec<AnimationInfo> {
        Vec::new()
    }
    fn pose(&self, _: &PoseRequest) -> PosedMesh {
        self.0.clone()
    }
    fn info(&self) -> String {
        String::new()
    }
    fn facts(&self) -> serde_json::Value {
        serde_json::json!({ "format": "test" })
    }
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A flat quad at depth `z` facing +Z (or -Z when `back`), 2 units square, in `rgb`.
fn quad(mesh: &mut PosedMesh, z: f32, back: bool, rgb: [u8; 3], two_sided: bool) {
    let base = mesh.vertices.len() as u32;
    let xs = if back { [1.0, -1.0] } else { [-1.0, 1.0] };
    for (x, y) in [(xs[0], -1.0), (xs[1], -1.0), (xs[0], 1.0), (xs[1], 1.0)] {
        mesh.vertices.push(Vertex {
            position: [x, y, z],
            normal: [0.0, 0.0, if back { -1.0 } else { 1.0 }],
        });
    }
    mesh.faces.push(Face {
        vertices: [base, base + 1, base + 2, base + 3],
        corners: 4,
        colors: [rgb; 4],
        texture: FaceTexture::None,
        blend: Blend::Opaque,
        two_sided,
    });
}

fn flat_opts() -> RenderOptions {
    RenderOptions {
        view: View {
            yaw: 0.0,
            pitch: 0.0,
            distance: Some(6.0),
            fov: 50.0,
        },
        dither: false,
        lighting: false,
        background: [0, 0, 0],
        ..RenderOptions::default()
    }
}

fn pixel(f: &Frame, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * f.width + x) * 3) as usize;
    [f.rgb[i], f.rgb[i + 1], f.rgb[i + 2]]
}

#[test]
fn back_faces_are_culled_unless_two_sided() {
    let mut m = PosedMesh {
        shading: Shading::VertexColors,
        ..PosedMesh::default()
    };
    quad(&mut m, 0.0, true, [200, 0, 0], false);
    let f = render(&Fixed(m.clone()), &flat_opts(), 0);
    assert_eq!((f.stats.drawn, f.stats.back_faces), (0, 1));
    assert!(f.rgb.iter().all(|&c| c == 0), "a culled face left pixels");
    m.faces[0].two_sided = true;
    let f = render(&Fixed(m), &flat_opts(), 0);
    assert_eq!(f.stats.drawn, 1);
    // Untextured: the colour itself, 5 bits per channel widened (200 >> 3 = 25 → 206).
    assert_eq!(pixel(&f, 160, 120), [206, 0, 0]);
}

#[test]
fn front_faces_draw_and_sort_back_to_front() {
    let mut m = PosedMesh {
        shading: Shading::VertexColors,
        ..PosedMesh::default()
    };
    // The near quad is submitted first: only the ordering table puts it on top.
    quad(&mut m, 1.0, false, [0, 128, 0], false);
    quad(&mut m, -1.0, false, [0, 0, 128], false);
    let f = render(&Fixed(m), &flat_opts(), 0);
    assert_eq!(f.stats.drawn, 2);
    assert_eq!(pixel(&f, 160, 120), [0, 132, 0], "near quad must win");
}

#[test]
fn polygons_at_or_behind_the_camera_are_culled_not_drawn_wrong() {
    let mut m = PosedMesh {
        shading: Shading::VertexColors,
        ..PosedMesh::default()
    };
    quad(&mut m, 0.0, false, [128, 128, 128], false);
    quad(&mut m, 5.95, false, [128, 0, 0], false);
    quad(&mut m, 8.0, false, [128, 0, 0], false);
    // The framing centre is the box centre z = 4: the camera sits at z = 5.97, just behind the
    // second quad (closer than H/2: divide overflow) and in front of the third (behind it).
    let mut o = flat_opts();
    o.view.distance = Some(1.97);
    let f = render(&Fixed(m), &o, 0);
    assert_eq!(f.stats.drawn, 1, "{:?}", f.stats);
    assert_eq!(f.stats.clipped, 2, "{:?}", f.stats);
    assert_eq!(pixel(&f, 160, 120), [132, 132, 132]);
}

#[test]
fn bad_faces_are_counted_and_skipped() {
    let mut m = PosedMesh::default();
    quad(&mut m, 0.0, false, [128; 3], false);
    m.faces[0].vertices[3] = 99;
    let mut f2 = m.faces[0].clone();
    f2.corners = 7;
    m.faces.push(f2);
    let f = render(&Fixed(m), &flat_opts(), 0);
    assert_eq!(f.stats.invalid, 2);
}

#[test]
fn non_ps1_sizes_are_refused() {
    let o = RenderOptions {
        width: 321,
        ..RenderOptions::default()
    };
    assert_eq!(
        Renderer::new(&Robot::default(), &o).err(),
        Some(RenderError::BadSize {
            width: 321,
            height: 240
        })
    );
}

#[test]
fn frame_starts_with_environment_and_clear() {
    let f = render(&Robot::default(), &opts(None, 0), 3);
    assert_eq!(f.gp0[0] >> 24, 0xE1);
    assert!(
        f.gp0[..12].iter().any(|w| w >> 24 == 0x02),
        "no GP0(02h) fill"
    );
}

#[test]
fn every_size_renders_and_parallel_matches_serial() {
    let robot = Robot::default();
    for (w, h) in [(256, 240), (368, 240), (512, 480), (640, 480)] {
        let o = RenderOptions {
            width: w,
            height: h,
            threads: 1,
            ..opts(None, 0)
        };
        let mut serial = Renderer::new(&robot, &o).unwrap();
        let banded = serial.template().renderer(0);
        let mut banded = banded;
        let req = PoseRequest {
            animation: None,
            frame: 7,
            camera: None,
        };
        let a = serial.render(&req).unwrap();
        let b = banded.render(&req).unwrap();
        assert_eq!((a.width, a.height), (w, h));
        assert!(a.rgb == b.rgb, "{w}x{h}: banded GPU differs from serial");
        // Rendering another frame first changes nothing.
        let mut fresh = serial.template().renderer(1);
        fresh
            .render(&PoseRequest {
                frame: 2,
                ..req.clone()
            })
            .unwrap();
        assert!(
            fresh.render(&req).unwrap().rgb == a.rgb,
            "{w}x{h}: history leaks"
        );
    }
}

/// The frame as the CLI's `--dump-gp0` writes it.
fn gpudump(r: &Renderer, f: &Frame) -> Vec<u8> {
    let comment = format!("psxrender test ({} model)", r.model().format());
    psxrender::capture::dump::frame_dump(
        psxrender::capture::dump::Form::default(),
        &comment,
        &r.initial_vram(),
        r.gp1_setup(),
        &f.gp0,
    )
}

fn replay_display(dump: &[u8]) -> psxrender::capture::display::Picture {
    let input = psxrender::capture::input::Input::parse(dump).unwrap();
    let done = psxrender::capture::replay::run(&input, Default::default()).unwrap();
    let mut gpu = done.gpu;
    let d = gpu.display();
    psxrender::capture::display::shown(gpu.vram(), &d)
}

#[test]
fn gpudump_replays_to_the_same_picture() {
    let robot = Robot::default();
    let model = ff9::load(
        Path::new("demo"),
        &ff9::demo_character(),
        &LoadOptions::default(),
    )
    .unwrap();
    for (model, size) in [(&robot as &dyn Model, (320, 240)), (&model, (368, 480))] {
        let o = RenderOptions {
            width: size.0,
            height: size.1,
            ..opts(None, 4)
        };
        let mut r = Renderer::new(model, &o).unwrap();
        let f = r
            .render(&PoseRequest {
                animation: None,
                frame: 4,
                camera: None,
            })
            .unwrap();
        let p = replay_display(&gpudump(&r, &f));
        assert_eq!((p.width, p.height), (f.width, f.height));
        assert!(p.rgb == f.rgb, "{}: replayed dump differs", model.format());
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn sample_gpudumps_replay_to_the_same_picture() {
    for sub in [
        "samples/nwn/c_aribeth.mdl",
        "samples/nwn/ttd01_a04_03.mdl",
        "samples/m2/Rabbit2.m2",
        // Effect sprites are GP0 words like any polygon: the torch's smoke, Imp2's flames.
        "samples/nwn/it_torch_000.mdl",
        "samples/m2/Imp2.m2",
    ] {
        let m = sample(sub, LoadOptions::default());
        let anim = default_animation(m.as_ref());
        let mut r = Renderer::new(m.as_ref(), &opts(anim, 10)).unwrap();
        let f = r
            .render(&PoseRequest {
                animation: anim,
                frame: 10,
                camera: None,
            })
            .unwrap();
        let p = replay_display(&gpudump(&r, &f));
        assert!(p.rgb == f.rgb, "{sub}: replayed dump differs");
    }
}

fn psxrender() -> Command {
    Command::new(env!("CARGO_BIN_EXE_psxrender"))
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("render-cli");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn cli_demo_frames_gif_and_dump() {
    let out = tmp("demo.png");
    let s = psxrender().args(["demo"]).arg(&out).output().unwrap();
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    assert_eq!(image::open(&out).unwrap().width(), 320);

    let seq = tmp("seq.png");
    let s = psxrender()
        .args(["demo", "--robot", "--frames", "0..3", "--threads", "2"])
        .arg(&seq)
        .output()
        .unwrap();
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    for n in 0..3 {
        assert!(tmp(&format!("seq_{n:04}.png")).exists());
    }

    let gif = tmp("anim.gif");
    let s = psxrender()
        .args(["demo", "--frames", "0..=2", "--gif"])
        .arg(&gif)
        .output()
        .unwrap();
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    assert_eq!(&std::fs::read(&gif).unwrap()[..3], b"GIF");

    let png = tmp("d.png");
    let dump = tmp("d.psxgpu");
    let back = tmp("back.png");
    let s = psxrender()
        .args(["demo", "--frame", "3", "--size", "512x240", "--dump-gp0"])
        .arg(&dump)
        .arg(&png)
        .output()
        .unwrap();
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    let s = psxrender()
        .arg("replay")
        .arg(&dump)
        .arg("--display")
        .arg(&back)
        .output()
        .unwrap();
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    assert_eq!(std::fs::read(&png).unwrap(), std::fs::read(&back).unwrap());
}

#[test]
fn cli_errors_name_the_cause_and_exit_codes_follow_the_docs() {
    let bad = tmp("bad.mdl");
    std::fs::write(&bad, [0u8; 40]).unwrap();
    let s = psxrender().arg(&bad).arg(tmp("x.png")).output().unwrap();
    assert_eq!(s.status.code(), Some(2));
    let err = String::from_utf8_lossy(&s.stderr);
    assert!(err.contains("bad.mdl"), "{err}");

    let s = psxrender()
        .args(["demo", "--size", "300x200"])
        .output()
        .unwrap();
    assert_eq!(s.status.code(), Some(2));

    let s = psxrender()
        .args(["demo", "--anim", "no-such-animation"])
        .arg(tmp("y.png"))
        .output()
        .unwrap();
    assert_eq!(s.status.code(), Some(2));

    let s = psxrender()
        .args(["demo", "/nonexistent-dir/x.png"])
        .output()
        .unwrap();
    assert_eq!(s.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&s.stderr).contains("/nonexistent-dir/x.png"));

    let s = psxrender().output().unwrap();
    assert_eq!(s.status.code(), Some(2));
}

/// The picture at each texture depth (4, 8, 15 bpp), frame 3 of animation 0.
fn pictures_at_each_depth(model: &dyn Model) -> Vec<Vec<u8>> {
    use psxrender::texture::TextureDepth;
    [TextureDepth::Bpp4, TextureDepth::Bpp8, TextureDepth::Bpp15]
        .into_iter()
        .map(|depth| {
            let o = RenderOptions {
                depth,
                ..opts(Some(0), 3)
            };
            let f = render(model, &o, 3);
            assert!(f.stats.drawn > 0);
            f.rgb
        })
        .collect()
}

#[test]
fn texture_depths_all_render_and_few_colours_quantise_losslessly() {
    // The robot's textures have at most 16 colours each: every depth gives the same picture.
    let p = pictures_at_each_depth(&Robot::default());
    assert!(p[0] == p[1] && p[1] == p[2], "lossless depths differ");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn many_colours_do_not_survive_4bpp() {
    // The crate's texture has thousands: 16 colours cannot match 15-bit direct colour.
    let m = sample("samples/m2/STORMWINDCRATE01.M2", LoadOptions::default());
    let p = pictures_at_each_depth(m.as_ref());
    assert!(p[0] != p[2], "4bpp and 15bpp crate pictures are identical");
}
