//! Posing: sequence time → bone matrices → CPU skinning → faces with colours and visibility.
//!
//! Bone matrix (format-notes §2.2, WMVx `calculateMatrix`): `T(pivot)·T(trans)·R(q)·S(scale)·
//! T(−pivot)` under the parent's. Skinning: `v' = Σ (w_i/255)·M[bone_i]·v` over non-zero
//! weights. Billboarded bones (flag 0x8) keep their pivot's position and scale but turn their
//! local +Z (WoW's +X, the way billboard geometry is authored) toward the camera.

use super::track::{Rot, Time};
use super::{blend_of, M2Model, BONE_BILLBOARD};
use crate::math::{normalize3, Affine};
use crate::scene::{Blend, Face, FaceTexture, PoseRequest, PosedMesh, Shading, Texture, Vertex};

/// Render flag 0x4: no back-face culling.
const RENDER_TWO_SIDED: u16 = 0x4;
/// Opacity at or below which a batch is not drawn.
const HIDDEN_ALPHA: f32 = 1.0 / 255.0;

/// The sampling time for a request: frame N = N·1000/30 ms from the sequence start, wrapping
/// after the sequence's frame count.
pub fn time_of(m: &M2Model, request: &PoseRequest) -> Time {
    let global_ms = (u64::from(request.frame) * 1000 / 30) as u32;
    match request
        .animation
        .and_then(|i| m.sequences.get(i).map(|s| (i, s)))
    {
        Some((i, s)) => {
            let frame = request.frame % s.frames();
            let local = ((u64::from(frame) * 1000 / 30) as u32).min(s.duration_ms());
            Time {
                sequence: Some(i),
                ms: s.start_ms.saturating_add(local),
                global_ms,
            }
        }
        None => Time {
            sequence: None,
            ms: 0,
            global_ms,
        },
    }
}

/// One matrix per bone at `time` (identity everywhere for the rest pose).
pub fn bone_matrices(m: &M2Model, time: &Time, camera: Option<[[f32; 3]; 3]>) -> Vec<Affine> {
    let mut out = vec![Affine::IDENTITY; m.bones.len()];
    let gs = &m.global_sequences;
    for &i in &m.bone_order {
        let b = &m.bones[i];
        let parent = b.parent.map_or(Affine::IDENTITY, |p| out[p]);
        let mut world = parent.mul(&local_matrix(b, time, gs));
        if b.flags & BONE_BILLBOARD != 0 {
            world = face_camera(&world, b.pivot, camera);
        }
        out[i] = world;
    }
    out
}

/// A bone's matrix relative to its parent at `time`.
fn local_matrix(b: &super::Bone, time: &Time, gs: &[u32]) -> Affine {
    let billboard = b.flags & BONE_BILLBOARD != 0;
    let animated = time.sequence.is_some();
    let t = animated.then(|| b.translation.sample(time, gs)).flatten();
    let r = animated.then(|| b.rotation.sample(time, gs)).flatten();
    let s = animated.then(|| b.scale.sample(time, gs)).flatten();
    if t.is_none() && r.is_none() && s.is_none() && !billboard {
        return Affine::IDENTITY;
    }
    Affine::translation(b.pivot)
        .mul(&Affine::translation(t.unwrap_or([0.0; 3])))
        .mul(&Affine::rotation(r.unwrap_or(Rot([0.0, 0.0, 0.0, 1.0])).0))
        .mul(&Affine::scale(s.unwrap_or([1.0; 3])))
        .mul(&Affine::translation(b.pivot.map(|c| -c)))
}

/// One bone's world matrix at `time`, walking only its own chain of parents (billboarding
/// ignored: effects attached to a bone follow its position, not its facing).
pub fn bone_world(m: &M2Model, bone: usize, time: &Time) -> Affine {
    let mut chain = Vec::new();
    let mut at = Some(bone);
    while let Some(b) = at.filter(|&b| b < m.bones.len() && chain.len() < m.bones.len()) {
        chain.push(b);
        at = m.bones[b].parent;
    }
    chain.iter().rev().fold(Affine::IDENTITY, |acc, &b| {
        acc.mul(&local_matrix(&m.bones[b], time, &m.global_sequences))
    })
}

/// [`bone_world`] through `memo`, which keeps the bone transforms of the moment asked for last:
/// the effects of a model step together, each asking for its bone at the same moment, so a
/// chain of parents they share is posed once a step. The same products in the same order as
/// [`bone_world`], so the same transform bit for bit; a bone whose parents loop (which
/// [`bone_world`] walks only as far as there are bones) is posed as it does, unkept.
pub fn bone_world_shared(m: &M2Model, bone: usize, time: &Time, memo: &BoneMemo) -> Affine {
    let mut kept = memo.at((time.sequence, time.ms, time.global_ms), m.bones.len());
    // Up to the first bone kept at this moment, or the root.
    let mut chain = Vec::new();
    let mut at = Some(bone);
    let mut above = None;
    while let Some(b) = at.filter(|&b| b < m.bones.len()) {
        if let Some(w) = kept.get(b) {
            above = Some(w);
            break;
        }
        if chain.len() == m.bones.len() {
            // The parents loop.
            drop(kept);
            return bone_world(m, bone, time);
        }
        chain.push(b);
        at = m.bones[b].parent;
    }
    let mut w = above.unwrap_or(Affine::IDENTITY);
    for &b in chain.iter().rev() {
        w = w.mul(&local_matrix(&m.bones[b], time, &m.global_sequences));
        kept.keep(b, w);
    }
    w
}

/// Bone transforms of the moment last asked for ([`bone_world_shared`]): a moment is a
/// sequence and its two clocks.
pub type BoneMemo = crate::scene::MomentMemo<(Option<usize>, u32, u32), Affine>;

/// The sampling time `seconds` into sequence `sequence` (wrapping at its end; global
/// sequences run on).
pub fn time_at(m: &M2Model, sequence: Option<usize>, seconds: f32) -> Time {
    let total_ms = if seconds.is_finite() {
        (f64::from(seconds.max(0.0)) * 1000.0).min(f64::from(u32::MAX)) as u32
    } else {
        0
    };
    match sequence.and_then(|i| m.sequences.get(i).map(|s| (i, s))) {
        Some((i, s)) => {
            let d = s.duration_ms();
            let local = if d > 0 { total_ms % d } else { 0 };
            Time {
                sequence: Some(i),
                ms: s.start_ms.saturating_add(local),
                global_ms: total_ms,
            }
        }
        None => Time {
            sequence: None,
            ms: 0,
            global_ms: total_ms,
        },
    }
}

/// Replaces the rotation of `world` so the bone's local axes are the camera's (right, up,
/// toward the viewer), keeping the pivot where `world` puts it and the axis scales.
fn face_camera(world: &Affine, pivot: [f32; 3], camera: Option<[[f32; 3]; 3]>) -> Affine {
    let [right, up, forward] =
        camera.unwrap_or([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]);
    let axes = [
        normalize3(right),
        normalize3(up),
        normalize3(forward.map(|c| -c)),
    ];
    let scale: [f32; 3] = std::array::from_fn(|j| {
        let c = world.column(j);
        (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt()
    });
    let p = world.point(pivot);
    let mut out = Affine::IDENTITY;
    for row in 0..3 {
        for (j, axis) in axes.iter().enumerate() {
            out.0[row][j] = axis[row] * scale[j];
        }
    }
    let moved = out.vector(pivot);
    for row in 0..3 {
        out.0[row][3] = p[row] - moved[row];
    }
    out
}

/// A texture animation's transform at one moment: UVs are moved by the translation track,
/// then scaled and turned about the texture's centre (WebWowViewerCpp's `animationManager.cpp`
/// composes rotation · scaling · translation, so the translation is applied first and turns
/// with the texture).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UvTransform {
    /// Translation in UV units, after the rotation · scaling (`m` times the track's).
    pub translation: [f32; 2],
    /// 2×2 rotation·scale.
    pub m: [[f32; 2]; 2],
}

impl UvTransform {
    /// The transformed coordinate, snapped to 1/65536 so rotation round-off (−1e−8 for a
    /// corner that is exactly 0) does not push a face into the neighbouring texture repeat.
    pub fn apply(&self, [u, v]: [f32; 2]) -> [f32; 2] {
        let (x, y) = (u - 0.5, v - 0.5);
        let snap = |c: f32| (c * 65536.0).round() / 65536.0;
        [
            snap(0.5 + self.m[0][0] * x + self.m[0][1] * y + self.translation[0]),
            snap(0.5 + self.m[1][0] * x + self.m[1][1] * y + self.translation[1]),
        ]
    }
}

/// The texture animation a unit plays, at `time`; `None` when it has none.
pub fn texture_transform(
    m: &M2Model,
    unit: &super::TextureUnit,
    time: &Time,
) -> Option<UvTransform> {
    let x = &m.extras;
    let i = *x
        .texture_anim_lookup
        .get(usize::from(unit.texture_anim_combo))?;
    let anim = x.texture_anims.get(usize::try_from(i).ok()?)?;
    let gs = &m.global_sequences;
    let t = anim.translation.sample(time, gs).unwrap_or([0.0; 3]);
    let r = anim
        .rotation
        .sample(time, gs)
        .unwrap_or(Rot([0.0, 0.0, 0.0, 1.0]));
    let s = anim.scaling.sample(time, gs).unwrap_or([1.0; 3]);
    let rot = Affine::rotation(r.0);
    let finite = |v: f32, d: f32| if v.is_finite() { v } else { d };
    let sc = [finite(s[0], 1.0), finite(s[1], 1.0)];
    let mut mat = [[0.0; 2]; 2];
    for (row, out) in mat.iter_mut().enumerate() {
        for (col, o) in out.iter_mut().enumerate() {
            *o = finite(rot.0[row][col], 0.0) * sc[col];
        }
    }
    let t = [finite(t[0], 0.0), finite(t[1], 0.0)];
    Some(UvTransform {
        translation: [
            mat[0][0] * t[0] + mat[0][1] * t[1],
            mat[1][0] * t[0] + mat[1][1] * t[1],
        ],
        m: mat,
    })
}

/// Poses the model.
pub fn pose(m: &M2Model, request: &PoseRequest) -> PosedMesh {
    let time = time_of(m, request);
    let mats = bone_matrices(m, &time, request.camera);
    let vertices = m
        .vertices
        .iter()
        .map(|v| {
            let mut pos = [0.0f32; 3];
            let mut nrm = [0.0f32; 3];
            let mut total = 0.0;
            for k in 0..4 {
                let w = f32::from(v.weights[k]) / 255.0;
                let Some(mat) = (w > 0.0).then(|| mats.get(v.bones[k] as usize)).flatten() else {
                    continue;
                };
                let (p, n) = (mat.point(v.position), mat.vector(v.normal));
                for c in 0..3 {
                    pos[c] += w * p[c];
                    nrm[c] += w * n[c];
                }
                total += w;
            }
            if total == 0.0 {
                // Unweighted vertex: it stays where it was modelled.
                pos = v.position;
                nrm = v.normal;
            }
            Vertex {
                position: pos,
                normal: normalize3(nrm),
            }
        })
        .collect();

    let gs = &m.global_sequences;
    // Colour/transparency tracks: the rest pose shows what the first sequence starts with.
    let vis_time = match time.sequence {
        Some(_) => time,
        None if !m.sequences.is_empty() => Time {
            sequence: Some(0),
            ms: m.sequences[0].start_ms,
            global_ms: time.global_ms,
        },
        None => time,
    };
    let mut faces = Vec::new();
    let view = &m.views[m.lod.min(m.views.len().saturating_sub(1))];
    let mut drawn = vec![false; view.submeshes.len()];
    for unit in &view.units {
        let (rgb, mut alpha) = match unit.color.and_then(|c| m.colors.get(c)) {
            Some(c) => (
                c.rgb.sample(&vis_time, gs).unwrap_or([1.0; 3]),
                c.alpha.sample(&vis_time, gs).unwrap_or(1.0),
            ),
            None => ([1.0; 3], 1.0),
        };
        if let Some(t) = unit.transparency.and_then(|t| m.transparency.get(t)) {
            alpha *= t.sample(&vis_time, gs).unwrap_or(1.0);
        }
        // Opacity 0 hides a batch; only the first visible layer of a submesh is drawn.
        if alpha <= HIDDEN_ALPHA || drawn[unit.submesh] {
            continue;
        }
        drawn[unit.submesh] = true;
        let mut blend = blend_of(unit.render_flags.1);
        if alpha < 0.99 && matches!(blend, Blend::Opaque | Blend::Cutout) {
            blend = Blend::Alpha;
        }
        let color = rgb.map(|c| (c.clamp(0.0, 2.0) * 128.0).round().min(255.0) as u8);
        let uv_anim = texture_transform(m, unit, &vis_time);
        let sm = &view.submeshes[unit.submesh];
        let first = sm.index_start as usize / 3;
        let count = sm.index_count as usize / 3;
        for tri in view.triangles.iter().skip(first).take(count) {
            let texture = match unit.texture {
                Some(t) => {
                    let uv = |k: usize| {
                        let uv = m.vertices[tri[k] as usize].uv;
                        uv_anim.as_ref().map_or(uv, |a| a.apply(uv))
                    };
                    FaceTexture::Image {
                        texture: t,
                        uv: [uv(0), uv(1), uv(2), uv(2)],
                    }
                }
                None => FaceTexture::None,
            };
            faces.push(Face {
                vertices: [tri[0], tri[1], tri[2], tri[2]],
                corners: 3,
                colors: [color; 4],
                texture,
                blend,
                two_sided: unit.render_flags.0 & RENDER_TWO_SIDED != 0,
            });
        }
    }
    PosedMesh {
        vertices,
        faces,
        textures: m
            .textures
            .iter()
            .map(|t| t.texture.clone())
            .collect::<Vec<Texture>>(),
        vram_images: Vec::new(),
        shading: Shading::Lit,
    }
}

#[cfg(test)]
mod tests {
    use super::super::writer::SynthVertex;
    use super::super::writer::{SynthBatch, SynthBone, SynthModel, SynthSequence, SynthTrack};
    use crate::formats::{blp, LoadOptions};
    use crate::scene::{Model, PoseRequest};

    /// Through a shared memo, every bone's transform is the one its own walk gives, bit for
    /// bit: in a tree of moving bones with two roots, and with bones whose parents loop (the
    /// loader refuses such files; the walk still stops where there are no more bones).
    #[test]
    fn bones_through_a_shared_memo_equal_their_own_walk() {
        let moving = |k: i16| SynthTrack {
            interpolation: 1,
            global_sequence: -1,
            ranges: vec![(0, 1)],
            times: vec![0, 1000],
            values: vec![
                [0.0, 0.1 * f32::from(k), 0.0],
                [0.3, 0.0, -0.2 * f32::from(k)],
            ],
        };
        // 0 root; 1..=5 a chain; 6, 7 under 2; 9 under 8 (made a loop below); 10 under 8;
        // 11 a second root.
        let parents = [-1, 0, 1, 2, 3, 4, 2, 6, 0, 8, 8, -1];
        let bones = (parents.iter().enumerate())
            .map(|(k, &parent)| SynthBone {
                parent,
                pivot: [0.1 * k as f32, 0.0, 0.05],
                translation: if k % 3 == 0 {
                    SynthTrack::default()
                } else {
                    moving(k as i16)
                },
                ..SynthBone::default()
            })
            .collect();
        let synth = SynthModel {
            version: 256,
            name: "Bones".into(),
            sequences: vec![SynthSequence {
                start_ms: 0,
                end_ms: 1000,
                ..SynthSequence::default()
            }],
            bones,
            ..SynthModel::default()
        };
        let path = std::env::temp_dir().join("psxrender-m2-bone-memo.m2");
        let mut m = super::super::load(&path, &synth.write(), &LoadOptions::default()).unwrap();
        assert_eq!(m.bones.len(), parents.len());
        let memo = super::BoneMemo::default();
        for seconds in [0.0f32, 0.25, 0.7, 1.3, -1.0, -2.0] {
            if seconds < 0.0 {
                // 8 ↔ 9.
                m.bones[8].parent = Some(9);
            }
            let seconds = seconds.abs();
            let time = super::time_at(&m, Some(0), seconds);
            // In an order that meets kept parents, children first and last.
            for b in [5, 3, 7, 0, 10, 9, 8, 11, 1, 2, 4, 6] {
                let want = super::bone_world(&m, b, &time);
                assert_eq!(
                    super::bone_world_shared(&m, b, &time, &memo),
                    want,
                    "{b}, {seconds}"
                );
            }
        }
    }

    #[test]
    fn poses_share_the_model_textures_instead_of_copying_them() {
        let dir = std::env::temp_dir().join(format!("psxrender-m2-pose-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let tex = blp::write_palettized(2, 2, &[[1, 2, 3]], &[0; 4], &[255; 4], 0);
        std::fs::write(dir.join("tex.blp"), tex).unwrap();
        let corner = |position| SynthVertex {
            position,
            weights: [255, 0, 0, 0],
            ..SynthVertex::default()
        };
        let synth = SynthModel {
            version: 256,
            name: "Shared".into(),
            bones: vec![SynthBone {
                parent: -1,
                ..SynthBone::default()
            }],
            vertices: vec![
                corner([0.0, 0.0, 0.0]),
                corner([1.0, 0.0, 0.0]),
                corner([0.0, 1.0, 0.0]),
            ],
            batches: vec![SynthBatch {
                triangles: vec![[0, 1, 2]],
                texture: Some(0),
                ..SynthBatch::default()
            }],
            textures: vec![(0, "tex.blp".into())],
            ..SynthModel::default()
        };
        let path = dir.join("Shared.m2");
        let m = super::super::load(&path, &synth.write(), &LoadOptions::default()).unwrap();
        assert!(m.textures[0].resolved.is_some(), "{:?}", m.warnings());
        let a = m.pose(&PoseRequest::default());
        let b = m.pose(&PoseRequest {
            frame: 15,
            ..PoseRequest::default()
        });
        // The same pixels, not copies: a texture may be 256 MiB and every frame poses the model.
        let pixels = |p: &crate::scene::PosedMesh| p.textures[0].image.pixels.as_ptr();
        assert!(std::ptr::eq(pixels(&a), pixels(&b)));
        assert!(std::ptr::eq(
            pixels(&a),
            m.textures[0].texture.image.pixels.as_ptr()
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
