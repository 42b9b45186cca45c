//! `batch`'s texture cache: beside the report by default, shared by the jobs, and the same
//! pictures as `--no-cache`.

mod common;

use std::path::Path;
use std::process::Command;

fn batch(manifest: &Path, extra: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_psxrender"))
        .arg("batch")
        .arg(manifest)
        .args(["--jobs", "2"])
        // The models are the shared samples, outside the manifest's folder.
        .arg("--search-path")
        .arg(common::shared("samples"))
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples")]
fn jobs_share_a_cache_beside_the_report_and_draw_as_without_it() {
    let dir = std::env::temp_dir().join(format!("psxrender-batch-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let models = [
        "m2/Rabbit2.m2",
        "nwn/c_aribeth.mdl",
        "m2/STORMWINDCRATE01.M2",
    ];
    let manifest = |name: &str, out: &str| {
        let lines: Vec<String> = models
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let model = common::shared(&format!("samples/{m}"));
                format!(r#"{{"model": {:?}, "out": "{out}/{i}.png"}}"#, model)
            })
            .collect();
        let path = dir.join(name);
        std::fs::write(&path, lines.join("\n")).unwrap();
        path
    };
    batch(&manifest("plain.jsonl", "plain"), &["--no-cache"]);
    assert!(!dir.join("plain.texture-cache").exists());
    let cached = manifest("jobs.jsonl", "cold");
    batch(&cached, &[]);
    let cache = dir.join("jobs.texture-cache");
    let entries = std::fs::read_dir(&cache).unwrap().count();
    assert!(entries > 0, "the jobs filled {}", cache.display());
    // The warm run: a second manifest of the same models into other files, the same cache.
    let warm = manifest("jobs2.jsonl", "warm");
    batch(&warm, &["--cache", cache.to_str().unwrap()]);
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), entries);
    for (i, m) in models.iter().enumerate() {
        let read = |d: &str| std::fs::read(dir.join(format!("{d}/{i}.png"))).unwrap();
        assert!(read("plain") == read("cold"), "{m}: cold differs");
        assert!(read("plain") == read("warm"), "{m}: warm differs");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
