//! Faces into the ordering table: each face through RTPT/RTPS, NCLIP and AVSZ3/4, lit by
//! NCCT/NCCS when the model is lit, and written as one GP0 polygon preceded by the mode word it
//! needs (its texture's window, or a draw mode for an untextured semi-transparent face).

use super::gte_stage::{self, FLAG_PROJECTION_BAD};
use super::packets::{self, BlendMode, PolyTexture, Polygon, ScreenXY, TexPage};
use super::{convert, FrameStats, Renderer};
use crate::scene::{Blend, Face, FaceTexture, PosedMesh, Shading};
use crate::texture;

impl Renderer<'_> {
    /// Projects, culls and lights `mesh`'s faces into the ordering table.
    pub(super) fn build_ot(&mut self, mesh: &PosedMesh) -> FrameStats {
        let mut stats = FrameStats::default();
        let space = self.prep.space;
        let mut pos = Vec::with_capacity(mesh.vertices.len());
        for v in &mesh.vertices {
            let (p, clamped) = space.position(v.position);
            stats.clamped_vertices += clamped as u32;
            pos.push(p);
        }
        let lit = self.opts.lighting && mesh.shading == Shading::Lit;
        for face in &mesh.faces {
            let n = face.corners as usize;
            if !(3..=4).contains(&n) || face.vertices[..n].iter().any(|&i| i as usize >= pos.len())
            {
                stats.invalid += 1;
                continue;
            }
            let idx = face.vertices.map(|i| i as usize);
            let (sxy, flag) =
                gte_stage::rtpt(&mut self.gte, [pos[idx[0]], pos[idx[1]], pos[idx[2]]]);
            if flag & FLAG_PROJECTION_BAD != 0 {
                stats.clipped += 1;
                continue;
            }
            if !face.two_sided && gte_stage::nclip(&mut self.gte) >= 0 {
                stats.back_faces += 1;
                continue;
            }
            let mut xy = [ScreenXY::default(); 4];
            xy[..3].copy_from_slice(&sxy);
            if n == 4 {
                let (s3, flag) = gte_stage::rtps(&mut self.gte, pos[idx[3]]);
                if flag & FLAG_PROJECTION_BAD != 0 {
                    stats.clipped += 1;
                    continue;
                }
                xy[3] = s3;
            }
            if oversize(&xy[..n]) {
                stats.clipped += 1;
                continue;
            }
            let otz = gte_stage::average_z(&mut self.gte, n == 4);
            let mut poly = self.polygon(face, xy);
            if lit {
                poly.rgb = self.light(mesh, face, &idx, poly.command());
            }
            let (pre, texpage_semi) = self.prefix(face, &poly);
            if let Some(t) = &mut poly.texture {
                if let Some(mode) = texpage_semi {
                    t.page = t.page.with_blend(mode);
                }
            }
            stats.drawn += 1;
            self.ot.add(otz, |w| {
                w.extend(pre);
                poly.write(w);
            });
        }
        stats
    }

    /// The mode words written before a polygon (texture window, or draw mode for an untextured
    /// semi-transparent one) and the semi-transparency mode its texpage should carry.
    pub(super) fn prefix(&self, face: &Face, poly: &Polygon) -> (Option<u32>, Option<BlendMode>) {
        let mode = semi_mode(face.blend);
        match &face.texture {
            FaceTexture::Image { texture, .. } => {
                let placed = self.placed(*texture, face.blend);
                (placed.map(|p| window_word(p.window)), mode)
            }
            FaceTexture::Vram { .. } => (Some(packets::texture_window(0, 0, 0, 0)), None),
            FaceTexture::None if poly.semi => (
                Some(packets::draw_mode(
                    TexPage::default().with_blend(mode.unwrap_or(BlendMode::Average)),
                    self.opts.dither,
                )),
                None,
            ),
            FaceTexture::None => (None, None),
        }
    }

    fn placed(&self, texture: usize, blend: Blend) -> Option<texture::Placed> {
        let placed = &self.prep.vram.textures.placed;
        placed.get(&(texture, blend.into())).copied().or_else(|| {
            placed
                .iter()
                .filter(|((t, _), _)| *t == texture)
                .min_by_key(|((_, c), _)| *c)
                .map(|(_, p)| *p)
        })
    }

    pub(super) fn polygon(&self, face: &Face, xy: [ScreenXY; 4]) -> Polygon {
        let texture = match &face.texture {
            FaceTexture::None => None,
            // A texture the framing pose never used is drawn untextured.
            FaceTexture::Image { texture, uv } => {
                self.placed(*texture, face.blend).map(|p| PolyTexture {
                    page: p.page,
                    clut: p.clut,
                    uv: image_uvs(uv, face.corners as usize, p.size),
                })
            }
            FaceTexture::Vram { tpage, clut, uv } => Some(PolyTexture {
                page: TexPage(*tpage),
                clut: packets::Clut(*clut),
                uv: *uv,
            }),
        };
        Polygon {
            xy,
            rgb: face.colors,
            corners: face.corners,
            texture,
            semi: semi_mode(face.blend).is_some(),
        }
    }

    fn light(&mut self, mesh: &PosedMesh, face: &Face, idx: &[usize; 4], code: u8) -> [[u8; 3]; 4] {
        let n = face.corners as usize;
        // Only faces without vertex normals need their own.
        let fallback = if idx[..n]
            .iter()
            .any(|&i| mesh.vertices[i].normal == [0.0; 3])
        {
            face_normal(mesh, idx)
        } else {
            [0.0; 3]
        };
        let normals = idx.map(|i| match mesh.vertices.get(i).map(|v| v.normal) {
            Some(v) if v != [0.0; 3] => convert::normal(v),
            _ => convert::normal(fallback),
        });
        let mut out = face.colors;
        if face.colors[..n].iter().all(|c| *c == face.colors[0]) {
            let three = gte_stage::light_three(
                &mut self.gte,
                [normals[0], normals[1], normals[2]],
                face.colors[0],
                code,
            );
            out[..3].copy_from_slice(&three);
            if n == 4 {
                out[3] = gte_stage::light_one(&mut self.gte, normals[3], face.colors[3], code);
            }
        } else {
            for i in 0..n {
                out[i] = gte_stage::light_one(&mut self.gte, normals[i], face.colors[i], code);
            }
        }
        out
    }
}

/// GP0(E2h) for a placed texture's window.
fn window_word(w: texture::Window) -> u32 {
    packets::texture_window(w.mask[0], w.mask[1], w.offset[0], w.offset[1])
}

fn semi_mode(b: Blend) -> Option<BlendMode> {
    match b {
        Blend::Opaque | Blend::Cutout => None,
        Blend::Alpha => Some(BlendMode::Average),
        Blend::Additive => Some(BlendMode::Add),
        Blend::Subtractive => Some(BlendMode::Subtract),
        Blend::AddQuarter => Some(BlendMode::AddQuarter),
    }
}

/// The face's own normal (for formats without vertex normals): model-space, unit length.
fn face_normal(mesh: &PosedMesh, idx: &[usize; 4]) -> [f32; 3] {
    let p = |i: usize| mesh.vertices[idx[i]].position;
    let (a, b, c) = (p(0), p(1), p(2));
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let l = crate::math::dot3(n, n).sqrt();
    if l > 0.0 && l.is_finite() {
        n.map(|c| c / l)
    } else {
        [0.0; 3]
    }
}

/// Texel coordinates for an [`FaceTexture::Image`] face on a texture of `size` texels: scaled,
/// shifted by whole repeats so the smallest sits in the first repeat (the texture window wraps
/// the rest), saturated to 0–255. A far edge exactly on a repeat boundary (u = 1.0 → S) is pulled
/// in to S−1, as PS1 artists author UVs (0–255 across a 256 texture): otherwise the window
/// wraps it to texel 0 and the last drawn row or column shows the opposite edge.
pub(super) fn image_uvs(uv: &[[f32; 2]; 4], n: usize, size: [u16; 2]) -> [[u8; 2]; 4] {
    let mut out = [[0u8; 2]; 4];
    for axis in 0..2 {
        let s = size[axis] as f32;
        let vals: Vec<f32> = uv[..n]
            .iter()
            .map(|c| {
                if c[axis].is_finite() {
                    c[axis] * s
                } else {
                    0.0
                }
            })
            .collect();
        let min = vals.iter().copied().fold(f32::MAX, f32::min);
        let shift = (min / s).floor() * s;
        let local: Vec<f32> = vals.iter().map(|v| (v - shift).round()).collect();
        let max = local.iter().copied().fold(0.0f32, f32::max);
        let on_boundary = max > 0.0 && max % s == 0.0;
        for (o, &v) in out.iter_mut().zip(&local) {
            let v = if on_boundary && v == max { v - 1.0 } else { v };
            o[axis] = v.clamp(0.0, 255.0) as u8;
        }
    }
    out
}

/// Whether the corners span more than the GPU draws (1023×511): such a polygon is dropped.
pub(super) fn oversize(xy: &[ScreenXY]) -> bool {
    let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    for p in xy {
        x0 = x0.min(p.x as i32);
        x1 = x1.max(p.x as i32);
        y0 = y0.min(p.y as i32);
        y1 = y1.max(p.y as i32);
    }
    x1 - x0 > 1023 || y1 - y0 > 511
}
