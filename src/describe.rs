//! `psxrender info FILE`: what any file psxrender reads holds, as text and as JSON from the
//! same facts.
//!
//! [`describe`] identifies the file by content ([`crate::formats::identify`]) and hands it to the
//! one arm that reads its kind: models load as for rendering and describe themselves
//! ([`Model::info`], [`Model::facts`]); textures, texture-info files and GPU input get the
//! fact structures below, each written once and rendered both ways. A file no detector
//! claims fails with the list of formats tried and why each refused.

use std::fmt::Write;
use std::path::Path;

use serde::Serialize;
use serde_json::{json, Value};

use crate::capture::census::Census;
use crate::capture::dump::{Dump, Magic, Packet};
use crate::capture::replay::Input;
use crate::formats::reader::Reader;
use crate::formats::tim::{Tim, TimDepth};
use crate::formats::{
    blp, dds, identify, images, plt, read_file, ErrorKind, Kind, LoadError, LoadOptions, Result,
};
use crate::render::texture::{ps1_form, BlendClass, TextureDepth, LONE_TEXTURE_FRAMEBUFFER};
use crate::scene::{Model, RgbaImage};

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
            Description::Txi(t) => t.text(),
            Description::Gpu(g) => g.text(),
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

/// Reads, identifies and describes `path`.
pub fn describe(path: &Path, opts: &LoadOptions) -> Result<Description> {
    // "input": the kind is not known yet, and the message reads "cannot read input file: …".
    let data = read_file(path, "input")?;
    let kind = identify(&data)
        .map_err(|u| LoadError::new("file", 0, ErrorKind::Unrecognised(u)).in_file(path))?;
    let d = match kind {
        Kind::M2 | Kind::NwnBinary | Kind::NwnAscii | Kind::Ff9 | Kind::Gltf => {
            Description::Model(crate::formats::load_data(path, &data, kind, opts)?)
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

/// A VRAM rectangle in halfwords and lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct VramRect {
    /// Left, in halfwords.
    pub x: u16,
    /// Top line.
    pub y: u16,
    /// Width in halfwords.
    pub w: u16,
    /// Height in lines.
    pub h: u16,
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

/// A TIM block's header against the data it holds.
#[derive(Clone, Debug, Serialize)]
pub struct TimBlock {
    /// "CLUT" or "image".
    pub what: &'static str,
    /// File offset of the block.
    pub offset: u64,
    /// Where it goes in VRAM.
    pub vram: VramRect,
    /// The block's length field.
    pub length_field: u32,
    /// The length its width × height gives (what psxrender reads).
    pub length: u64,
}

/// TIM facts.
#[derive(Clone, Debug, Serialize)]
pub struct TimFacts {
    /// Bits per pixel (4, 8, 16 = 15-bit direct, 24).
    pub bpp: u32,
    /// The flags word as stored (bits above 3 are ignored).
    pub flags: u32,
    /// Texture page of the image: (X / 64, Y / 256).
    pub texture_page: [u16; 2],
    /// CLUTs in the CLUT block (rows × palettes per row).
    pub cluts: u32,
    /// Colours per CLUT (16 or 256; 0 without a CLUT).
    pub clut_colours: u32,
    /// The blocks.
    pub blocks: Vec<TimBlock>,
}

/// One BLP mip level.
#[derive(Clone, Debug, Serialize)]
pub struct Mip {
    /// Level (0 = full size).
    pub level: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// File offset.
    pub offset: u32,
    /// Bytes.
    pub bytes: u32,
}

/// BLP2 facts.
#[derive(Clone, Debug, Serialize)]
pub struct BlpFacts {
    /// Container version ("BLP2") and content type (1 = not JPEG).
    pub version: String,
    /// Compression: palette, DXT1/3/5, raw BGRA.
    pub compression: &'static str,
    /// Alpha bits per pixel (0, 1, 4, 8).
    pub alpha_depth: u8,
    /// The alpha type byte (7 = DXT5 for DXT files).
    pub alpha_type: u8,
    /// Mip levels stored (non-empty entries of the table).
    pub mips: Vec<Mip>,
}

/// DDS facts.
#[derive(Clone, Debug, Serialize)]
pub struct DdsFacts {
    /// "standard" (`DDS ` header) or "BioWare" (NWN's magic-less header).
    pub variant: &'static str,
    /// Pixel format: DXT1, DXT3, DXT5, or RGB/RGBA with the bit count.
    pub pixel_format: String,
    /// Mip levels (standard: the header's count; BioWare: how many whole levels the file
    /// holds).
    pub mip_levels: u32,
    /// BioWare: the alpha-mean field.
    pub alpha_mean: Option<f32>,
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

/// One PLT layer (palette group).
#[derive(Clone, Debug, Serialize)]
pub struct PltLayer {
    /// Group number (0-9).
    pub group: u8,
    /// Its name (skin, hair, …).
    pub name: &'static str,
    /// The palette image it samples.
    pub palette: &'static str,
    /// Pixels that use it.
    pub pixels: u64,
}

/// PLT facts.
#[derive(Clone, Debug, Serialize)]
pub struct PltFacts {
    /// The header's layer count.
    pub layer_count: u32,
    /// Pixels per layer (layers no pixel uses are left out).
    pub layers: Vec<PltLayer>,
    /// Pixels naming a group past 9 (drawn with group 0).
    pub other_pixels: u64,
}

/// PNG facts.
#[derive(Clone, Debug, Serialize)]
pub struct PngFacts {
    /// Bits per channel.
    pub bit_depth: u8,
    /// Colour type (grey, RGB, palette, grey+alpha, RGBA).
    pub colour_type: &'static str,
}

/// What psxrender's conversion makes of an image (as `psxrender texture` shows it).
#[derive(Clone, Debug, Serialize)]
pub struct Ps1Facts {
    /// The encoding picked from the image's alpha: opaque, cutout or alpha.
    pub encoding: &'static str,
    /// Bits per texel (4, 8, 15).
    pub bpp: u32,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Distinct texel values before the CLUT was made.
    pub colours: usize,
    /// CLUT entries (0 at 15bpp).
    pub clut_entries: usize,
    /// Texels that are never drawn (0x0000).
    pub transparent_texels: usize,
}

/// Names of the ten PLT groups, in group order.
const PLT_GROUPS: [&str; 10] = [
    "skin", "hair", "metal1", "metal2", "cloth1", "cloth2", "leather1", "leather2", "tattoo1",
    "tattoo2",
];

fn texture_facts(path: &Path, kind: Kind, data: &[u8], opts: &LoadOptions) -> Result<TextureFacts> {
    let mut warnings = Vec::new();
    let img = images::decode(path, kind, data, opts, &mut warnings)?;
    let detail = match kind {
        Kind::Tim => TextureDetail::Tim(tim_facts(data)?),
        Kind::Blp => TextureDetail::Blp(blp_facts(data)?),
        Kind::Dds => TextureDetail::Dds(dds_facts(data)?),
        Kind::BiowareDds => TextureDetail::Dds(bioware_facts(data)?),
        Kind::Tga => TextureDetail::Tga(tga_facts(data)),
        Kind::Plt => TextureDetail::Plt(plt_facts(data)?),
        _ => TextureDetail::Png(png_facts(data)),
    };
    Ok(TextureFacts {
        format: kind.name(),
        width: img.width,
        height: img.height,
        detail,
        ps1: ps1_facts(&img),
        warnings,
    })
}

/// What the renderer's conversion (default depth, beside a 320x240 framebuffer) makes of `img`.
pub fn ps1_facts(img: &RgbaImage) -> Option<Ps1Facts> {
    let class = BlendClass::for_image(img);
    let form = ps1_form(img, class, TextureDepth::Auto, LONE_TEXTURE_FRAMEBUFFER).ok()?;
    let t = &form.tim;
    let (w, h) = (t.pixel_width(), u32::from(t.image.height));
    let mut transparent = 0;
    for y in 0..h {
        for x in 0..w {
            let raw = t.raw_pixel(x, y);
            let colour = match (&t.clut, t.depth) {
                (Some(c), TimDepth::Bpp4 | TimDepth::Bpp8) => {
                    c.data.get(raw as usize).copied().unwrap_or(0)
                }
                _ => raw,
            };
            transparent += usize::from(colour == 0);
        }
    }
    Some(Ps1Facts {
        encoding: class_name(class),
        bpp: form.bits(),
        width: w,
        height: h,
        colours: form.colours,
        clut_entries: t.clut.as_ref().map_or(0, |c| c.data.len()),
        transparent_texels: transparent,
    })
}

/// The name `--blend` and `info` use for an encoding.
pub fn class_name(c: BlendClass) -> &'static str {
    match c {
        BlendClass::Opaque => "opaque",
        BlendClass::Cutout => "cutout",
        BlendClass::Alpha => "alpha",
        BlendClass::Blended => "additive",
    }
}

fn tim_facts(data: &[u8]) -> Result<TimFacts> {
    let tim = Tim::parse(data)?;
    let r = Reader::new(data, "TIM");
    let flags = r.u32_at(4, "TIM flags")?;
    let mut blocks = Vec::new();
    let mut off = 8u64;
    for (what, img) in tim
        .clut
        .iter()
        .map(|c| ("CLUT", c))
        .chain(std::iter::once(("image", &tim.image)))
    {
        let length = 12 + u64::from(img.width) * u64::from(img.height) * 2;
        blocks.push(TimBlock {
            what,
            offset: off,
            vram: VramRect {
                x: img.x,
                y: img.y,
                w: img.width,
                h: img.height,
            },
            length_field: r.u32_at(off, "block length")?,
            length,
        });
        off += length;
    }
    let clut_colours = match tim.depth {
        TimDepth::Bpp4 => 16,
        TimDepth::Bpp8 => 256,
        _ => 0,
    };
    let cluts = match (&tim.clut, clut_colours) {
        (Some(c), n) if n > 0 => u32::from(c.width) / n * u32::from(c.height),
        _ => 0,
    };
    Ok(TimFacts {
        bpp: tim.depth.bpp(),
        flags,
        texture_page: [tim.image.x / 64, tim.image.y / 256],
        cluts,
        clut_colours: if tim.clut.is_some() { clut_colours } else { 0 },
        blocks,
    })
}

fn blp_facts(data: &[u8]) -> Result<BlpFacts> {
    let h = blp::read_header(&Reader::new(data, "BLP2"))?;
    let compression = match h.encoding {
        blp::Encoding::Palette => "palette",
        blp::Encoding::RawBgra => "raw BGRA",
        blp::Encoding::Dxt => match h.dxt_kind() {
            blp::DxtKind::Dxt1 => "DXT1",
            blp::DxtKind::Dxt3 => "DXT3",
            blp::DxtKind::Dxt5 => "DXT5",
        },
    };
    let mips = (0..16u32)
        .take_while(|&i| h.mip_offsets[i as usize] != 0 && h.mip_sizes[i as usize] != 0)
        .map(|i| Mip {
            level: i,
            width: (h.width >> i).max(1),
            height: (h.height >> i).max(1),
            offset: h.mip_offsets[i as usize],
            bytes: h.mip_sizes[i as usize],
        })
        .collect();
    Ok(BlpFacts {
        version: "BLP2, content type 1 (not JPEG)".into(),
        compression,
        alpha_depth: h.alpha_depth,
        alpha_type: h.alpha_type,
        mips,
    })
}

fn dds_facts(data: &[u8]) -> Result<DdsFacts> {
    let r = Reader::new(data, "DDS");
    let mips = r.u32_at(0x1C, "mip count")?.max(1);
    let pf = 0x4C;
    let flags = r.u32_at(pf + 4, "pixel format flags")?;
    let pixel_format = if flags & 0x4 != 0 {
        String::from_utf8_lossy(r.bytes(pf + 8, 4, "FourCC")?).into_owned()
    } else {
        let bits = r.u32_at(pf + 12, "RGB bit count")?;
        let alpha = flags & 0x1 != 0;
        format!("{} {bits}-bit", if alpha { "RGBA" } else { "RGB" })
    };
    Ok(DdsFacts {
        variant: "standard",
        pixel_format,
        mip_levels: mips,
        alpha_mean: None,
    })
}

fn bioware_facts(data: &[u8]) -> Result<DdsFacts> {
    let r = Reader::new(data, "BioWare DDS");
    let (mut w, mut h) = (r.u32_at(0, "width")?, r.u32_at(4, "height")?);
    let format = if r.u32_at(8, "bytes per pixel")? == 3 {
        dds::DxtFormat::Dxt1
    } else {
        dds::DxtFormat::Dxt5
    };
    let alpha_mean = r.f32_at(16, "alpha mean")?;
    let mut left = r.len().saturating_sub(20);
    let mut levels = 0;
    loop {
        let need = format.level_bytes(w, h);
        if need > left {
            break;
        }
        left -= need;
        levels += 1;
        if w == 1 && h == 1 {
            break;
        }
        (w, h) = ((w / 2).max(1), (h / 2).max(1));
    }
    Ok(DdsFacts {
        variant: "BioWare",
        pixel_format: format!("{format:?}").to_uppercase(),
        mip_levels: levels,
        alpha_mean: Some(alpha_mean),
    })
}

fn tga_facts(d: &[u8]) -> TgaFacts {
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

fn plt_facts(data: &[u8]) -> Result<PltFacts> {
    let p = plt::parse(data)?;
    let layer_count = Reader::new(data, "PLT").u32_at(8, "layer count")?;
    let mut counts = [0u64; 10];
    let mut other = 0;
    for &(_, g) in &p.pixels {
        match counts.get_mut(g as usize) {
            Some(c) => *c += 1,
            None => other += 1,
        }
    }
    let layers = (0..10)
        .filter(|&g| counts[g] > 0)
        .map(|g| PltLayer {
            group: g as u8,
            name: PLT_GROUPS[g],
            palette: plt::PALETTE_FILES[g],
            pixels: counts[g],
        })
        .collect();
    Ok(PltFacts {
        layer_count,
        layers,
        other_pixels: other,
    })
}

fn png_facts(d: &[u8]) -> PngFacts {
    PngFacts {
        bit_depth: d.get(24).copied().unwrap_or(0),
        colour_type: match d.get(25) {
            Some(0) => "grey",
            Some(2) => "RGB",
            Some(3) => "palette",
            Some(4) => "grey + alpha",
            Some(6) => "RGBA",
            _ => "unknown",
        },
    }
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

/// One command of a TXI file.
#[derive(Clone, Debug, Serialize)]
pub struct TxiCommand {
    /// 1-based line.
    pub line: usize,
    /// The command word, lower-cased.
    pub command: String,
    /// The rest of the line.
    pub value: String,
    /// What psxrender does with it (`None`: not used).
    pub effect: Option<&'static str>,
}

/// NWN TXI facts.
#[derive(Clone, Debug, Serialize)]
pub struct TxiFacts {
    /// "NWN TXI".
    pub format: &'static str,
    /// Commands in file order.
    pub commands: Vec<TxiCommand>,
}

impl TxiFacts {
    fn parse(data: &[u8]) -> TxiFacts {
        let text = String::from_utf8_lossy(&data[..data.len().min(64 << 10)]);
        let commands = text
            .lines()
            .enumerate()
            .filter_map(|(i, l)| {
                let content = l.split('#').next().unwrap_or("").trim();
                let (cmd, value) = content
                    .split_once(char::is_whitespace)
                    .unwrap_or((content, ""));
                (!cmd.is_empty()).then(|| {
                    let command = cmd.to_ascii_lowercase();
                    let value = value.trim().to_string();
                    TxiCommand {
                        line: i + 1,
                        effect: txi_effect(&command, &value),
                        command,
                        value,
                    }
                })
            })
            .collect();
        TxiFacts {
            format: Kind::Txi.name(),
            commands,
        }
    }

    fn text(&self) -> String {
        let mut s = format!("NWN texture info (TXI): {} commands\n", self.commands.len());
        for c in &self.commands {
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
}

/// What the NWN loader does with a TXI command (`nwn::blend_for`).
fn txi_effect(command: &str, value: &str) -> Option<&'static str> {
    match command {
        "blending" if value.eq_ignore_ascii_case("additive") => {
            Some("faces with this texture are drawn additive (PS1 mode B+F)")
        }
        "envmaptexture" | "bumpmaptexture" => {
            Some("the texture's alpha is a map mask, so its faces are drawn opaque")
        }
        _ => None,
    }
}

/// A GPU dump's or text stream's facts.
#[derive(Clone, Debug, Serialize)]
pub struct GpuFacts {
    /// "GPUDUMP" or "GPU text stream".
    pub format: &'static str,
    /// GPUDUMP: which magic.
    pub magic: Option<&'static str>,
    /// GPUDUMP: the file's compression (`zstd`, `xz`), if any.
    pub compression: Option<&'static str>,
    /// GPUDUMP: packets.
    pub packets: Option<usize>,
    /// GPUDUMP: comment, game ID, video format and GPU version packets, as text.
    pub notes: Vec<String>,
    /// What the words do.
    pub census: Census,
    /// Odd but readable packets.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

impl GpuFacts {
    fn of(input: Input) -> GpuFacts {
        let census = Census::of(&input);
        match &input {
            Input::Stream { .. } => GpuFacts {
                format: Kind::GpuStream.name(),
                magic: None,
                compression: None,
                packets: None,
                notes: Vec::new(),
                census,
                warnings: Vec::new(),
            },
            Input::Dump(d) => GpuFacts {
                format: Kind::GpuDump.name(),
                magic: Some(match d.magic {
                    Magic::Spec => "16-byte spec magic (PSXGPUDUMPv1r1)",
                    Magic::Short => "14-byte DuckStation magic (PSXGPUDUMPv1)",
                }),
                compression: d.compression.map(|c| c.name()),
                packets: Some(d.entries.len()),
                notes: dump_notes(d),
                census,
                warnings: d.warnings.clone(),
            },
        }
    }

    fn text(&self) -> String {
        let mut s = match (self.magic, self.packets) {
            (Some(m), Some(p)) => match self.compression {
                Some(c) => format!("GPUDUMP ({m}), {c}-compressed: {p} packets\n"),
                None => format!("GPUDUMP ({m}): {p} packets\n"),
            },
            _ => "GPU text stream\n".to_string(),
        };
        for n in &self.notes {
            let _ = writeln!(s, "  {n}");
        }
        s.push_str(&self.census.text());
        s
    }
}

fn dump_notes(d: &Dump) -> Vec<String> {
    let mut gp0 = 0usize;
    let mut out = Vec::new();
    for p in d.packets() {
        match p {
            Packet::Gp0(w) => gp0 += w.len(),
            Packet::GameId(s) => out.push(format!("game ID: {s}")),
            Packet::VideoFormat(s) => out.push(format!("video format: {s}")),
            Packet::Comment(s) => out.push(format!("comment: {s}")),
            Packet::GpuVersion(v) => out.push(format!("GPU version word: {v}")),
            Packet::TraceBegin => {
                out.push(format!("trace begins after {gp0} state-restore GP0 words"))
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("psxr-describe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
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
    }
}
