//! What a model carries beside its mesh: effect sprites (the particles and ribbon segments its
//! emitters produce for one frame), its own cameras and its lights.
//!
//! Sprites are handed to the renderer beside the mesh. Each is a textured quad whose corners are already in
//! model space (camera-facing ones were turned toward [`super::PoseRequest::camera`]); the
//! renderer projects them through the GTE like any quad, but never lights or culls them.
//! Mesh particles (NWN chunk emitters) are faces instead ([`EffectMesh`]), drawn like the
//! model's own.

use super::{Blend, Face, Vertex};

/// One textured quad.
#[derive(Clone, Debug, PartialEq)]
pub struct Sprite {
    /// Corners in model space, in PS1 quad order (0,1,2 then 1,2,3: top-left, top-right,
    /// bottom-left, bottom-right).
    pub corners: [[f32; 3]; 4],
    /// Texture coordinates per corner, 0..1 across the image (top-left origin).
    pub uv: [[f32; 2]; 4],
    /// Colour, 128 = texture unchanged (PS1 modulation 1.0); additive sprites carry their
    /// opacity folded in.
    pub color: [u8; 3],
    /// Index into [`super::PosedMesh::textures`]; `None` = untextured.
    pub texture: Option<usize>,
    /// How it blends.
    pub blend: Blend,
}

/// What a model's effects add to one posed frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Effects {
    /// Sprites alive this frame, in drawing order of their emitters.
    pub sprites: Vec<Sprite>,
    /// Every (texture, blend) an emitter may draw with, whether or not a particle is alive
    /// this frame: the renderer places these textures up front.
    pub uses: Vec<(usize, Blend)>,
    /// The emitters' own positions, added to the framing so auto-framing and the model scale
    /// hold where effects start; their particles may leave the frame (framing them would shrink
    /// a bone pile with a smoke plume to a speck, and make `--no-effects` another picture).
    pub reach: Vec<[f32; 3]>,
    /// Faces of mesh particles alive this frame (their [`uses`](Effects::uses) listed too).
    pub mesh: EffectMesh,
}

/// Faces effects add to the model's own, in model space: the renderer draws them as it draws
/// the posed mesh (lit, back faces culled, through the ordering table), after the mesh's faces.
/// Texture indices are into the same request's [`super::PosedMesh::textures`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EffectMesh {
    /// Vertices the faces index.
    pub vertices: Vec<Vertex>,
    /// Faces, indexing [`EffectMesh::vertices`].
    pub faces: Vec<Face>,
}

/// Adds `new_vertices` and `new_faces` (which index `new_vertices`) after `vertices` and
/// `faces`, the indices moved past the vertices already there. An index past `new_vertices`
/// becomes `u32::MAX`, so it stays invalid (the renderer counts such faces) instead of
/// reaching another part's vertices.
pub fn append_faces(
    (vertices, faces): (&mut Vec<Vertex>, &mut Vec<Face>),
    new_vertices: impl IntoIterator<Item = Vertex>,
    new_faces: &[Face],
) {
    let base = vertices.len();
    vertices.extend(new_vertices);
    let count = (vertices.len() - base) as u32;
    faces.extend(new_faces.iter().map(|f| {
        let mut face = f.clone();
        face.vertices = f
            .vertices
            .map(|i| if i < count { base as u32 + i } else { u32::MAX });
        face
    }));
}

/// A camera a model carries (M2 portrait cameras), at one frame, in scene space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelCamera {
    /// Where it is.
    pub position: [f32; 3],
    /// What it looks at.
    pub target: [f32; 3],
    /// Horizontal field of view, degrees, for a 4:3 screen.
    pub fov: f32,
}

/// One light a model carries, at one frame, in scene space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelLight {
    /// Where it is.
    pub position: [f32; 3],
    /// Colour × intensity, 1.0 = full. Black means a placeholder the game colours from its
    /// scene (NWN tile lights take the area's light colours): the renderer gives it its
    /// default light level.
    pub color: [f32; 3],
}

/// The lights a model carries: the renderer lights it with these instead of its default rig
/// (`--lights model`, the default when a model has any).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelLights {
    /// Point lights, strongest first (the GTE takes three, as directions from the model's
    /// centre).
    pub lights: Vec<ModelLight>,
    /// Ambient colour (the GTE's background colour), 1.0 = full; `None` when the model has
    /// no ambient light of its own (the renderer keeps its default ambient).
    pub ambient: Option<[f32; 3]>,
}
