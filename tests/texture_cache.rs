//! `--cache DIR`: the same pictures with and without the texture cache, cold and warm, with
//! four processes filling one cache at once; a warm render decodes no texture file.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use psxrender::formats::LoadOptions;
use psxrender::render::{Frame, RenderOptions, Renderer};
use psxrender::scene::{PoseRequest, Texture};
use psxrender::texture::{cache::DEFAULT_LIMIT, TextureCache};

fn render(model: &Path, out: &Path, cache: Option<&Path>) -> std::process::Child {
    let mut c = Command::new(env!("CARGO_BIN_EXE_psxrender"));
    c.arg(model)
        .arg(out)
        .args(["--frame", "10", "--threads", "1"]);
    if let Some(dir) = cache {
        c.arg("--cache").arg(dir);
    }
    c.stderr(std::process::Stdio::null()).spawn().unwrap()
}

fn run(model: &Path, out: &Path, cache: Option<&Path>) {
    assert!(render(model, out, cache).wait().unwrap().success());
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn four_processes_at_once_fill_one_cache_and_draw_the_same() {
    let scratch: PathBuf =
        std::env::temp_dir().join(format!("psxrender-cache-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let cache = scratch.join("cache");
    for sub in ["samples/m2/Rabbit2.m2", "samples/nwn/c_aribeth.mdl"] {
        let model = common::shared(sub);
        let plain = scratch.join("plain.png");
        run(&model, &plain, None);
        let expected = std::fs::read(&plain).unwrap();
        for round in ["cold", "warm"] {
            let outs: Vec<PathBuf> = (0..4)
                .map(|n| scratch.join(format!("{round}{n}.png")))
                .collect();
            let children: Vec<_> = outs
                .iter()
                .map(|o| render(&model, o, Some(&cache)))
                .collect();
            for mut c in children {
                assert!(c.wait().unwrap().success());
            }
            for o in &outs {
                assert!(
                    std::fs::read(o).unwrap() == expected,
                    "{sub} {round}: {} differs from the render without a cache",
                    o.display()
                );
            }
        }
    }
    let names: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(!names.is_empty());
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".tex") || n.ends_with(".src")),
        "only whole entries are left: {names:?}"
    );
}

/// Frame 10 of `model` loaded and drawn with `cache` (or none), and the textures of its pose.
fn frame_and_textures(model: &Path, cache: Option<&Arc<TextureCache>>) -> (Frame, Vec<Texture>) {
    let opts = LoadOptions {
        texture_cache: cache.cloned(),
        ..LoadOptions::default()
    };
    let m = psxrender::detect::load(model, &opts).unwrap();
    let request = PoseRequest {
        frame: 10,
        ..PoseRequest::default()
    };
    let render = RenderOptions {
        framing: request.clone(),
        texture_cache: cache.cloned(),
        threads: 1,
        ..RenderOptions::default()
    };
    let frame = Renderer::new(&*m, &render)
        .unwrap()
        .render(&request)
        .unwrap();
    (frame, m.pose(&request).textures)
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn a_warm_render_decodes_no_texture_file_and_draws_the_same() {
    let scratch: PathBuf =
        std::env::temp_dir().join(format!("psxrender-cache-lazy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let cache = Arc::new(TextureCache::new(&scratch, DEFAULT_LIMIT));
    for sub in [
        "samples/m2/Rabbit2.m2",
        "samples/nwn/c_aribeth.mdl",
        "samples/nwn/ttd01_a04_03.mdl",
        "samples/gltf/Fox.glb",
    ] {
        let model = common::shared(sub);
        let (plain, _) = frame_and_textures(&model, None);
        let (cold, textures) = frame_and_textures(&model, Some(&cache));
        let named = |ts: &[Texture]| ts.iter().filter(|t| t.image.source().is_some()).count();
        assert!(named(&textures) > 0, "{sub}: its texture files are named");
        assert!(textures.iter().all(|t| t.image.is_decoded()), "{sub} cold");
        let (warm, textures) = frame_and_textures(&model, Some(&cache));
        assert!(
            named(&textures) > 0,
            "{sub}: warm, its texture files are named"
        );
        let decoded: Vec<&str> = (textures.iter())
            .filter(|t| t.image.source().is_some() && t.image.is_decoded())
            .map(|t| t.name.as_str())
            .collect();
        assert!(decoded.is_empty(), "{sub}: warm, decoded {decoded:?}");
        assert!(cold == plain, "{sub}: cold differs from no cache");
        assert!(warm == plain, "{sub}: warm differs from no cache");
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
