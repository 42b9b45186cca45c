//! What a file is, from its content alone (never its name): one [`Detector`] per format, each
//! either claiming the file or saying why it does not. [`identify`] asks them in
//! [`DETECTORS`] order and returns the first claim; when none claims the file, every refusal
//! is kept, so the message can list the formats tried and why each said no.
//!
//! Adding a format is one entry in [`DETECTORS`] (and one arm wherever a [`Kind`] is read).
//!
//! Order matters only where two tests could both pass, and the tests are written so they
//! cannot: a TGA needs a non-zero image type in byte 2 and a non-zero height at 14, which a
//! NWN binary model (4 zero bytes) and a bare FF9 model (bone table pointer at 12, below
//! 64 KiB) never have; a BioWare DDS needs byte 2 zero (a width below 64 Ki), which no TGA
//! has. The magic-less formats (BioWare DDS, TGA, FF9) come after every format with a magic.
//!
//! Detection is the top of the reading layers: it knows every loader and the capture readers
//! (a GPU dump is sniffed by [`crate::capture::dump`]), and nothing below it knows it.
//! [`load`] and [`load_image`] open a file by what it is.

mod open;

pub use crate::read::error::{Role, Unrecognised};
pub use open::{decode_image, load, load_data, load_image};

use crate::capture::dump;
use crate::capture::input::STREAM_FORMAT;
use crate::formats::{dds, ff9, gltf, nwn};
use crate::read::text::strip_bom;

/// Every kind of file psxrender reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// GPU dump (`PSXGPUDUMPv1`).
    GpuDump,
    /// WoW M2 model (`MD20`).
    M2,
    /// WoW BLP2 texture (or the older BLP1).
    Blp,
    /// Standard DirectDraw Surface (`DDS `).
    Dds,
    /// NWN PLT layered texture (`PLT V1  `).
    Plt,
    /// PNG image (captures for `compare`, textures for `texture`).
    Png,
    /// Sony TIM image (id 0x10).
    Tim,
    /// glTF 2.0 model: binary `.glb` (`glTF`) or `.gltf` JSON with an `"asset"`.
    Gltf,
    /// NWN binary MDL (first u32 is 0).
    NwnBinary,
    /// NWN ASCII MDL (text with `#MAXMODEL`, `newmodel` or `beginmodelgeom`).
    NwnAscii,
    /// Plain-text GPU stream (`gp0 HEX` / `gp1 HEX` / `frame` lines).
    GpuStream,
    /// NWN texture-info text (`.txi` beside a texture).
    Txi,
    /// BioWare's magic-less DDS (NWN).
    BiowareDds,
    /// Truevision TGA image (no magic: header fields checked).
    Tga,
    /// FF9 data cluster (`0xDB`) or bare type-0x02 model.
    Ff9,
}

impl Kind {
    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        DETECTORS
            .iter()
            .find(|d| d.kind == self)
            .map_or("?", |d| d.name)
    }

    /// What the kind of file is for.
    pub fn role(self) -> Role {
        match self {
            Kind::M2 | Kind::NwnBinary | Kind::NwnAscii | Kind::Ff9 | Kind::Gltf => Role::Model,
            Kind::Blp | Kind::Dds | Kind::BiowareDds | Kind::Plt | Kind::Png | Kind::Tim => {
                Role::Texture
            }
            Kind::Tga => Role::Texture,
            Kind::Txi => Role::TextureInfo,
            Kind::GpuDump | Kind::GpuStream => Role::GpuInput,
        }
    }
}

/// One format's content test.
pub struct Detector {
    /// Which kind it recognises.
    pub kind: Kind,
    /// Name used in messages ("TIM", "BLP2", …).
    pub name: &'static str,
    /// `Ok` when the content is this format, else why not (what was expected, what was seen).
    pub test: fn(&[u8]) -> Result<(), String>,
}

/// Every detector, in the order they are asked.
pub const DETECTORS: &[Detector] = &[
    Detector {
        kind: Kind::GpuDump,
        name: dump::FORMAT,
        test: gpu_dump,
    },
    Detector {
        kind: Kind::M2,
        name: "M2",
        test: |d| magic(d, b"MD20"),
    },
    Detector {
        kind: Kind::Blp,
        name: "BLP2",
        // The older BLP1 container goes to the same decoder.
        test: |d| magic(d, b"BLP2").or_else(|e| magic(d, b"BLP1").map_err(|_| e)),
    },
    Detector {
        kind: Kind::Dds,
        name: "DDS",
        test: |d| magic(d, b"DDS "),
    },
    Detector {
        kind: Kind::Plt,
        name: "PLT",
        test: |d| magic(d, b"PLT V1  "),
    },
    Detector {
        kind: Kind::Png,
        name: "PNG",
        test: |d| magic(d, b"\x89PNG\r\n\x1a\n"),
    },
    Detector {
        kind: Kind::Tim,
        name: "TIM",
        test: tim,
    },
    Detector {
        kind: Kind::Gltf,
        name: "glTF",
        test: gltf_test,
    },
    Detector {
        kind: Kind::NwnBinary,
        name: "NWN MDL (binary)",
        test: nwn_binary,
    },
    Detector {
        kind: Kind::NwnAscii,
        name: "NWN MDL (ASCII)",
        test: nwn_ascii,
    },
    Detector {
        kind: Kind::GpuStream,
        name: STREAM_FORMAT,
        test: gpu_stream,
    },
    Detector {
        kind: Kind::Txi,
        name: nwn::txi::FORMAT,
        test: txi,
    },
    Detector {
        kind: Kind::BiowareDds,
        name: "BioWare DDS",
        test: bioware_dds,
    },
    Detector {
        kind: Kind::Tga,
        name: "TGA",
        test: tga,
    },
    Detector {
        kind: Kind::Ff9,
        name: "FF9",
        test: ff9,
    },
];

/// The kind of `data`, or every detector's refusal.
pub fn identify(data: &[u8]) -> Result<Kind, Unrecognised> {
    let mut refusals = Vec::with_capacity(DETECTORS.len());
    for d in DETECTORS {
        match (d.test)(data) {
            Ok(()) => return Ok(d.kind),
            Err(why) => refusals.push((d.name, why)),
        }
    }
    Err(Unrecognised {
        size: data.len(),
        refusals,
    })
}

fn magic(data: &[u8], want: &[u8]) -> Result<(), String> {
    if data.starts_with(want) {
        Ok(())
    } else {
        Err(format!("no {} magic", show_magic(want)))
    }
}

fn show_magic(m: &[u8]) -> String {
    if m.iter().all(|c| c.is_ascii_graphic() || *c == b' ') {
        format!("\"{}\"", String::from_utf8_lossy(m))
    } else {
        m.iter()
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn u16_at(d: &[u8], off: usize) -> Option<u16> {
    Some(u16::from_le_bytes(d.get(off..off + 2)?.try_into().ok()?))
}

fn u32_at(d: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(d.get(off..off + 4)?.try_into().ok()?))
}

fn gpu_dump(d: &[u8]) -> Result<(), String> {
    if dump::looks_like_dump(d) {
        Ok(())
    } else {
        Err("no \"PSXGPUDUMPv1\" magic (nor a zstd/xz-compressed one)".into())
    }
}

/// TIM: u32 id 0x10 (the low half, as the reader checks), then a flags word whose bits above
/// 3 are masked (junk there is real, see `tim.rs`); a header of at least 20 bytes.
fn tim(d: &[u8]) -> Result<(), String> {
    match u32_at(d, 0) {
        Some(id) if id & 0xFFFF == 0x10 && d.len() >= 20 => Ok(()),
        Some(id) if id & 0xFFFF == 0x10 => Err(format!("id 0x10 but only {} bytes", d.len())),
        _ => Err("no TIM id 10 00 00 00".into()),
    }
}

/// glTF: the GLB magic, or a JSON object with an `"asset"` key (see [`gltf::looks_like`]). A
/// JSON text starts with `{`, which no NWN ASCII model, GPU stream or TXI line does, so it is
/// asked before them; a `.bin` buffer beside a `.gltf` has no header at all and is claimed by
/// nothing.
fn gltf_test(d: &[u8]) -> Result<(), String> {
    if gltf::looks_like(d) {
        Ok(())
    } else {
        Err("no \"glTF\" magic, nor a JSON object with an \"asset\" (or broken JSON)".into())
    }
}

fn nwn_binary(d: &[u8]) -> Result<(), String> {
    if d.len() >= 12 && d[..4] == [0, 0, 0, 0] {
        Ok(())
    } else {
        Err("does not start with a zero u32 (and a 12-byte file header)".into())
    }
}

fn nwn_ascii(d: &[u8]) -> Result<(), String> {
    if nwn::looks_ascii(d) {
        Ok(())
    } else {
        Err("no #MAXMODEL / newmodel / beginmodelgeom in its first 4 KiB of text".into())
    }
}

/// Text whose first meaningful line is `gp0 HEX`, `gp1 HEX` or `frame` (after comments and
/// blank lines, and the probe files' `case` lines).
fn gpu_stream(d: &[u8]) -> Result<(), String> {
    let d = strip_bom(d);
    let head = &d[..d.len().min(64 << 10)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // A cut in the middle of a UTF-8 sequence at the 64 KiB mark is still text.
        Err(e) if e.valid_up_to() + 4 > head.len() && e.valid_up_to() > 0 => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or("")
        }
        Err(_) => return Err("not UTF-8 text".into()),
    };
    // Messages say where, never what: the file may be anyone's (a manifest naming a secret).
    for (i, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("").trim();
        let mut words = content.split_whitespace();
        match words.next() {
            None | Some("case") => continue,
            Some("gp0" | "gp1") if words.next().is_some_and(is_hex_word) => return Ok(()),
            Some("frame") => return Ok(()),
            Some(_) => {
                return Err(format!(
                    "text, but its first command (line {}) is not gp0/gp1/frame",
                    i + 1
                ))
            }
        }
    }
    Err("text without a gp0/gp1/frame line".into())
}

fn is_hex_word(s: &str) -> bool {
    !s.is_empty() && s.len() <= 8 && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// The TXI directives psxrender acts on; a TXI file is text whose every command line starts
/// with a word of letters and at least one of these is present.
pub const TXI_USED: [&str; 3] = ["blending", "envmaptexture", "bumpmaptexture"];

fn txi(d: &[u8]) -> Result<(), String> {
    let d = strip_bom(d);
    let head = &d[..d.len().min(64 << 10)];
    let text = std::str::from_utf8(head).map_err(|_| "not UTF-8 text".to_string())?;
    let mut used = false;
    for (i, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("").trim();
        let Some(word) = content.split_whitespace().next() else {
            continue;
        };
        if !word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("line {} does not start with a TXI command", i + 1));
        }
        used |= TXI_USED.contains(&word.to_ascii_lowercase().as_str());
    }
    if used {
        Ok(())
    } else {
        Err(format!("no {} line", TXI_USED.join("/")))
    }
}

/// BioWare DDS: `u32 width, height` powers of two up to [`dds::MAX_DIMENSION`], `u32 bpp` 3
/// or 4, and the base level inside the file.
fn bioware_dds(d: &[u8]) -> Result<(), String> {
    let (Some(w), Some(h), Some(bpp)) = (u32_at(d, 0), u32_at(d, 4), u32_at(d, 8)) else {
        return Err("shorter than its 20-byte header".into());
    };
    let side = |v: u32| v.is_power_of_two() && v <= dds::MAX_DIMENSION;
    if !side(w) || !side(h) {
        return Err(format!(
            "width/height {w}x{h} are not powers of two up to {}",
            dds::MAX_DIMENSION
        ));
    }
    let format = match bpp {
        3 => dds::DxtFormat::Dxt1,
        4 => dds::DxtFormat::Dxt5,
        _ => return Err(format!("bytes per pixel {bpp}, not 3 (DXT1) or 4 (DXT5)")),
    };
    if (d.len() as u64) < 20 + format.level_bytes(w, h) {
        return Err(format!("{w}x{h} header but too short for its base level"));
    }
    Ok(())
}

/// TGA: colour-map type 0/1, image type 1/2/3/9/10/11, non-zero width and height, a pixel
/// depth of 8/15/16/24/32, and the colour map's entry size when there is one.
fn tga(d: &[u8]) -> Result<(), String> {
    if d.len() < 18 {
        return Err("shorter than the 18-byte header".into());
    }
    let (map_type, image_type, depth) = (d[1], d[2], d[16]);
    if map_type > 1 {
        return Err(format!("colour-map type {map_type}, not 0 or 1"));
    }
    if !matches!(image_type, 1 | 2 | 3 | 9 | 10 | 11) {
        return Err(format!("image type {image_type}, not 1-3 or 9-11"));
    }
    let (w, h) = (u16_at(d, 12).unwrap_or(0), u16_at(d, 14).unwrap_or(0));
    if w == 0 || h == 0 {
        return Err(format!("size {w}x{h}"));
    }
    if !matches!(depth, 8 | 15 | 16 | 24 | 32) {
        return Err(format!("pixel depth {depth}"));
    }
    if map_type == 1 && !matches!(d[7], 15 | 16 | 24 | 32) {
        return Err(format!("colour-map entry size {}", d[7]));
    }
    Ok(())
}

/// FF9: a data cluster (`0xDB`, then a chunk count and a zero u16), or a bare type-0x02 model
/// (`u16 0`, at least one bone, and a bone-table pointer inside the file).
fn ff9(d: &[u8]) -> Result<(), String> {
    if d.len() >= 4 && d[0] == ff9::cluster::CLUSTER_MAGIC && d[2..4] == [0, 0] {
        return Ok(());
    }
    if d.len() >= 0x14 && d[..2] == [0, 0] && d[2] > 0 {
        let bones = u32_at(d, 0x0C).unwrap_or(u32::MAX) as usize;
        if bones >= 0x14 && bones < d.len() {
            return Ok(());
        }
        return Err(format!(
            "starts 00 00 like a bare model, but its bone pointer 0x{bones:x} is outside the file"
        ));
    }
    Err(
        "neither a data cluster (db NN 00 00) nor a type-0x02 model (00 00, bones, a bone pointer)"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junk_lists_every_format_tried() {
        let e = identify(b"hello").unwrap_err();
        assert_eq!(e.refusals.len(), DETECTORS.len());
        let msg = e.to_string();
        // The file's bytes are never shown: it may be anyone's.
        assert!(
            msg.contains("(5 bytes; none shown") && !msg.contains("hello"),
            "{msg}"
        );
        for d in DETECTORS {
            assert!(msg.contains(d.name), "{msg}");
        }
    }

    #[test]
    fn magics_and_headers() {
        assert_eq!(identify(b"MD20\x00\x01"), Ok(Kind::M2));
        assert_eq!(
            identify(&[0x10, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            Ok(Kind::Tim)
        );
        assert_eq!(identify(&[0; 16]), Ok(Kind::NwnBinary));
        assert_eq!(identify(b"glTF\x02\0\0\0"), Ok(Kind::Gltf));
        assert_eq!(
            identify(b"\xEF\xBB\xBF {\"asset\": {\"version\": \"2.0\"}}"),
            Ok(Kind::Gltf)
        );
        // JSON that is not glTF is nothing psxrender reads; broken JSON is a broken glTF.
        assert!(identify(b"{\"nodes\": []}").is_err());
        assert_eq!(identify(b"{\"nodes\": [}"), Ok(Kind::Gltf));
        assert_eq!(identify(b"# c\n\ngp1 00000000\n"), Ok(Kind::GpuStream));
        assert_eq!(identify(b"\xEF\xBB\xBFgp1 00000000\n"), Ok(Kind::GpuStream));
        assert_eq!(identify(b"envmaptexture x\nalphamean 0.3\n"), Ok(Kind::Txi));
        let mut tga = vec![0u8; 18 + 12];
        tga[2] = 2;
        tga[12] = 2;
        tga[14] = 2;
        tga[16] = 24;
        assert_eq!(identify(&tga), Ok(Kind::Tga));
        let mut bw = Vec::new();
        for v in [4u32, 4, 3, 8, 0] {
            bw.extend_from_slice(&v.to_le_bytes());
        }
        bw.extend_from_slice(&[0; 8]);
        assert_eq!(identify(&bw), Ok(Kind::BiowareDds));
        let mut bare = vec![0u8; 0x20];
        bare[2] = 1;
        bare[0x0C] = 0x14;
        assert_eq!(identify(&bare), Ok(Kind::Ff9));
        assert_eq!(identify(&[0xDB, 1, 0, 0]), Ok(Kind::Ff9));
        assert!(identify(b"").is_err());
        assert!(identify(&[0xff; 64]).is_err());
    }

    #[test]
    fn every_kind_has_one_detector() {
        for d in DETECTORS {
            assert_eq!(DETECTORS.iter().filter(|e| e.kind == d.kind).count(), 1);
            assert_eq!(d.kind.name(), d.name);
        }
    }

    #[test]
    fn plt_magic_is_the_readers() {
        assert!(crate::formats::plt::parse(b"PLT V1  ").is_err());
        assert_eq!(identify(b"PLT V1  \x0a\0\0\0"), Ok(Kind::Plt));
    }
}
