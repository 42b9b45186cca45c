//! FF9 file type 0x03: skeletal animation, reader and writer, and the bone transform chain.
//!
//! Layout (wiki "FF9/File/0x03" as summarised in `format-notes.md` §2.3; offsets from the
//! animation start): `u16 0, u16 frames, u16 x, u16 y, u16 z, u16 mask, u32 hi ptr, u32 lo
//! ptr`. Root position: mask bit 0/1/2 set ⇒ X/Y/Z is a constant `i16`, else a `u16` offset to
//! `frames` `i16`s. Angle tables (hi at `hi ptr`, lo at `lo ptr`, which may be 0): per bone
//! `u16 a1, a2, a3, u16 mask`; bit k set ⇒ constant, else `u16` offset to `frames` bytes. The
//! hi table gives angle bits 4-11 (`(v & 0xFF) << 4`), the lo table bits 0-3 (`v & 0x0F`).
//! A full turn is 4096 (12-bit, like the GTE's angles). A mask with a bit above bit 2 set is
//! refused: the public importer does so on game data (only bits 0-2 mean anything), which is how
//! it tells an animation that does not belong to a skeleton.

use super::mesh::Bone;
use super::WriteError;
use crate::formats::reader::Reader;
use crate::formats::Result;

/// Longest animation accepted (frames).
pub const MAX_FRAMES: u64 = 4096;

/// A decoded animation: per frame, the root position and each bone's three 12-bit angles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Animation {
    /// Root position per frame (PS1 axes).
    pub root: Vec<[i16; 3]>,
    /// `angles[frame][bone]` = (a1, a2, a3), each 0..4096.
    pub angles: Vec<Vec<[u16; 3]>>,
}

impl Animation {
    /// Number of frames.
    pub fn frames(&self) -> usize {
        self.root.len()
    }

    /// Parses an animation for a skeleton of `bone_count` bones.
    pub fn parse(data: &[u8], bone_count: usize) -> Result<Animation> {
        let r = Reader::new(data, "FF9 animation");
        let frames = u64::from(r.u16_at(2, "frame count")?);
        r.check_count(2, frames, MAX_FRAMES, "frames")?;
        if frames == 0 {
            return Err(r.invalid(2, "animation has no frames"));
        }
        let mask = r.u16_at(10, "root mask")?;
        check_mask(&r, 10, mask)?;
        let mut root = vec![[0i16; 3]; frames as usize];
        for axis in 0..3u64 {
            let v = r.u16_at(4 + 2 * axis, "root position")?;
            if mask & (1 << axis) != 0 {
                root.iter_mut().for_each(|p| p[axis as usize] = v as i16);
            } else {
                let track = r.array(4 + 2 * axis, u64::from(v), frames, 2, "root track")?;
                for (p, c) in root.iter_mut().zip(track.chunks_exact(2)) {
                    p[axis as usize] = i16::from_le_bytes([c[0], c[1]]);
                }
            }
        }
        let bones = bone_count as u64;
        let hi = u64::from(r.u32_at(12, "hi angle pointer")?);
        let lo = u64::from(r.u32_at(16, "lo angle pointer")?);
        r.array(12, hi, bones, 8, "hi angle table")?;
        if lo != 0 {
            r.array(16, lo, bones, 8, "lo angle table")?;
        }
        let mut angles = vec![vec![[0u16; 3]; bone_count]; frames as usize];
        for (table, shift, keep) in [(hi, 4u16, 0xFFu16), (lo, 0, 0x0F)] {
            if table == 0 && shift == 0 {
                continue;
            }
            for b in 0..bones {
                let rec = table + 8 * b;
                let flags = r.u16_at(rec + 6, "angle flags")?;
                check_mask(&r, rec + 6, flags)?;
                for k in 0..3u64 {
                    let v = r.u16_at(rec + 2 * k, "angle")?;
                    if flags & (1 << k) != 0 {
                        for f in angles.iter_mut() {
                            f[b as usize][k as usize] |= (v & keep) << shift;
                        }
                    } else {
                        let track = r.array(rec + 2 * k, u64::from(v), frames, 1, "angle track")?;
                        for (f, &byte) in angles.iter_mut().zip(track) {
                            f[b as usize][k as usize] |= (u16::from(byte) & keep) << shift;
                        }
                    }
                }
            }
        }
        Ok(Animation { root, angles })
    }

    /// Writes the animation: constant channels as values, changing ones as tracks.
    pub fn write(&self) -> Result<Vec<u8>, WriteError> {
        let frames = self.frames();
        if frames == 0 || frames as u64 > MAX_FRAMES {
            return Err(WriteError::new("an animation needs 1..=4096 frames"));
        }
        if self.angles.len() != frames {
            return Err(WriteError::new(
                "angles and root positions differ in frames",
            ));
        }
        let bones = self.angles[0].len();
        if self.angles.iter().any(|f| f.len() != bones) {
            return Err(WriteError::new("every frame needs every bone"));
        }
        let mut out = vec![0u8; 20];
        out[2..4].copy_from_slice(&(frames as u16).to_le_bytes());
        let mut mask = 0u16;
        for axis in 0..3 {
            let first = self.root[0][axis];
            let v = if self.root.iter().all(|p| p[axis] == first) {
                mask |= 1 << axis;
                first as u16
            } else {
                let at = offset16(out.len())?;
                for p in &self.root {
                    out.extend_from_slice(&p[axis].to_le_bytes());
                }
                at
            };
            out[4 + 2 * axis..6 + 2 * axis].copy_from_slice(&v.to_le_bytes());
        }
        out[10..12].copy_from_slice(&mask.to_le_bytes());
        let hi = out.len();
        let lo = hi + 8 * bones;
        out.resize(lo + 8 * bones, 0);
        out[12..16].copy_from_slice(&(hi as u32).to_le_bytes());
        out[16..20].copy_from_slice(&(lo as u32).to_le_bytes());
        for (table, part) in [(hi, 0usize), (lo, 1)] {
            for b in 0..bones {
                let rec = table + 8 * b;
                let mut flags = 0u16;
                for k in 0..3 {
                    let byte = |f: &Vec<[u16; 3]>| {
                        let a = f[b][k] & 0xFFF;
                        if part == 0 {
                            (a >> 4) as u8
                        } else {
                            (a & 0xF) as u8
                        }
                    };
                    let first = byte(&self.angles[0]);
                    let v = if self.angles.iter().all(|f| byte(f) == first) {
                        flags |= 1 << k;
                        u16::from(first)
                    } else {
                        let at = offset16(out.len())?;
                        out.extend(self.angles.iter().map(byte));
                        at
                    };
                    out[rec + 2 * k..rec + 2 * k + 2].copy_from_slice(&v.to_le_bytes());
                }
                out[rec + 6..rec + 8].copy_from_slice(&flags.to_le_bytes());
            }
        }
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
        Ok(out)
    }
}

/// Refuses a constant/track mask with bits above 0-2 set.
fn check_mask(r: &Reader, off: u64, mask: u16) -> Result<()> {
    if mask > 7 {
        return Err(r.invalid(
            off,
            format!("mask 0x{mask:04x} has bits above bit 2 set (only X/Y/Z bits 0-2 exist)"),
        ));
    }
    Ok(())
}

fn offset16(at: usize) -> Result<u16, WriteError> {
    u16::try_from(at).map_err(|_| WriteError::new("animation tracks exceed 64 KiB"))
}

/// A rigid transform: `p' = r · p + t`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Xform {
    /// Rotation, row-major.
    pub r: [[f32; 3]; 3],
    /// Translation.
    pub t: [f32; 3],
}

impl Xform {
    /// The identity.
    pub const IDENTITY: Xform = Xform {
        r: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        t: [0.0; 3],
    };

    /// `self · other`.
    pub fn mul(&self, o: &Xform) -> Xform {
        let mut r = [[0.0f32; 3]; 3];
        for (i, row) in r.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = (0..3).map(|k| self.r[i][k] * o.r[k][j]).sum();
            }
        }
        Xform {
            r,
            t: self.apply(o.t),
        }
    }

    /// Transforms a point.
    pub fn apply(&self, p: [f32; 3]) -> [f32; 3] {
        std::array::from_fn(|i| (0..3).map(|k| self.r[i][k] * p[k]).sum::<f32>() + self.t[i])
    }

    /// The inverse transform of a point (`rᵀ · (p - t)`).
    pub fn unapply(&self, p: [f32; 3]) -> [f32; 3] {
        let d = [p[0] - self.t[0], p[1] - self.t[1], p[2] - self.t[2]];
        std::array::from_fn(|i| (0..3).map(|k| self.r[k][i] * d[k]).sum())
    }

    /// A translation.
    pub fn translate(t: [f32; 3]) -> Xform {
        Xform {
            t,
            ..Xform::IDENTITY
        }
    }

    /// The rotation for FF9 angles (a1, a2, a3), 4096 = full turn: `Rz(a3) · Ry(a2) · Rx(a1)`
    /// in the model's own (PS1) axes. The axis order follows the one public importer (X, then
    /// the vertical axis, then the remaining one); which sign each axis takes in the game is
    /// not verified against game data.
    pub fn euler(a: [u16; 3]) -> Xform {
        let ang = |v: u16| f32::from(v & 0xFFF) * std::f32::consts::TAU / 4096.0;
        let (sx, cx) = crate::math::sin_cos(ang(a[0]));
        let (sy, cy) = crate::math::sin_cos(ang(a[1]));
        let (sz, cz) = crate::math::sin_cos(ang(a[2]));
        let rx = [[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]];
        let ry = [[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]];
        let rz = [[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]];
        let m = |r| Xform { r, t: [0.0; 3] };
        m(rz).mul(&m(ry)).mul(&m(rx))
    }
}

/// Bone world transforms (model space, PS1 axes). Bone `i > 0` = `world[parent] · T(0,0,lenᵢ)
/// · Rᵢ`. The root in an animation frame (`root` = the frame's root position) is `T(root) ·
/// R₀`: the position replaces the root's own length, as the public importer does on game data;
/// without an animation (`root` = None) it is `T(0,0,len₀) · R₀` like every other bone.
/// `angles` may be shorter than `bones` (missing bones get no rotation). Parents precede their
/// children (checked when the model is read).
pub fn bone_worlds(bones: &[Bone], root: Option<[i16; 3]>, angles: &[[u16; 3]]) -> Vec<Xform> {
    let mut out: Vec<Xform> = Vec::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        let rot = Xform::euler(angles.get(i).copied().unwrap_or([0; 3]));
        let along = Xform::translate([0.0, 0.0, b.length as f32]);
        let world = match (i, root) {
            (0, Some(p)) => Xform::translate(p.map(f32::from)).mul(&rot),
            (0, None) => along.mul(&rot),
            _ => out[usize::from(b.parent).min(i - 1)].mul(&along.mul(&rot)),
        };
        out.push(world);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn animation_round_trips_with_constant_and_changing_channels() {
        let frames = 7;
        let anim = Animation {
            root: (0..frames).map(|f| [5, -100 + f as i16 * 3, 9]).collect(),
            angles: (0..frames)
                .map(|f| {
                    vec![
                        [1024, (f * 37) as u16 & 0xFFF, 4095],
                        [0, 17, (f * 300) as u16],
                    ]
                })
                .collect(),
        };
        let bytes = anim.write().unwrap();
        assert_eq!(Animation::parse(&bytes, 2).unwrap(), anim);
        // Constant X and Z root, changing Y.
        assert_eq!(u16::from_le_bytes([bytes[10], bytes[11]]), 0b101);
    }

    #[test]
    fn bones_chain_along_parent_z() {
        let bones = [
            Bone {
                length: 0,
                parent: 0,
            },
            Bone {
                length: 100,
                parent: 0,
            },
        ];
        // Root turned 90° about X: local +Z becomes -Y (PS1 up).
        let w = bone_worlds(&bones, Some([0, 0, 0]), &[[1024, 0, 0], [0, 0, 0]]);
        let p = w[1].apply([0.0; 3]);
        assert!(p[0].abs() < 1e-3 && (p[1] + 100.0).abs() < 1e-3 && p[2].abs() < 1e-3);
        assert_eq!(w[1].unapply(p).map(|v| v.round()), [0.0; 3]);
    }

    #[test]
    fn the_root_length_counts_only_without_an_animation() {
        let bones = [
            Bone {
                length: 500,
                parent: 0,
            },
            Bone {
                length: 100,
                parent: 0,
            },
        ];
        let root = |w: &[Xform]| w[0].apply([0.0; 3]);
        assert_eq!(
            root(&bone_worlds(&bones, Some([1, 2, 3]), &[])),
            [1.0, 2.0, 3.0]
        );
        assert_eq!(root(&bone_worlds(&bones, None, &[])), [0.0, 0.0, 500.0]);
        let w = bone_worlds(&bones, Some([0, 0, 0]), &[]);
        assert_eq!(w[1].apply([0.0; 3]), [0.0, 0.0, 100.0]);
    }

    #[test]
    fn masks_above_bit_2_are_refused() {
        let anim = Animation {
            root: vec![[0, 0, 0]; 2],
            angles: vec![vec![[0, 0, 0]]; 2],
        };
        let bytes = anim.write().unwrap();
        assert!(Animation::parse(&bytes, 1).is_ok());
        let hi = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        let lo = u32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
        for at in [10, hi + 6, lo + 6] {
            let mut b = bytes.clone();
            b[at..at + 2].copy_from_slice(&0x000Fu16.to_le_bytes());
            let e = Animation::parse(&b, 1).unwrap_err();
            assert_eq!(e.offset, at as u64, "{e}");
            assert!(e.to_string().contains("mask 0x000f"), "{e}");
        }
    }
}
