//! Texture lookup by resref: case-insensitive, in the model's directory and then each
//! `--texture-dir`; inside a directory DDS beats TGA beats PLT (the order NWN's resource
//! manager prefers, format-notes §2.1). A file that fails to decode is reported and the next
//! candidate tried; nothing found gives a magenta/black checkerboard and a warning. The model's
//! decoded textures share one [`ImageAllowance`]: a texture that would pass it is drawn as the
//! checkerboard too, with a warning naming its file.

use std::path::{Path, PathBuf};

use crate::formats::images::{self, ImageAllowance};
use crate::formats::{dds, plt, Folders, LoadOptions, MAX_FILE_SIZE};
use crate::scene::{RgbaImage, TextureImage};
use serde::Serialize;

/// Largest `.txi` sidecar read, bytes (a few lines of settings).
pub const MAX_TXI_SIZE: u64 = 1 << 20;

/// Extensions tried, best first.
pub const EXTENSIONS: [&str; 3] = ["dds", "tga", "plt"];

/// A resolved texture.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The resref the model names.
    pub name: String,
    /// The file used, `None` when missing.
    pub path: Option<PathBuf>,
    /// The image (the fallback when missing), shared with every pose.
    pub image: TextureImage,
    /// Text of a `.txi` sidecar, lower-cased, if any.
    pub txi: String,
    /// Some texel's alpha is below 255 (decided once here, not on every pose).
    pub translucent: bool,
}

/// The visible stand-in for a missing texture: 16×16, 4-pixel magenta/black checks.
pub fn fallback() -> RgbaImage {
    crate::formats::images::checkerboard(16)
}

/// Files in `dir` whose name is `stem.ext` ignoring case, in [`EXTENSIONS`] order.
fn candidates(dir: &Path, stem: &str) -> Vec<PathBuf> {
    let Ok(entries) = crate::formats::files::list_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(usize, PathBuf)> = entries
        .filter_map(|file| {
            let name = file.to_string_lossy().to_ascii_lowercase();
            let (s, ext) = name.rsplit_once('.')?;
            let rank = EXTENSIONS.iter().position(|x| *x == ext)?;
            (s == stem).then(|| (rank, dir.join(&file)))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

/// Finds a file named `stem.ext` (any case) in `dirs`, first directory first.
pub fn find_file(dirs: &[PathBuf], stem: &str, ext: &str) -> Option<PathBuf> {
    let want = format!("{}.{}", stem.to_ascii_lowercase(), ext);
    dirs.iter().find_map(|d| {
        crate::formats::files::list_dir(d).ok()?.find_map(|file| {
            (file.to_string_lossy().to_ascii_lowercase() == want).then(|| d.join(&file))
        })
    })
}

/// Width and height from a TGA header (little-endian, at bytes 12 and 14), if it is that long.
fn tga_size(data: &[u8]) -> Option<(u32, u32)> {
    let side = |at: usize| {
        data.get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    Some((side(12)?.into(), side(14)?.into()))
}

/// Decodes a TGA through `image`, its size checked from the header first (sides up to
/// [`dds::MAX_DIMENSION`]), so the decoder never allocates for a size the file only claims.
pub fn decode_tga(data: &[u8]) -> Result<RgbaImage, String> {
    if let Some((w, h)) = tga_size(data) {
        if w > dds::MAX_DIMENSION || h > dds::MAX_DIMENSION {
            return Err(format!(
                "TGA size {w}x{h} is larger than the limit {} per side",
                dds::MAX_DIMENSION
            ));
        }
    }
    // The colour map follows the 18-byte header and the image ID; the decoder would only say
    // the file ended.
    if let [id_len, 1, _, _, _, len_lo, len_hi, bits, ..] = *data {
        let (at, entries) = (
            18 + usize::from(id_len),
            u16::from_le_bytes([len_lo, len_hi]),
        );
        let bytes = usize::from(entries) * usize::from(bits).div_ceil(8);
        if at + bytes > data.len() {
            return Err(format!(
                "colour map of {entries} entries ({bytes} bytes from byte 0x{at:x}) runs past \
                 the end of the {}-byte file",
                data.len()
            ));
        }
    }
    // Decoded under the same limits as every image the crate decodes, and converted by move:
    // at most two copies of the picture are held at once.
    let img = images::decode_limited(data, image::ImageFormat::Tga)?;
    Ok(images::to_rgba(img))
}

/// Looks up and decodes texture `name` for a model in `model_dir`, the decoded image charged
/// to `allowance`, which all textures of the model share.
pub fn resolve(
    name: &str,
    model_dir: &Path,
    opts: &LoadOptions,
    allowance: &ImageAllowance,
    warnings: &mut Vec<String>,
) -> Resolved {
    let stem = name.to_ascii_lowercase();
    let dirs = crate::formats::distinct(
        std::iter::once(model_dir.to_path_buf()).chain(opts.texture_dirs.iter().cloned()),
    );
    let folders = Folders::new(model_dir, opts);
    for dir in &dirs {
        for path in candidates(dir, &stem) {
            match decode_file(&folders, &path, model_dir, opts, warnings) {
                Ok((format, image, translucent)) => {
                    // The search ends: a later candidate is a file NWN itself would not use.
                    let [width, height] = image.size();
                    if let Err(e) = allowance.charge(format, &path, width, height) {
                        warnings.push(format!(
                            "texture '{name}': {e}; drawn as a magenta checkerboard"
                        ));
                        return Resolved {
                            name: name.to_string(),
                            path: None,
                            image: fallback().into(),
                            txi: String::new(),
                            translucent: false,
                        };
                    }
                    let txi = find_file(std::slice::from_ref(dir), &stem, "txi")
                        .and_then(|p| folders.read(&p, "NWN TXI", MAX_TXI_SIZE).ok())
                        .map(|b| {
                            String::from_utf8_lossy(&b[..b.len().min(64 << 10)])
                                .to_ascii_lowercase()
                        })
                        .unwrap_or_default();
                    return Resolved {
                        name: name.to_string(),
                        path: Some(path),
                        translucent,
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
        image: fallback().into(),
        txi: String::new(),
        translucent: false,
    }
}

/// The texture in the file at `path`: its format's name, its image (left undecoded when the
/// texture cache holds its facts) and whether some texel is translucent.
fn decode_file(
    folders: &Folders,
    path: &Path,
    model_dir: &Path,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<(&'static str, TextureImage, bool), String> {
    let data = folders
        .read(path, "texture", MAX_FILE_SIZE)
        .map_err(|e| e.to_string())?;
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let cache = opts.texture_cache.as_deref();
    let (format, (image, facts)) = match ext.as_str() {
        "dds" => (
            "DDS",
            images::cached_or_decoded(cache, "nwn dds", data, dds::decode_for_drawing)
                .map_err(|e| e.in_file(path).to_string())?,
        ),
        "tga" => (
            "TGA",
            images::cached_or_decoded(cache, "nwn tga", data, decode_tga)?,
        ),
        _ => {
            // Not cached: its pixels depend on the palettes and colours as well as the file.
            let p = plt::parse(&data).map_err(|e| e.in_file(path).to_string())?;
            let image = p.composite(
                &palettes(model_dir, opts, warnings),
                opts.plt_colors.unwrap_or([0; 10]),
            );
            ("PLT", (TextureImage::from(image), None))
        }
    };
    let translucent = facts.map_or_else(
        || image.pixels.iter().any(|p| p[3] < 255),
        |f| f.translucent,
    );
    Ok((format, image, translucent))
}

/// The ten PLT palettes from `--palette-dir`, else `<model dir>/pal`, the model directory and
/// the texture directories.
pub fn palettes(
    model_dir: &Path,
    opts: &LoadOptions,
    warnings: &mut Vec<String>,
) -> [Option<RgbaImage>; 10] {
    let dirs = crate::formats::distinct(
        (opts.palette_dir.iter().cloned())
            .chain([model_dir.join("pal"), model_dir.to_path_buf()])
            .chain(opts.texture_dirs.iter().cloned()),
    );
    let folders = Folders::new(model_dir, opts);
    let mut out: [Option<RgbaImage>; 10] = Default::default();
    for (slot, name) in out.iter_mut().zip(plt::PALETTE_FILES) {
        let found = find_file(&dirs, name, "tga");
        let img = found.as_ref().map(|p| read_palette(&folders, p));
        let warning = match &img {
            None => Some(format!(
                "PLT palette {name}.tga not found (use --palette-dir); using a grey ramp"
            )),
            Some(Err(e)) => Some(format!("PLT palette {name}.tga: {e}; using a grey ramp")),
            Some(Ok(_)) => None,
        };
        if let Some(w) = warning.filter(|_| !warnings.iter().any(|w| w.contains(name))) {
            warnings.push(w);
        }
        *slot = img.and_then(Result::ok);
    }
    out
}

/// Largest side of a palette image read: a PLT samples only its first 256 rows and columns (a
/// row and a colour index are bytes), and NWN's own palettes are 256 wide.
pub const MAX_PALETTE_SIDE: u32 = 1024;

/// A palette TGA, cut to the 256×256 texels a PLT can sample: ten palettes are read for every
/// PLT texture, so a palette the size of a texture would cost ten textures' memory each time.
fn read_palette(folders: &Folders, path: &Path) -> Result<RgbaImage, String> {
    let data = (folders.read(path, "palette", MAX_FILE_SIZE)).map_err(|e| e.to_string())?;
    if let Some((w, h)) = tga_size(&data) {
        if w.max(h) > MAX_PALETTE_SIDE {
            return Err(format!(
                "{w}x{h} is larger than the limit {MAX_PALETTE_SIDE} per side"
            ));
        }
    }
    let full = decode_tga(&data)?;
    let (width, height) = (full.width.min(256), full.height.min(256));
    let pixels = (0..height as usize)
        .flat_map(|y| {
            let row = y * full.width as usize;
            full.pixels[row..row + width as usize].iter().copied()
        })
        .collect();
    Ok(RgbaImage {
        width,
        height,
        pixels,
    })
}

/// TGA facts.
#[derive(Clone, Debug, Serialize)]
pub struct TgaFacts {
    /// Image type byte and its meaning.
    pub image_type: u8,
    /// "colour-mapped", "true-colour" or "grey", with "RLE" when compressed.
    pub storage: String,
    /// Bits per pixel.
    pub pixel_depth: u8,
    /// Alpha bits per pixel (descriptor bits 0-3).
    pub alpha_bits: u8,
    /// "bottom-left" or "top-left" (descriptor bit 5).
    pub origin: &'static str,
    /// Colour-map entries, when there is a colour map.
    pub colour_map_entries: u16,
}

/// What `info` reports of the TGA header in `d` (at least 18 bytes, as detection checks).
pub fn tga_facts(d: &[u8]) -> TgaFacts {
    // The detector checked the 18-byte header is there.
    let ty = d[2];
    let kind = match ty & 7 {
        1 => "colour-mapped",
        2 => "true-colour",
        _ => "grey",
    };
    TgaFacts {
        image_type: ty,
        storage: if ty & 8 != 0 {
            format!("{kind}, RLE")
        } else {
            kind.to_string()
        },
        pixel_depth: d[16],
        alpha_bits: d[17] & 0x0F,
        origin: if d[17] & 0x20 != 0 {
            "top-left"
        } else {
            "bottom-left"
        },
        colour_map_entries: if d[1] == 1 {
            u16::from_le_bytes([d[5], d[6]])
        } else {
            0
        },
    }
}
