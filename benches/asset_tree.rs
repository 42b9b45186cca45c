//! WoW asset-tree index speed on a synthetic tree of 10,000 files (10 zones × 10 folders × 100
//! files, plus `DBFilesClient`) made in a temporary folder: finding the root from a model, then
//! looking up, in other case than on disk, one file per folder (which lists every folder, i.e.
//! builds the whole index) and every file. Run briefly:
//! `cargo bench --bench asset_tree -- --warm-up-time 1 --measurement-time 3`.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use psxrender::formats::m2::tree::Tree;

const ZONES: usize = 10;
const FOLDERS: usize = 10;
const FILES: usize = 100;

/// The tree's paths as a model names them (`World\Zone3\Folder7\Tex42.blp`), in upper case
/// (the files on disk are mixed case).
fn names() -> Vec<String> {
    let mut out = Vec::with_capacity(ZONES * FOLDERS * FILES);
    for z in 0..ZONES {
        for d in 0..FOLDERS {
            for f in 0..FILES {
                out.push(format!("WORLD\\ZONE{z}\\FOLDER{d}\\TEX{f}.BLP"));
            }
        }
    }
    out
}

/// Makes the tree under `root`; returns the model's path.
fn make_tree(root: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(root.join("DBFilesClient"))?;
    for z in 0..ZONES {
        for d in 0..FOLDERS {
            let dir = root.join(format!("World/Zone{z}/Folder{d}"));
            std::fs::create_dir_all(&dir)?;
            for f in 0..FILES {
                std::fs::write(dir.join(format!("Tex{f}.blp")), b"")?;
            }
        }
    }
    Ok(root.join("World/Zone0/Folder0/Tex0.blp"))
}

fn bench(c: &mut Criterion) {
    let root = std::env::temp_dir().join(format!("psxrender-bench-tree-{}", std::process::id()));
    let model = match make_tree(&root) {
        Ok(m) => m,
        Err(e) => {
            eprintln!(
                "skipping asset-tree bench: cannot make {}: {e}",
                root.display()
            );
            let _ = std::fs::remove_dir_all(&root);
            return;
        }
    };
    let names = names();
    let per_folder: Vec<&str> = names.iter().step_by(FILES).map(String::as_str).collect();
    let tree = Tree::find(&model, &[names[0].as_str()]).expect("the tree's root is found");
    assert!(names.iter().all(|n| tree.locate(n).is_some()));
    c.bench_function(
        "asset tree: find root + index all 100 folders (10,000 files)",
        |b| {
            b.iter(|| {
                let tree = Tree::find(&model, &[names[0].as_str()]).unwrap();
                per_folder
                    .iter()
                    .filter(|n| tree.locate(n).is_some())
                    .count()
            })
        },
    );
    c.bench_function("asset tree: find root + look up all 10,000 files", |b| {
        b.iter(|| {
            let tree = Tree::find(&model, &[names[0].as_str()]).unwrap();
            names.iter().filter(|n| tree.locate(n).is_some()).count()
        })
    });
    let _ = std::fs::remove_dir_all(&root);
}

criterion_group!(benches, bench);
criterion_main!(benches);
