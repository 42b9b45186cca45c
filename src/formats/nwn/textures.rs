//! Texture lookup by resref: case-insensitive, in the model's directory and then each
//! `--texture-dir`; inside a directory DDS beats TGA beats PLT (the order NWN's resource
//! manager prefers, format-notes §2.1). A file that fails to decode is reported and the next
//! candidate tried; nothing found gives a magenta/black checkerboard and a warning.

use std::path::{Path, PathBuf};

use crate::formats::{dds, plt, read_file, LoadOptions};
use crate::scene::RgbaImage;

/// Extensions tried, best first.
pub const EXTENSIONS: [&str; 3] = ["dds", "tga", "plt"];

/// A resolved texture.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The resref the model names.
    pub name: String,
    /// The file used, `None` when missing.
    pub path: Option<PathBuf>,
    /// The image (the fallback when missing).
    pub image: RgbaImage,
    /// Text of a `.txi` sidecar, lower-cased, if any.
    pub txi: String,
}

/// The visible stand-in for a missing texture: 16×16, 4-pixel magenta/black checks.
pub fn fallback() -> RgbaImage {
    let pixels = (0..256u32)
        .map(|i| {
            if ((i % 16) / 4 + (i / 16) / 4) % 2 == 0 {
                [255, 0, 255, 255]
            } else {
                [0, 0, 0, 255]
            }
        })
        .collect();
    RgbaImage {
        width: 16,
        height: 16,
        pixels,
    }
}

/// Files in `dir` whose name is `stem.ext` ignoring case, in [`EXTENSIONS`] order.
fn candidates(dir: &Path, stem: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(usize, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_ascii_lowercase();
            let (s, ext) = name.rsplit_once('.')?;
            let rank = EXTENSIONS.iter().position(|x| *x == ext)?;
            (s == stem).then(|| (rank, e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

/// Finds a file named `stem.ext` (any case) in `dirs`, first directory first.
pub fn find_file(dirs: &[PathBuf], stem: &str, ext: &str) -> Option<PathBuf> {
    let want = format!("{}.{}", stem.to_ascii_lowercase(), ext);
    dirs.iter().find_map(|d| {
        std::fs::read_dir(d)
            .ok()?
            .filter_map(|e| e.ok())
            .find_map(|e| {
                (e.file_name().to_string_lossy().to_ascii_lowercase() == want).then(|| e.path())
            })
    })
}

/// Decodes a TGA through `image`.
pub fn decode_tga(data: &[u8]) -> Result<RgbaImage, String> {
    let img = image::load_from_memory_with_format(data, image::ImageFormat::Tga)
        .map_err(|e| e.to_string())?
        .to_rgba8();
    let (width, height) = img.dimensions();
    if width > dds::MAX_DIMENSION || height > dds::MAX_DIMENSION {
        return Err(format!("{width}x{height} is too large"));
    }
    Ok(RgbaImage {
        width,
        height,
        pixels: img.pixels().map(|p| p.0).collect(),
    })
}

/// Looks up and decodes texture `name` for a model in `model_dir`.
pub fn resolve(
    name: &str,
    model_dir: &Path,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Resolved {
    let stem = name.to_ascii_lowercase();
    let mut dirs = vec![model_dir.to_path_buf()];
    dirs.extend(opts.texture_dirs.iter().cloned());
    for dir in &dirs {
        for path in candidates(dir, &stem) {
            match decode_file(&path, model_dir, opts, warnings) {
                Ok(image) => {
                    let txi = find_file(std::slice::from_ref(dir), &stem, "txi")
                        .and_then(|p| {
                            crate::formats::note_read(&p);
                            std::fs::read(p).ok()
                        })
                        .map(|b| {
                            String::from_utf8_lossy(&b[..b.len().min(64 << 10)])
                                .to_ascii_lowercase()
                        })
                        .unwrap_or_default();
                    return Resolved {
                        name: name.to_string(),
                        path: Some(path),
                        image,
                        txi,
                    };
                }
                Err(e) => warnings.push(format!(
                    "texture {}: {e}; trying the next candidate",
                    path.display()
                )),
            }
        }
    }
    warnings.push(format!(
        "texture '{name}' MISSING (searched {} for .dds/.tga/.plt); drawn as a magenta checkerboard",
        dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
    ));
    Resolved {
        name: name.to_string(),
        path: None,
        image: fallback(),
        txi: String::new(),
    }
}

fn decode_file(
    path: &Path,
    model_dir: &Path,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<RgbaImage, String> {
    let data = read_file(path, "texture").map_err(|e| e.to_string())?;
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "dds" => dds::decode(&data).map_err(|e| e.in_file(path).to_string()),
        "tga" => decode_tga(&data),
        _ => {
            let p = plt::parse(&data).map_err(|e| e.in_file(path).to_string())?;
            Ok(p.composite(
                &palettes(model_dir, opts, warnings),
                opts.plt_colors.unwrap_or([0; 10]),
            ))
        }
    }
}

/// The ten PLT palettes from `--palette-dir`, else `<model dir>/pal`, the model directory and
/// the texture directories.
pub fn palettes(
    model_dir: &Path,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> [Option<RgbaImage>; 10] {
    let mut dirs: Vec<PathBuf> = opts.palette_dir.iter().cloned().collect();
    dirs.push(model_dir.join("pal"));
    dirs.push(model_dir.to_path_buf());
    dirs.extend(opts.texture_dirs.iter().cloned());
    let mut out: [Option<RgbaImage>; 10] = Default::default();
    for (slot, name) in out.iter_mut().zip(plt::PALETTE_FILES) {
        let img = find_file(&dirs, name, "tga").and_then(|p| {
            let data = read_file(&p, "palette").ok()?;
            decode_tga(&data).ok()
        });
        if img.is_none() && !warnings.iter().any(|w| w.contains(name)) {
            warnings.push(format!(
                "PLT palette {name}.tga not found (use --palette-dir); using a grey ramp"
            ));
        }
        *slot = img;
    }
    out
}
