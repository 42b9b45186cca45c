//! Posing: polygons become scene faces once, at load ([`FF9Model::build_faces`]: corner order,
//! texture words, blend), since they do not change with the frame; each frame then places every
//! vertex by its bone's world transform (the animation's root and Euler angles, [`super::anim`])
//! and averages face normals into vertex normals.

use super::anim::{self, Xform};
use super::texture::{self, Resolved};
use super::{FF9Model, Tim};
use crate::math;
use crate::scene::{Blend, Face, FaceTexture, PoseRequest, PosedMesh, Shading, Vertex, VramImage};

impl FF9Model {
    /// Builds the scene faces and the VRAM uploads from the polygons and TIMs (once, at load).
    pub(super) fn build_faces(&mut self) {
        let mut vertex_bones = Vec::new();
        let mut faces = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        let mut need_fallback = false;
        let tims: Vec<&Tim> = self.tims.iter().map(|(_, t)| t).collect();
        let cx = texture::Context {
            kind: self.kind.0,
            materials: self.materials.as_ref(),
            tims: &tims,
            uploads: &self.uploads,
        };
        for g in &self.mesh.groups {
            let base = vertex_bones.len() as u32;
            vertex_bones.extend(
                g.vertices
                    .iter()
                    .map(|v| (usize::from(v.bone), v.position.map(f32::from))),
            );
            for p in &g.polygons {
                // FF9 front faces wind the other way from the scene's counter-clockwise
                // convention (the public importer reverses them too): swap corners 1 and 2,
                // which keeps a quad in "Z" order.
                let order: [usize; 4] = [0, 2, 1, 3];
                let uvs =
                    order.map(|i| g.uvs.get(usize::from(p.uvs[i])).copied().unwrap_or([0; 2]));
                let texture = match texture::resolve(&cx, p, uvs) {
                    Resolved::Vram { tpage, clut, uv } => {
                        let tpage = if p.semi_transparent() {
                            tpage | (p.flags as u16 & 0x60)
                        } else {
                            tpage
                        };
                        FaceTexture::Vram { tpage, clut, uv }
                    }
                    Resolved::Missing(note) => {
                        need_fallback = true;
                        if !notes.contains(&note) {
                            notes.push(note);
                        }
                        FaceTexture::Vram {
                            tpage: texture::FALLBACK_TPAGE,
                            clut: 0,
                            uv: uvs.map(|[u, v]| [48 + u / 16, 240 + v / 16]),
                        }
                    }
                    Resolved::Flat(note) => {
                        if !notes.contains(&note) {
                            notes.push(note);
                        }
                        FaceTexture::None
                    }
                };
                let blend = match (p.semi_transparent(), (p.flags >> 5) & 3) {
                    (false, _) => Blend::Opaque,
                    (true, 0) => Blend::Alpha,
                    (true, 1) => Blend::Additive,
                    (true, 2) => Blend::Subtractive,
                    (true, _) => Blend::AddQuarter,
                };
                faces.push(Face {
                    vertices: order.map(|i| base + u32::from(p.vertices[i])),
                    corners: p.corners,
                    colors: order.map(|i| p.colors[i]),
                    texture,
                    blend,
                    two_sided: false,
                });
            }
        }
        let mut vram: Vec<VramImage> = Vec::new();
        for (_, t) in &self.tims {
            vram.extend(t.clut.iter().cloned());
            vram.push(t.image.clone());
        }
        if need_fallback {
            vram.push(texture::checkerboard());
        }
        self.warnings.extend(notes);
        self.vertex_bones = vertex_bones;
        self.faces = faces;
        self.vram = vram;
    }

    /// Bone world transforms for a request (PS1 axes).
    fn worlds(&self, request: &PoseRequest) -> Vec<Xform> {
        // An index past the list falls back to the default animation, like no choice at all.
        let anim = request
            .animation
            .and_then(|i| self.animations.get(i))
            .or_else(|| self.default_animation.and_then(|i| self.animations.get(i)));
        match anim {
            Some((_, a)) => {
                let f = request.frame as usize % a.frames();
                anim::bone_worlds(&self.mesh.bones, Some(a.root[f]), &a.angles[f])
            }
            None => anim::bone_worlds(&self.mesh.bones, None, &[]),
        }
    }
}

/// PS1 model space (-Y up, front toward -Z) to the scene's (+Y up, front +Z): a half turn about
/// X, which keeps handedness.
fn to_scene(p: [f32; 3]) -> [f32; 3] {
    [p[0], -p[1], -p[2]]
}

pub(super) fn pose(model: &FF9Model, request: &PoseRequest) -> PosedMesh {
    let worlds = model.worlds(request);
    let mut vertices: Vec<Vertex> = model
        .vertex_bones
        .iter()
        .map(|&(b, local)| Vertex {
            position: to_scene(worlds[b.min(worlds.len() - 1)].apply(local)),
            normal: [0.0; 3],
        })
        .collect();
    for f in &model.faces {
        let tris: &[[usize; 3]] = if f.corners == 4 {
            &[[0, 1, 2], [1, 3, 2]]
        } else {
            &[[0, 1, 2]]
        };
        for t in tris {
            let [a, b, c] = t.map(|i| f.vertices[i] as usize);
            let n = math::cross(
                math::sub3(vertices[b].position, vertices[a].position),
                math::sub3(vertices[c].position, vertices[a].position),
            );
            for i in [a, b, c] {
                for (acc, nk) in vertices[i].normal.iter_mut().zip(n) {
                    *acc += nk;
                }
            }
        }
    }
    for v in &mut vertices {
        let len = v.normal.iter().map(|c| c * c).sum::<f32>().sqrt();
        if len > 0.0 {
            v.normal = v.normal.map(|c| c / len);
        }
    }
    PosedMesh {
        vertices,
        faces: model.faces.clone(),
        textures: Vec::new(),
        vram_images: model.vram.clone(),
        shading: Shading::VertexColors,
    }
}
