//! `psxrender info FILE`: what any file psxrender reads holds, as text and as JSON from the
//! same facts.
//!
//! [`describe`] identifies the file by content ([`crate::detect::identify`]) and hands it to the
//! one arm that reads its kind: models load as for rendering and describe themselves
//! ([`Model::info`], [`Model::facts`]); textures, texture-info files and GPU input are
//! described by fact structures their own modules gather (`formats::tim::facts`,
//! [`GpuFacts::of`], …), each written once and laid out here both ways. A file no detector
//! claims fails with the list of formats tried and why each refused.

use std::fmt::Write;
use std::path::Path;

use serde::Serialize;
use serde_json::{json, Value};

use crate::capture::compressed::MaxDecoded;
use crate::capture::info::GpuFacts;
use crate::capture::input::Input;
use crate::detect::{decode_image, identify, load_data, Kind};
use crate::formats::blp::BlpFacts;
use crate::formats::dds::DdsFacts;
use crate::formats::images::{png_facts, PngFacts};
use crate::formats::nwn::textures::{tga_facts, TgaFacts};
use crate::formats::nwn::txi::TxiFacts;
use crate::formats::plt::PltFacts;
use crate::formats::tim::{TimFacts, VramRect};
use crate::formats::{blp, dds, plt, tim, LoadOptions};
use crate::read::{read_file, ErrorKind, LoadError, Result};
use crate::scene::Model;
use crate::texture::{ps1_facts, Ps1Facts};

/// What `info` found.
pub enum Description {
    /// A model, loaded as for rendering.
    Model(Box<dyn Model>),
    /// An image.
    Texture(TextureFacts),
    /// A NWN texture-info file.
    Txi(TxiFacts),
    /// A GPU dump or text stream.
    Gpu(GpuFacts),
}

impl Description {
    /// The human-readable description.
    pub fn text(&self) -> String {
        match self {
            Description::Model(m) => m.info(),
            Description::Texture(t) => t.text(),
            Description::Txi(t) => txi_text(t),
            Description::Gpu(g) => gpu_text(g),
        }
    }

    /// The same facts as JSON: `{"file", "kind", …facts, "warnings"}`.
    pub fn json(&self, file: &Path) -> Value {
        let (kind, facts) = match self {
            Description::Model(m) => ("model", m.facts()),
            Description::Texture(t) => ("texture", to_value(t)),
            Description::Txi(t) => ("texture info", to_value(t)),
            Description::Gpu(g) => ("gpu input", to_value(g)),
        };
        let mut out = json!({ "file": file.display().to_string(), "kind": kind });
        if let (Value::Object(o), Value::Object(f)) = (&mut out, facts) {
            o.extend(f);
            o.insert("warnings".into(), json!(self.warnings()));
        }
        out
    }

    /// Problems met while reading (missing textures, palettes, odd dump packets).
    pub fn warnings(&self) -> Vec<String> {
        match self {
            Description::Model(m) => m.warnings(),
            Description::Texture(t) => t.warnings.clone(),
            Description::Txi(_) => Vec::new(),
            Description::Gpu(g) => g.warnings.clone(),
        }
    }
}

fn to_value<T: Serialize>(t: &T) -> Value {
    // Every fact structure is plain data (strings, numbers, options, vectors): serialising it
    // cannot fail.
    serde_json::to_value(t).unwrap_or(Value::Null)
}

/// True when `path` is a regular file whose first bytes are a dump's magic or a zstd/xz stream.
/// Anything else (unreadable, a FIFO, a device, a folder) is left to the whole read, which
/// names the problem; opening a FIFO here would block until a writer came.
fn starts_like_dump(path: &Path) -> bool {
    use std::io::Read;
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = Vec::with_capacity(16);
    let read = std::fs::File::open(path).and_then(|f| f.take(16).read_to_end(&mut head));
    read.is_ok() && crate::capture::dump::looks_like_dump(&head)
}

/// Reads, identifies and describes `path`.
pub fn describe(path: &Path, opts: &LoadOptions) -> Result<Description> {
    describe_with(path, opts, MaxDecoded::default())
}

/// [`describe`], a compressed GPU dump decoding to at most what `max_decoded` allows.
pub fn describe_with(
    path: &Path,
    opts: &LoadOptions,
    max_decoded: MaxDecoded,
) -> Result<Description> {
    // A dump is read as a stream: a recording may be larger than any file read whole.
    if starts_like_dump(path) {
        return Ok(Description::Gpu(GpuFacts::load(path, max_decoded)?));
    }
    // "input": the kind is not known yet, and the message reads "cannot read input file: …".
    let data = read_file(path, "input")?;
    let kind = identify(&data)
        .map_err(|u| LoadError::new("file", 0, ErrorKind::Unrecognised(u)).in_file(path))?;
    let d = match kind {
        Kind::M2 | Kind::NwnBinary | Kind::NwnAscii | Kind::Ff9 | Kind::Gltf => {
            Description::Model(load_data(path, &data, kind, opts)?)
        }
        Kind::Tim
        | Kind::Blp
        | Kind::Dds
        | Kind::BiowareDds
        | Kind::Tga
        | Kind::Png
        | Kind::Plt => Description::Texture(
            texture_facts(path, kind, &data, opts).map_err(|e| e.in_file(path))?,
        ),
        Kind::Txi => Description::Txi(TxiFacts::parse(&data)),
        Kind::GpuDump | Kind::GpuStream => Description::Gpu(GpuFacts::of(
            Input::parse(&data).map_err(|e| e.in_file(path))?,
        )),
    };
    Ok(d)
}

/// An image file's facts.
#[derive(Clone, Debug, Serialize)]
pub struct TextureFacts {
    /// Format name.
    pub format: &'static str,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Per-format facts.
    #[serde(flatten)]
    pub detail: TextureDetail,
    /// What psxrender's conversion makes of it (default depth, its own encoding).
    pub ps1: Option<Ps1Facts>,
    /// Problems met (PLT palettes not found).
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// Per-format facts of an image.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TextureDetail {
    /// TIM.
    Tim(TimFacts),
    /// BLP2.
    Blp(BlpFacts),
    /// DDS (standard or BioWare).
    Dds(DdsFacts),
    /// TGA.
    Tga(TgaFacts),
    /// PLT.
    Plt(PltFacts),
    /// PNG.
    Png(PngFacts),
}

fn texture_facts(path: &Path, kind: Kind, data: &[u8], opts: &LoadOptions) -> Result<TextureFacts> {
    let mut warnings = Vec::new();
    let img = decode_image(path, kind, data, opts, &mut warnings)?;
    let detail = match kind {
        Kind::Tim => TextureDetail::Tim(tim::facts(data)?),
        Kind::Blp => TextureDetail::Blp(blp::facts(data)?),
        Kind::Dds => TextureDetail::Dds(dds::facts_standard(data)?),
        Kind::BiowareDds => TextureDetail::Dds(dds::facts_bioware(data)?),
        Kind::Tga => TextureDetail::Tga(tga_facts(data)),
        Kind::Plt => TextureDetail::Plt(plt::facts(data)?),
        _ => TextureDetail::Png(png_facts(data)),
    };
    Ok(TextureFacts {
        format: kind.name(),
        width: img.width,
        height: img.height,
        detail,
        ps1: ps1_facts(std::sync::Arc::new(img)),
        warnings,
    })
}

impl TextureFacts {
    /// The facts as text.
    pub fn text(&self) -> String {
        let mut s = format!(
            "{} texture: {}x{} px\n",
            self.format, self.width, self.height
        );
        let vram = |r: &VramRect| format!("VRAM ({},{}) {}x{} halfwords", r.x, r.y, r.w, r.h);
        match &self.detail {
            TextureDetail::Tim(t) => {
                let _ = writeln!(s, "depth: {}bpp (flags 0x{:x})", t.bpp, t.flags);
                if t.flags & !0xB != 0 {
                    let _ = writeln!(s, "  flag bits above 3 are set: ignored");
                }
                let _ = writeln!(
                    s,
                    "texture page: {},{} (VRAM x {}, y {})",
                    t.texture_page[0],
                    t.texture_page[1],
                    t.texture_page[0] * 64,
                    t.texture_page[1] * 256
                );
                if t.clut_colours > 0 {
                    let _ = writeln!(s, "CLUTs: {} of {} colours", t.cluts, t.clut_colours);
                } else {
                    let _ = writeln!(s, "CLUTs: none");
                }
                for b in &t.blocks {
                    let _ = write!(
                        s,
                        "{} block at byte 0x{:x}: {}",
                        b.what,
                        b.offset,
                        vram(&b.vram)
                    );
                    if u64::from(b.length_field) != b.length {
                        let _ = write!(
                            s,
                            "; its length field says {} but the data is {} bytes (psxrender goes by width x height)",
                            b.length_field, b.length
                        );
                    }
                    s.push('\n');
                }
            }
            TextureDetail::Blp(b) => {
                let _ = writeln!(s, "version: {}", b.version);
                let _ = writeln!(s, "compression: {}", b.compression);
                let _ = writeln!(
                    s,
                    "alpha: {} bits (alpha type {})",
                    b.alpha_depth, b.alpha_type
                );
                let sizes: Vec<String> = b
                    .mips
                    .iter()
                    .map(|m| format!("{}x{}", m.width, m.height))
                    .collect();
                let _ = writeln!(s, "mips: {} ({})", b.mips.len(), sizes.join(", "));
            }
            TextureDetail::Dds(d) => {
                let _ = writeln!(s, "variant: {}", d.variant);
                let _ = writeln!(s, "pixel format: {}", d.pixel_format);
                let _ = writeln!(s, "mip levels: {}", d.mip_levels);
                if let Some(a) = d.alpha_mean {
                    let _ = writeln!(s, "alpha mean: {a}");
                }
            }
            TextureDetail::Tga(t) => {
                let _ = writeln!(s, "image type {}: {}", t.image_type, t.storage);
                let _ = writeln!(
                    s,
                    "pixel depth: {} bits, {} alpha bits, origin {}",
                    t.pixel_depth, t.alpha_bits, t.origin
                );
                if t.colour_map_entries > 0 {
                    let _ = writeln!(s, "colour map: {} entries", t.colour_map_entries);
                }
            }
            TextureDetail::Plt(p) => {
                let _ = writeln!(
                    s,
                    "layers: {} in the header, {} used",
                    p.layer_count,
                    p.layers.len()
                );
                for l in &p.layers {
                    let _ = writeln!(
                        s,
                        "  {} {:<8} {:>7} px  (palette {}.tga)",
                        l.group, l.name, l.pixels, l.palette
                    );
                }
                if p.other_pixels > 0 {
                    let _ = writeln!(
                        s,
                        "  {} px name a group past 9 (drawn as skin)",
                        p.other_pixels
                    );
                }
            }
            TextureDetail::Png(p) => {
                let _ = writeln!(s, "{}, {} bits per channel", p.colour_type, p.bit_depth);
            }
        }
        match &self.ps1 {
            Some(p) => {
                let _ = write!(
                    s,
                    "as a PS1 texture (psxrender texture): {}bpp {}x{}, {} encoding, {} colours",
                    p.bpp, p.width, p.height, p.encoding, p.colours
                );
                if p.clut_entries > 0 {
                    let _ = write!(s, " -> CLUT of {}", p.clut_entries);
                }
                let _ = writeln!(s, ", {} transparent texels", p.transparent_texels);
            }
            None => s.push_str("as a PS1 texture: does not fit in VRAM\n"),
        }
        s
    }
}

/// A TXI file's commands as text.
fn txi_text(t: &TxiFacts) -> String {
    let mut s = format!("NWN texture info (TXI): {} commands\n", t.commands.len());
    for c in &t.commands {
        let _ = writeln!(
            s,
            "  line {}: {} {}{}",
            c.line,
            c.command,
            c.value,
            c.effect
                .map_or("  (not used by psxrender)".to_string(), |e| format!(
                    "  (psxrender: {e})"
                ))
        );
    }
    s
}

/// GPU input's facts as text.
fn gpu_text(g: &GpuFacts) -> String {
    let mut s = match (g.magic, g.packets) {
        (Some(m), Some(p)) => match g.compression {
            Some(c) => format!("GPUDUMP ({m}), {c}-compressed: {p} packets\n"),
            None => format!("GPUDUMP ({m}): {p} packets\n"),
        },
        _ => "GPU text stream\n".to_string(),
    };
    for n in &g.notes {
        let _ = writeln!(s, "  {n}");
    }
    s.push_str(&g.census.text());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::{Tim, TimDepth};

    /// `bytes` as file `name` in a folder of its own; the test removes it with [`done`].
    fn tmp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("psxr-describe-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn done(p: &std::path::Path) {
        let _ = std::fs::remove_dir_all(p.parent().unwrap());
    }

    #[test]
    fn a_tim_describes_its_blocks_and_ps1_form() {
        let tim = Tim {
            depth: TimDepth::Bpp4,
            clut: Some(crate::scene::VramImage {
                x: 0,
                y: 480,
                width: 16,
                height: 2,
                data: (0..32u32).map(|i| (i * 0x421 + 1) as u16).collect(),
            }),
            image: crate::scene::VramImage {
                x: 640,
                y: 256,
                width: 4,
                height: 16,
                data: (0..64u32).map(|i| (i * 0x1111) as u16).collect(),
            },
        };
        let p = tmp("t.tim", &tim.write());
        let d = describe(&p, &LoadOptions::default()).unwrap();
        let text = d.text();
        assert!(text.starts_with("TIM texture: 16x16 px"), "{text}");
        assert!(text.contains("CLUTs: 2 of 16 colours"), "{text}");
        assert!(text.contains("texture page: 10,1"), "{text}");
        let j = d.json(&p);
        assert_eq!(j["kind"], "texture");
        assert_eq!(j["tim"]["bpp"], 4);
        assert_eq!(j["tim"]["blocks"][1]["vram"]["x"], 640);
        assert_eq!(j["ps1"]["bpp"], 4);
        done(&p);
    }

    #[test]
    fn junk_names_every_format_tried() {
        let p = tmp("junk.bin", b"hello");
        let e = describe(&p, &LoadOptions::default()).err().unwrap();
        let msg = e.to_string();
        assert!(
            msg.contains("junk.bin: not a file psxrender reads"),
            "{msg}"
        );
        assert!(
            msg.contains("TIM:") && msg.contains("FF9:") && msg.contains("BLP2:"),
            "{msg}"
        );
        assert!(!msg.contains("not a FF9 file"), "{msg}");
        done(&p);
    }

    #[test]
    fn a_stream_is_counted() {
        let p = tmp(
            "s.txt",
            b"gp1 00000000\ngp0 02ff0000\ngp0 00000000\ngp0 00100010\nframe\n",
        );
        let d = describe(&p, &LoadOptions::default()).unwrap();
        let t = d.text();
        assert!(t.contains("words: 3 GP0, 1 GP1; frames: 1"), "{t}");
        assert!(t.contains("fills    (0,0)-(15,15), 16x16"), "{t}");
        assert_eq!(d.json(&p)["census"]["gp0"]["fills"], 1);
        done(&p);
    }
}
