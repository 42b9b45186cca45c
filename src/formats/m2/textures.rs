//! Finding and decoding the BLP2 textures a model names.
//!
//! Type-0 textures carry a path like `Creature\Rabbit2\ArmorReflect5.blp` (backslashes, any
//! case). It is tried, component by component and ignoring case, under each `--texture-dir` and
//! then the model's own directory; failing that, the bare file name is tried in the same places.
//! Replaceable types (11 = creature skin, …) come only from `--texture TYPE=PATH`. Anything not
//! found becomes a magenta/black checkerboard and a warning.

use std::path::{Path, PathBuf};

use super::TextureSlot;
use crate::formats::{blp, LoadOptions};
use crate::scene::{RgbaImage, Texture};

/// Most directory entries scanned when matching a name without regard to case.
const MAX_DIR_SCAN: usize = 100_000;

/// A visible stand-in for a missing texture: 8×8 magenta/black checks of 4 pixels.
pub fn fallback_image() -> RgbaImage {
    let pixels = (0..64)
        .map(|i| {
            let (x, y) = (i % 8, i / 8);
            if (x / 4 + y / 4) % 2 == 0 {
                [255, 0, 255, 255]
            } else {
                [0, 0, 0, 255]
            }
        })
        .collect();
    RgbaImage {
        width: 8,
        height: 8,
        pixels,
    }
}

/// What replaceable texture types mean (format-notes §2.2).
pub fn replaceable_kind(kind: u32) -> &'static str {
    match kind {
        0 => "file",
        1 => "character skin",
        2 => "cape",
        6 => "hair",
        8 => "skin extra",
        11 => "creature skin 1",
        12 => "creature skin 2",
        13 => "creature skin 3",
        _ => "replaceable",
    }
}

/// `dir/comp1/comp2/...`, each component matched exactly or else ignoring ASCII case.
fn find_ci(dir: &Path, components: &[&str]) -> Option<PathBuf> {
    let mut cur = dir.to_path_buf();
    for comp in components {
        let exact = cur.join(comp);
        if exact.exists() {
            cur = exact;
            continue;
        }
        let entries = std::fs::read_dir(&cur).ok()?;
        let found = entries
            .take(MAX_DIR_SCAN)
            .filter_map(|e| e.ok())
            .find(|e| e.file_name().to_string_lossy().eq_ignore_ascii_case(comp))?;
        cur = found.path();
    }
    cur.is_file().then_some(cur)
}

/// Where a model-internal texture path is found, if anywhere.
pub fn locate(model: &Path, name: &str, opts: &LoadOptions) -> Option<PathBuf> {
    let components: Vec<&str> = name
        .split(['\\', '/'])
        .filter(|c| !c.is_empty() && *c != "." && *c != "..")
        .collect();
    let file = *components.last()?;
    let model_dir = model.parent().unwrap_or(Path::new("."));
    let model_dir = if model_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        model_dir
    };
    let dirs: Vec<&Path> = opts
        .texture_dirs
        .iter()
        .map(PathBuf::as_path)
        .chain(std::iter::once(model_dir))
        .collect();
    dirs.iter()
        .find_map(|d| find_ci(d, &components))
        .or_else(|| dirs.iter().find_map(|d| find_ci(d, &[file])))
}

/// Resolves and decodes every texture, pushing a warning for each miss.
pub fn resolve(
    model: &Path,
    textures: &[(u32, u32, String)],
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Vec<TextureSlot> {
    textures
        .iter()
        .enumerate()
        .map(|(i, (kind, flags, name))| {
            let (path, label) = if *kind == 0 {
                (locate(model, name, opts), name.clone())
            } else {
                let given = opts
                    .replaceable_textures
                    .iter()
                    .rev()
                    .find(|(k, _)| k == kind)
                    .map(|(_, p)| p.clone());
                let label = match &given {
                    Some(p) => p.display().to_string(),
                    None => format!("<type {kind}: {}>", replaceable_kind(*kind)),
                };
                (given, label)
            };
            let image = match &path {
                None if *kind == 0 => {
                    warnings.push(format!(
                        "M2 texture {i} '{name}' not found (searched --texture-dir and the model's directory); drawing a checkerboard"
                    ));
                    None
                }
                None => {
                    warnings.push(format!(
                        "M2 texture {i} is replaceable type {kind} ({}) and none was given: pass --texture {kind}=PATH; drawing a checkerboard",
                        replaceable_kind(*kind)
                    ));
                    None
                }
                Some(p) => match blp::load(p) {
                    Ok(img) => Some(img),
                    Err(e) => {
                        warnings.push(format!(
                            "M2 texture {i} '{label}' could not be decoded ({e}); drawing a checkerboard"
                        ));
                        None
                    }
                },
            };
            let resolved = image.as_ref().and(path);
            TextureSlot {
                kind: *kind,
                flags: *flags,
                name: name.clone(),
                resolved,
                texture: Texture {
                    name: label,
                    image: image.unwrap_or_else(fallback_image),
                },
            }
        })
        .collect()
}
