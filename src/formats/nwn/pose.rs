//! Posing: frame → controller values at frame/30 s (own animations and the supermodel
//! chain's, matched to nodes by name) → node world matrices → skinned vertices → faces with
//! texture, colour and blend, converted to the scene convention ([`super::to_scene`]).

use super::anim::{self, Affine, Trs};
use super::mdl::{self, ControllerType, NodeKind};
use super::{textures, to_scene, NWNModel};
use crate::scene::{Blend, Face, FaceTexture, PoseRequest, PosedMesh, Shading, Texture, Vertex};

/// Seconds of animation time, wrapped into `[0, length)`.
pub(super) fn wrap_time(t: f32, length: f32) -> f32 {
    if length > 0.0 && t.is_finite() {
        t.max(0.0) % length
    } else {
        0.0
    }
}

impl NWNModel {
    /// World transforms of the model nodes for `request`.
    pub fn node_world(&self, request: &PoseRequest) -> Vec<Affine> {
        let t = request.frame as f32 / 30.0;
        self.node_world_at(request.animation, t)
    }

    /// World transforms of the model nodes `time` seconds into `animation` (wrapped into its
    /// length; the rest pose for `None`).
    pub fn node_world_at(&self, animation: Option<usize>, time: f32) -> Vec<Affine> {
        let mut local: Vec<Trs> = self.rest.clone();
        if let Some(k) = animation.and_then(|i| self.keyed(i)) {
            let t = wrap_time(time, k.playable.animation.length);
            for (trs, m) in local.iter_mut().zip(k.node_map) {
                if let Some(an) = m.and_then(|i| k.nodes.get(i)) {
                    trs.apply(an, t, self.mdl.animation_scale);
                }
            }
        }
        let local: Vec<Affine> = local.iter().map(Trs::affine).collect();
        anim::world(&self.mdl.nodes, &local)
    }

    /// Node `i`'s local transform `time` seconds into `animation` (the rest pose for `None`).
    fn local_at(&self, animation: Option<usize>, time: f32, i: usize) -> Affine {
        let mut trs = self.rest[i];
        if let Some(k) = animation.and_then(|a| self.keyed(a)) {
            let t = wrap_time(time, k.playable.animation.length);
            if let Some(an) = k.node_for(i) {
                trs.apply(an, t, self.mdl.animation_scale);
            }
        }
        trs.affine()
    }

    /// [`NWNModel::node_world_at`] of node `node` alone: only its chain of parents is posed,
    /// the same products in the same order, so the same transform bit for bit. An emitter
    /// asks for its node's transform at every simulation step; `memo` keeps the transforms
    /// of the moment asked last, so emitters stepping together share their parents'.
    pub fn node_world_one(
        &self,
        memo: &PoseMemo,
        animation: Option<usize>,
        time: f32,
        node: usize,
    ) -> Affine {
        let mut kept = memo.at((animation, time.to_bits()), self.mdl.nodes.len());
        // Up the chain (as `anim::world` links it: a parent comes before its child) to the
        // first node already posed at this moment, or the root; then down, keeping each.
        let mut chain = Vec::new();
        let mut i = node;
        let mut above = loop {
            if let Some(w) = kept.get(i) {
                break Some(w);
            }
            chain.push(i);
            match self.mdl.nodes[i].parent.filter(|&p| p < i) {
                Some(p) => i = p,
                None => break None,
            }
        };
        for &c in chain.iter().rev() {
            let local = self.local_at(animation, time, c);
            let w = above.map_or(local, |a| a.mul(&local));
            kept.keep(c, w);
            above = Some(w);
        }
        above.expect("the node itself, posed or kept")
    }
}

/// Node transforms of the moment last asked for ([`NWNModel::node_world_one`]): a moment is an
/// animation and a time.
pub type PoseMemo = crate::scene::MomentMemo<(Option<usize>, u32), Affine>;

/// The mesh of `n` if it is drawn (render flag set, not a walkmesh, has faces).
pub(super) fn drawn_mesh(n: &mdl::Node) -> Option<&mdl::Mesh> {
    n.mesh
        .as_ref()
        .filter(|m| m.render && n.kind != NodeKind::Aabb && !m.faces.is_empty())
}

fn blend_for(node: &mdl::Node, mesh: &mdl::Mesh, tex: Option<&textures::Resolved>) -> Blend {
    let alpha = node
        .controller(ControllerType::ALPHA)
        .map(|c| c.row(0)[0])
        .unwrap_or(1.0);
    if alpha < 0.999 {
        return Blend::Alpha;
    }
    let Some(t) = tex else { return Blend::Opaque };
    if t.txi.contains("blending additive") {
        return Blend::Additive;
    }
    // An environment/bump map sidecar means the alpha channel is a mask, not transparency.
    if t.txi.contains("envmaptexture") || t.txi.contains("bumpmaptexture") || t.path.is_none() {
        return Blend::Opaque;
    }
    // Texture alpha is transparency only on meshes flagged with a transparency hint: creature
    // textures (c_aribeth's DDS: 70 % of texels) carry a reflection mask there.
    if mesh.transparency_hint != 0 && t.translucent {
        Blend::Alpha
    } else {
        Blend::Opaque
    }
}

fn normalized(v: [f32; 3]) -> [f32; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if n > 1e-12 && n.is_finite() {
        v.map(|x| x / n)
    } else {
        [0.0; 3]
    }
}

pub(super) fn pose(model: &NWNModel, request: &PoseRequest) -> PosedMesh {
    let world = model.node_world(request);
    let sways = super::dangly::sways(model, request.animation, request.frame as f32 / 30.0);
    let mut out = PosedMesh {
        shading: Shading::Lit,
        textures: model
            .textures
            .iter()
            .map(|t| Texture {
                name: t.name.clone(),
                image: t.image.clone(),
            })
            .collect(),
        ..PosedMesh::default()
    };
    for (i, node) in model.mdl.nodes.iter().enumerate() {
        let Some(mesh) = drawn_mesh(node) else {
            continue;
        };
        let base = out.vertices.len() as u32;
        let skinned = node.kind == NodeKind::Skin && mesh.skin.len() == mesh.vertices.len();
        let sway = sways.iter().find(|s| s.0 == i).map(|s| s.1);
        let constraints: &[f32] = match &node.detail {
            mdl::NodeDetail::Dangly { weights, .. } => weights,
            _ => &[],
        };
        let mesh_bind = model.bind_world[i];
        let bone_mats: Vec<(usize, Affine)> = if skinned {
            let mut bones: Vec<usize> = mesh.skin.iter().flatten().map(|l| l.0).collect();
            bones.sort_unstable();
            bones.dedup();
            bones
                .into_iter()
                .map(|b| {
                    (
                        b,
                        world[b].mul(&model.bind_world[b].inverse()).mul(&mesh_bind),
                    )
                })
                .collect()
        } else {
            Vec::new()
        };
        for (v, p) in mesh.vertices.iter().enumerate() {
            let m = if skinned {
                // Weighted sum of bone matrices; weight missing up to 1 stays at mesh bind.
                let mut acc = Affine::ZERO;
                let mut total = 0.0;
                for &(b, w) in &mesh.skin[v] {
                    if let Ok(k) = bone_mats.binary_search_by_key(&b, |x| x.0) {
                        acc.add_weighted(&bone_mats[k].1, w);
                        total += w;
                    }
                }
                if total < 1.0 {
                    acc.add_weighted(&mesh_bind, 1.0 - total);
                }
                acc
            } else {
                world[i]
            };
            let n = mesh.normals.get(v).copied().unwrap_or([0.0; 3]);
            let mut world_p = m.apply(*p);
            if let Some(o) = sway {
                let w = constraints.get(v).copied().unwrap_or(0.0);
                let w = if w.is_finite() {
                    w.clamp(0.0, 255.0) / 255.0
                } else {
                    0.0
                };
                for (c, d) in world_p.iter_mut().zip(o) {
                    *c += d * w;
                }
            }
            out.vertices.push(Vertex {
                position: to_scene(world_p),
                normal: to_scene(normalized(m.apply_vector(n))),
            });
        }
        let tex = model.node_texture[i].filter(|_| !mesh.uvs.is_empty());
        let blend = blend_for(node, mesh, tex.map(|t| &model.textures[t]));
        let color = mesh
            .diffuse
            .map(|c| (c.clamp(0.0, 2.0) * 128.0).min(255.0) as u8);
        for f in &mesh.faces {
            let texture = match tex {
                Some(t) => {
                    let mut uv = [[0.0; 2]; 4];
                    for (corner, &ti) in uv.iter_mut().zip(&f.t) {
                        let [u, v] = mesh.uvs.get(ti as usize).copied().unwrap_or([0.0; 2]);
                        *corner = [u, 1.0 - v];
                    }
                    FaceTexture::Image { texture: t, uv }
                }
                None => FaceTexture::None,
            };
            let colors = if tex.is_some() {
                [[128; 3]; 4]
            } else {
                [color; 4]
            };
            out.faces.push(Face {
                vertices: [base + f.v[0], base + f.v[1], base + f.v[2], 0],
                corners: 3,
                colors,
                texture,
                blend,
                two_sided: false,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::writer::{build, sample_model};
    use crate::formats::LoadOptions;
    use crate::scene::{Model, PoseRequest};

    /// A `side`² TGA of one colour.
    fn tga(side: u32) -> Vec<u8> {
        tga_with_alpha(side, 255)
    }

    /// A `side`² TGA of one colour, its last texel's alpha `alpha`.
    fn tga_with_alpha(side: u32, alpha: u8) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut img = image::RgbaImage::from_pixel(side, side, image::Rgba([1, 2, 3, 255]));
        img.put_pixel(side - 1, side - 1, image::Rgba([1, 2, 3, alpha]));
        img.write_to(&mut out, image::ImageFormat::Tga).unwrap();
        out.into_inner()
    }

    /// Texture alpha makes a mesh translucent only under a transparency hint, and only when
    /// some texel's alpha is below 255 (the last one here, which a scan must reach).
    #[test]
    fn texture_alpha_blends_only_hinted_meshes_with_a_translucent_texel() {
        use crate::scene::Blend;
        let dir = std::env::temp_dir().join(format!("psxrender-nwn-blend-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("synth.mdl");
        let data = build(&sample_model());
        for (alpha, hint, want) in [
            (255, 1, Blend::Opaque),
            (254, 0, Blend::Opaque),
            (254, 1, Blend::Alpha),
        ] {
            std::fs::write(dir.join("tex.tga"), tga_with_alpha(8, alpha)).unwrap();
            let mut m = super::super::load(&path, &data, &LoadOptions::default()).unwrap();
            assert_eq!(m.textures[0].translucent, alpha < 255);
            for n in &mut m.mdl.nodes {
                if let Some(mesh) = &mut n.mesh {
                    mesh.transparency_hint = hint;
                }
            }
            let pose = m.pose(&PoseRequest::default());
            assert!(!pose.faces.is_empty());
            for f in &pose.faces {
                assert_eq!(f.blend, want, "alpha {alpha}, hint {hint}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// One node's transform equals the whole pose's, bit for bit, for every node, animation
    /// and time.
    #[test]
    fn one_node_is_posed_as_the_whole_model_poses_it() {
        let data = build(&sample_model());
        let path = std::env::temp_dir().join("psxrender-nwn-one-node.mdl");
        let m = super::super::load(&path, &data, &LoadOptions::default()).unwrap();
        assert!(m.mdl.nodes.len() >= 3 && !m.animations.is_empty());
        let memo = super::PoseMemo::default();
        for animation in [None, Some(0)] {
            for time in [0.0, 0.25, 0.6, 1.7] {
                let all = m.node_world_at(animation, time);
                for (i, w) in all.iter().enumerate() {
                    // Alone, and with the memo holding the moment's other nodes.
                    let alone = m.node_world_one(&super::PoseMemo::default(), animation, time, i);
                    assert_eq!(alone, *w, "{i} at {time}");
                    assert_eq!(
                        m.node_world_one(&memo, animation, time, i),
                        *w,
                        "{i} at {time}"
                    );
                }
            }
        }
    }

    #[test]
    fn poses_share_the_model_textures_instead_of_copying_them() {
        let dir = std::env::temp_dir().join(format!("psxrender-nwn-pose-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("tex.tga"), tga(8)).unwrap();
        let path = dir.join("synth.mdl");
        let data = build(&sample_model());
        let m = super::super::load(&path, &data, &LoadOptions::default()).unwrap();
        assert_eq!(m.textures[0].path.as_deref(), Some(&*dir.join("tex.tga")));
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
            m.textures[0].image.pixels.as_ptr()
        ));
        assert_eq!(a.textures[0].image.width, 8);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
