//! `--cache DIR`: the same pictures with and without the texture cache, cold and warm, with
//! four processes filling one cache at once.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

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
        names.iter().all(|n| n.ends_with(".tex")),
        "only whole entries are left: {names:?}"
    );
}
