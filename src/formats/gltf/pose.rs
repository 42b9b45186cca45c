//! Posing: animation time → node TRS → world matrices → morph targets and skinning on the CPU →
//! faces with colours, blend and texture.
//!
//! Sampling (glTF 2.0 §3.11): before the first key the first value holds, after the last the
//! last; STEP holds a key's value until the next, LINEAR blends (slerp for rotations),
//! CUBICSPLINE is the cubic Hermite of the two keys' values and their stored tangents scaled by
//! the key interval. Skinning (§3.8.3): each joint's matrix is `world(joint) ·
//! inverseBind(joint)`, blended by the vertex's weights (normalised to sum 1); a skinned mesh
//! ignores its own node's transform. Normals go through the blended matrix's cofactor (its
//! inverse transpose up to scale), so non-uniform scale keeps them perpendicular; a transform
//! that mirrors (negative determinant) reverses the triangles' winding, as §3.7.2.1 asks.

use super::{AlphaMode, GltfModel, Interpolation, Material, Property, Trs};
use crate::math::{normalize3, normalize4, slerp, Affine};
use crate::scene::{Blend, Face, FaceTexture, PoseRequest, PosedMesh, Shading, Vertex};

/// Scene time of a request: frame N is `(N mod frames) / 30` s into the animation.
pub fn time_of(m: &GltfModel, request: &PoseRequest) -> Option<(usize, f32)> {
    let i = request.animation?;
    let a = m.animations.get(i)?;
    Some((i, (request.frame % a.frames()) as f32 / 30.0))
}

/// The value of `channel` at `t` (`width` floats).
pub fn sample(ch: &super::Channel, t: f32) -> Vec<f32> {
    let w = ch.width;
    let keys = ch.times.len();
    let cubic = ch.interpolation == Interpolation::CubicSpline;
    // Element e of key k: cubic keys hold (in-tangent, value, out-tangent).
    let elem = |k: usize, e: usize| -> &[f32] {
        let i = if cubic { 3 * k + e } else { k };
        ch.values.get(i * w..(i + 1) * w).unwrap_or(&[])
    };
    let value = |k: usize| elem(k, if cubic { 1 } else { 0 }).to_vec();
    let next = ch.times.partition_point(|&x| x <= t);
    if keys == 0 {
        return vec![0.0; w];
    }
    if next == 0 {
        return value(0);
    }
    if next >= keys {
        return value(keys - 1);
    }
    let (k, t0, t1) = (next - 1, ch.times[next - 1], ch.times[next]);
    let dt = t1 - t0;
    if dt.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || !dt.is_finite() {
        return value(k);
    }
    let s = ((t - t0) / dt).clamp(0.0, 1.0);
    let rotation = ch.property == Property::Rotation;
    match ch.interpolation {
        Interpolation::Step => value(k),
        Interpolation::Linear if rotation && w == 4 => {
            let a = value(k);
            let b = value(k + 1);
            slerp([a[0], a[1], a[2], a[3]], [b[0], b[1], b[2], b[3]], s).to_vec()
        }
        Interpolation::Linear => {
            let (a, b) = (value(k), value(k + 1));
            a.iter().zip(&b).map(|(x, y)| x + (y - x) * s).collect()
        }
        Interpolation::CubicSpline => {
            let (s2, s3) = (s * s, s * s * s);
            let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
            let h10 = s3 - 2.0 * s2 + s;
            let h01 = -2.0 * s3 + 3.0 * s2;
            let h11 = s3 - s2;
            let (v0, out0) = (elem(k, 1), elem(k, 2));
            let (v1, in1) = (elem(k + 1, 1), elem(k + 1, 0));
            let mut r: Vec<f32> = (0..w)
                .map(|i| {
                    let g = |s: &[f32]| s.get(i).copied().unwrap_or(0.0);
                    h00 * g(v0) + h10 * dt * g(out0) + h01 * g(v1) + h11 * dt * g(in1)
                })
                .collect();
            if rotation && w == 4 {
                r = normalize4([r[0], r[1], r[2], r[3]]).to_vec();
            }
            r
        }
    }
}

/// Node-local TRS and morph weights at the request's time.
fn locals(m: &GltfModel, time: Option<(usize, f32)>) -> (Vec<Trs>, Vec<Option<Vec<f32>>>) {
    let mut trs: Vec<Trs> = m.nodes.iter().map(|n| n.trs).collect();
    let mut weights: Vec<Option<Vec<f32>>> = vec![None; m.nodes.len()];
    if let Some((a, t)) = time {
        for ch in &m.animations[a].channels {
            let v = sample(ch, t);
            if !v.iter().all(|c| c.is_finite()) {
                continue;
            }
            let l = &mut trs[ch.node];
            match ch.property {
                Property::Translation => l.translation = [v[0], v[1], v[2]],
                Property::Rotation => l.rotation = normalize4([v[0], v[1], v[2], v[3]]),
                Property::Scale => l.scale = [v[0], v[1], v[2]],
                Property::Weights => weights[ch.node] = Some(v),
            }
        }
    }
    (trs, weights)
}

fn worlds(m: &GltfModel, trs: &[Trs]) -> Vec<Affine> {
    let mut world = vec![Affine::IDENTITY; m.nodes.len()];
    for &n in &m.order {
        let node = &m.nodes[n];
        let local = match node.matrix {
            Some(mx) if !node.animated => mx,
            _ => trs[n].matrix(),
        };
        world[n] = match node.parent {
            Some(p) => world[p].mul(&local),
            None => local,
        };
    }
    world
}

/// The 3×3 part's cofactor matrix times the sign of its determinant: transforms normals.
fn normal_matrix(a: &Affine) -> [[f32; 3]; 3] {
    let m = |r: usize, c: usize| a.0[r][c];
    let mut cof = [[0.0f32; 3]; 3];
    for (r, row) in cof.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
            let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
            *cell = m(r1, c1) * m(r2, c2) - m(r1, c2) * m(r2, c1);
        }
    }
    let det = m(0, 0) * cof[0][0] + m(0, 1) * cof[0][1] + m(0, 2) * cof[0][2];
    if det < 0.0 {
        for row in &mut cof {
            for c in row {
                *c = -*c;
            }
        }
    }
    cof
}

fn determinant(a: &Affine) -> f32 {
    let m = &a.0;
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

fn apply3(m: &[[f32; 3]; 3], v: [f32; 3]) -> [f32; 3] {
    std::array::from_fn(|i| m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2])
}

/// Weighted sum of matrices.
fn blend(mats: &[Affine], joints: [u16; 4], weights: [f32; 4]) -> Option<Affine> {
    let w: [f32; 4] = weights.map(|x| if x.is_finite() && x > 0.0 { x } else { 0.0 });
    let total: f32 = w.iter().sum();
    if total <= 0.0 {
        return None;
    }
    let mut out = Affine([[0.0; 4]; 3]);
    for k in 0..4 {
        if w[k] == 0.0 {
            continue;
        }
        let j = mats.get(usize::from(joints[k]))?;
        for (r, row) in out.0.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                *cell += j.0[r][c] * w[k] / total;
            }
        }
    }
    Some(out)
}

/// Linear to sRGB (IEC 61966-2-1).
pub fn srgb(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * crate::math::powf(c, 1.0 / 2.4) - 0.055
    }
}

/// The glTF default material: white, opaque, single-sided, untextured.
const DEFAULT_MATERIAL: Material = Material {
    name: None,
    base_color: [1.0; 4],
    texture: None,
    alpha: AlphaMode::Opaque,
    double_sided: false,
};

/// Poses the model.
pub fn pose(m: &GltfModel, request: &PoseRequest) -> PosedMesh {
    let time = time_of(m, request);
    let (trs, anim_weights) = locals(m, time);
    let world = worlds(m, &trs);
    let mut vertices: Vec<Vertex> = Vec::new();
    let mut faces: Vec<Face> = Vec::new();
    for inst in &m.instances {
        let mesh = &m.meshes[inst.mesh];
        let node = &m.nodes[inst.node];
        let joint_mats: Vec<Affine> = match inst.skin.and_then(|s| m.skins.get(s)) {
            Some(skin) => skin
                .joints
                .iter()
                .zip(&skin.inverse_bind)
                .map(|(&j, ib)| world[j].mul(ib))
                .collect(),
            None => Vec::new(),
        };
        let morph: &[f32] = anim_weights[inst.node]
            .as_deref()
            .or(node.weights.as_deref())
            .unwrap_or(&mesh.weights);
        let node_world = world[inst.node];
        let node_normal = normal_matrix(&node_world);
        let mirrored = determinant(&node_world) < 0.0;
        for prim in &mesh.primitives {
            let base = vertices.len() as u32;
            let skinned = inst.skin.is_some() && prim.joints.is_some() && prim.weights.is_some();
            for (i, &p0) in prim.positions.iter().enumerate() {
                let mut p = p0;
                let mut n = prim.normals.as_ref().map(|ns| ns[i]);
                for (k, t) in prim.targets.iter().enumerate() {
                    let w = morph.get(k).copied().unwrap_or(0.0);
                    if w == 0.0 {
                        continue;
                    }
                    if let Some(d) = t.positions.as_ref().map(|d| d[i]) {
                        for c in 0..3 {
                            p[c] += w * d[c];
                        }
                    }
                    if let (Some(nv), Some(d)) = (n.as_mut(), t.normals.as_ref().map(|d| d[i])) {
                        for c in 0..3 {
                            nv[c] += w * d[c];
                        }
                    }
                }
                let skin_mat = if skinned {
                    let (j, w) = (
                        prim.joints.as_ref().map_or([0; 4], |v| v[i]),
                        prim.weights.as_ref().map_or([0.0; 4], |v| v[i]),
                    );
                    blend(&joint_mats, j, w)
                } else {
                    None
                };
                let (pos, nrm) = match &skin_mat {
                    Some(sm) => (sm.point(p), n.map(|v| apply3(&normal_matrix(sm), v))),
                    None => (node_world.point(p), n.map(|v| apply3(&node_normal, v))),
                };
                vertices.push(Vertex {
                    position: pos.map(|c| if c.is_finite() { c } else { 0.0 }),
                    normal: nrm
                        .map(normalize3)
                        .filter(|v| v.iter().all(|c| c.is_finite()))
                        .unwrap_or([0.0; 3]),
                });
            }
            let mat = prim
                .material
                .and_then(|i| m.materials.get(i))
                .unwrap_or(&DEFAULT_MATERIAL);
            let variant = prim
                .material
                .and_then(|i| m.material_variant.get(i).copied().flatten())
                .filter(|_| prim.uvs.is_some());
            let flip = mirrored && !skinned;
            for tri in &prim.triangles {
                let corners = if flip { [tri[0], tri[2], tri[1]] } else { *tri };
                if let Some(face) = face(prim, mat, variant, corners, base) {
                    faces.push(face);
                }
            }
        }
    }
    PosedMesh {
        vertices,
        faces,
        textures: m.variants.iter().map(|v| v.texture.clone()).collect(),
        vram_images: Vec::new(),
        shading: Shading::Lit,
    }
}

/// One triangle's face: colours from the material factor and COLOR_0, blend from the alpha
/// mode, texture from the material's variant. `None` when alpha hides it.
fn face(
    prim: &super::Primitive,
    mat: &Material,
    variant: Option<usize>,
    tri: [u32; 3],
    base: u32,
) -> Option<Face> {
    let textured = variant.is_some();
    let scale = if textured { 128.0 } else { 255.0 };
    let mut colors = [[0u8; 3]; 4];
    let mut alpha = 0.0;
    for (k, &v) in tri.iter().enumerate() {
        let vc = prim
            .colors
            .as_ref()
            .and_then(|c| c.get(v as usize))
            .copied()
            .unwrap_or([1.0; 4]);
        colors[k] = std::array::from_fn(|c| {
            (srgb(mat.base_color[c] * vc[c]) * scale)
                .round()
                .clamp(0.0, 255.0) as u8
        });
        alpha += mat.base_color[3] * vc[3].clamp(0.0, 1.0) / 3.0;
    }
    colors[3] = colors[2];
    let blend = match (mat.alpha, textured) {
        (AlphaMode::Opaque, _) => Blend::Opaque,
        (AlphaMode::Mask(_), true) => Blend::Cutout,
        (AlphaMode::Mask(cut), false) if alpha < cut => return None,
        (AlphaMode::Mask(_), false) => Blend::Opaque,
        (AlphaMode::Blend, true) => Blend::Alpha,
        // The texture encoder's thresholds: below 16/255 clear, from 240/255 solid.
        (AlphaMode::Blend, false) if alpha < 16.0 / 255.0 => return None,
        (AlphaMode::Blend, false) if alpha >= 240.0 / 255.0 => Blend::Opaque,
        (AlphaMode::Blend, false) => Blend::Alpha,
    };
    let texture = match (variant, &prim.uvs) {
        (Some(t), Some(uvs)) => {
            let uv = |k: usize| uvs.get(tri[k] as usize).copied().unwrap_or([0.0; 2]);
            FaceTexture::Image {
                texture: t,
                uv: [uv(0), uv(1), uv(2), uv(2)],
            }
        }
        _ => FaceTexture::None,
    };
    Some(Face {
        vertices: [base + tri[0], base + tri[1], base + tri[2], base + tri[2]],
        corners: 3,
        colors,
        texture,
        blend,
        two_sided: mat.double_sided,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Channel, Interpolation, Property};
    use super::*;

    fn ch(interpolation: Interpolation, times: Vec<f32>, values: Vec<f32>) -> Channel {
        Channel {
            node: 0,
            property: Property::Translation,
            interpolation,
            times,
            values,
            width: 1,
        }
    }

    #[test]
    fn step_holds_and_linear_blends_and_ends_clamp() {
        let s = ch(Interpolation::Step, vec![0.0, 1.0], vec![2.0, 4.0]);
        assert_eq!(sample(&s, 0.99), vec![2.0]);
        assert_eq!(sample(&s, 1.0), vec![4.0]);
        let l = ch(Interpolation::Linear, vec![1.0, 2.0], vec![2.0, 4.0]);
        assert_eq!(sample(&l, 0.0), vec![2.0]);
        assert_eq!(sample(&l, 1.25), vec![2.5]);
        assert_eq!(sample(&l, 9.0), vec![4.0]);
    }

    #[test]
    fn cubic_spline_is_hermite_with_tangents_scaled_by_the_interval() {
        // Keys at 0 and 2: values 0 and 1, out-tangent of key 0 = 1, in-tangent of key 1 = 0.
        let c = ch(
            Interpolation::CubicSpline,
            vec![0.0, 2.0],
            vec![9.0, 0.0, 1.0, 0.0, 1.0, 9.0],
        );
        // s = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125; dt = 2.
        // 0.5·0 + 0.125·2·1 + 0.5·1 + (-0.125)·2·0 = 0.75.
        assert!((sample(&c, 1.0)[0] - 0.75).abs() < 1e-6);
        assert_eq!(sample(&c, 2.0), vec![1.0]);
    }

    #[test]
    fn normals_follow_the_inverse_transpose_and_mirrors_flip_nothing_twice() {
        let s = Affine::scale([2.0, 1.0, 1.0]);
        // A 45° normal in XY under x-stretch leans toward Y.
        let n = normalize3(apply3(&normal_matrix(&s), normalize3([1.0, 1.0, 0.0])));
        assert!(n[1] > n[0], "{n:?}");
        let mirror = Affine::scale([-1.0, 1.0, 1.0]);
        assert!(determinant(&mirror) < 0.0);
        assert_eq!(
            apply3(&normal_matrix(&mirror), [1.0, 0.0, 0.0]),
            [-1.0, 0.0, 0.0]
        );
    }

    #[test]
    fn srgb_encodes_linear_mid_grey_near_188() {
        assert!((srgb(0.5) * 255.0 - 188.0).abs() < 1.0);
        assert!((srgb(1.0) - 1.0).abs() < 1e-6);
        assert_eq!(srgb(0.0), 0.0);
    }
}
