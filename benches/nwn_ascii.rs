//! NWN ASCII parse speed: the largest ASCII MDL of `../shared/corpus/nwn` (text to the node
//! tree, no textures). Prints a note and measures nothing when the corpus is absent. Run briefly:
//! `cargo bench --bench nwn_ascii -- --warm-up-time 1 --measurement-time 3`.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use psxrender::formats::nwn;

/// The largest `.mdl` in `dir` that is ASCII, with its bytes.
fn largest_ascii(dir: &Path) -> Option<(PathBuf, Vec<u8>)> {
    let mut best: Option<(PathBuf, Vec<u8>)> = None;
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        let is_mdl = p.extension().is_some_and(|x| x.eq_ignore_ascii_case("mdl"));
        if !is_mdl {
            continue;
        }
        let Ok(data) = std::fs::read(&p) else {
            continue;
        };
        if nwn::looks_ascii(&data) && best.as_ref().is_none_or(|(_, b)| data.len() > b.len()) {
            best = Some((p, data));
        }
    }
    best
}

fn bench(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nwn");
    let Some((path, data)) = largest_ascii(&dir) else {
        eprintln!(
            "skipping NWN ASCII bench: no ASCII .mdl in {} (corpus absent)",
            dir.display()
        );
        return;
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    c.bench_function(
        &format!("nwn ascii parse {name} ({} bytes)", data.len()),
        |b| b.iter(|| nwn::parse(&data, &mut Vec::new()).unwrap()),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
