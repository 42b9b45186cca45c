//! Mesh particles (NWN chunk emitters): a small model drawn at each live particle instead of
//! a quad.
//!
//! Placement is rollnw's (`lib/nw/render/viewer/scene_particles.cpp`, `particle_mesh_root`):
//! the model, in its own rest pose, scaled uniformly by the mean of the particle's width and
//! height (each at least 0.001), turned about the world's up axis by the particle's rotation,
//! and moved to the particle's position. Nothing else of the particle reaches the faces:
//! rollnw draws the model in its own materials, so the emitter's colour, opacity, blend and
//! texture change nothing. The faces then go through the same path as the model's own mesh.

use super::sprites::size_now;
use super::{EmitterDef, Snapshot};
use crate::math::{add3, scale3};
use crate::scene::{Blend, EffectMesh, FaceTexture};

/// Most faces mesh particles add to one frame: a whole particle's model is left out when it
/// would pass this, so a frame's cost stays bounded whatever the chunk model and the pools hold
/// (the PS1 games this stands for had a few hundred polygons a frame for effects; this is
/// far above any shipped chunk emitter: 128 particles of a 64-face rock).
pub const MESH_FACE_BUDGET: usize = 8192;

/// The uniform scale of a particle `size` (width, height) wide: their mean, each at least
/// 0.001, as rollnw's `particle_mesh_root` takes it.
pub fn scale([w, h]: [f32; 2]) -> f32 {
    let floor = |v: f32| v.max(0.001);
    floor(0.5 * (floor(w) + floor(h)))
}

/// `v` turned by `angle` radians about scene +Y, which is NWN's up (+Z) turned the same way:
/// the NWN → scene conversion is a proper rotation.
fn turn_y(v: [f32; 3], (s, c): (f32, f32)) -> [f32; 3] {
    [v[0] * c + v[2] * s, v[1], v[2] * c - v[0] * s]
}

/// Appends `model` placed at each of `snap`'s particles to `out`, while the frame's
/// [`MESH_FACE_BUDGET`] allows. A particle whose position, size or rotation is not finite is
/// not drawn (rollnw drops it too); a face indexing past `model`'s vertices stays invalid for
/// the renderer to count.
pub fn place(def: &EmitterDef, snap: &Snapshot, model: &EffectMesh, out: &mut EffectMesh) {
    for p in &snap.particles {
        if out.faces.len() + model.faces.len() > MESH_FACE_BUDGET {
            return;
        }
        let centre = snap.world_position(def, p);
        let Some(size) = size_now(def, p) else {
            continue;
        };
        let angle = p.angle + p.spin * p.age;
        let finite = centre.iter().chain(&size).all(|v| v.is_finite()) && angle.is_finite();
        if !finite {
            continue;
        }
        let (k, sc) = (scale(size), crate::math::sin_cos(angle));
        let placed = model.vertices.iter().map(|v| crate::scene::Vertex {
            position: add3(centre, turn_y(scale3(v.position, k), sc)),
            normal: turn_y(v.normal, sc),
        });
        let into = (&mut out.vertices, &mut out.faces);
        crate::scene::append_faces(into, placed, &model.faces);
    }
}

/// Adds every (texture, blend) `model`'s faces draw with to `uses`, once each.
pub fn uses(model: &EffectMesh, uses: &mut Vec<(usize, Blend)>) {
    for f in &model.faces {
        if let FaceTexture::Image { texture, .. } = f.texture {
            if !uses.contains(&(texture, f.blend)) {
                uses.push((texture, f.blend));
            }
        }
    }
}
