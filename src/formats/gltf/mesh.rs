//! Meshes: each triangle primitive's vertex attributes (from accessors or a
//! KHR_draco_mesh_compression stream), its index list as triangles, its morph targets, and
//! smooth normals on request. Every attribute must have as many elements as POSITION.

use std::collections::HashMap;

use ::gltf::mesh::Mode;

use super::accessor::Reader;
use super::{
    draco, json_error, Budget, Material, Mesh, MorphTarget, Primitive, Topology, MAX_MORPH_TARGETS,
};
use crate::formats::error::Result;
use crate::math::{cross, normalize3};

/// What reading a mesh needs from the rest of the document.
pub(super) struct MeshContext<'a> {
    pub doc: &'a ::gltf::Document,
    pub reader: &'a Reader<'a>,
    pub materials: &'a [Material],
    /// `--smooth-normals`: compute normals for primitives without them.
    pub smooth_normals: bool,
}

/// The mesh's triangle primitives; points and lines are skipped with a warning.
pub(super) fn read_mesh(
    cx: &MeshContext,
    mesh: &::gltf::Mesh,
    warnings: &mut Vec<String>,
) -> Result<Mesh> {
    let m = mesh.index();
    let mut out = Mesh {
        name: mesh.name().map(str::to_string),
        weights: mesh.weights().map(<[f32]>::to_vec).unwrap_or_default(),
        ..Mesh::default()
    };
    for prim in mesh.primitives() {
        let path = format!("meshes[{m}].primitives[{}]", prim.index());
        let topology = match prim.mode() {
            Mode::Triangles => Topology::Triangles,
            Mode::TriangleStrip => Topology::Strip,
            Mode::TriangleFan => Topology::Fan,
            other => {
                warnings.push(format!(
                    "glTF {path}: mode {other:?} is not triangles, strip or fan; skipped"
                ));
                out.skipped += 1;
                continue;
            }
        };
        let input = PrimitiveInput::new(cx, prim, path);
        out.primitives.push(input.read(cx, topology, warnings)?);
    }
    Ok(out)
}

/// One primitive being read.
struct PrimitiveInput<'a> {
    prim: ::gltf::Primitive<'a>,
    /// Its JSON path, `meshes[M].primitives[P]`, for errors and warnings.
    path: String,
    /// The TEXCOORD set its material samples.
    uv_set: u32,
}

impl<'a> PrimitiveInput<'a> {
    fn new(cx: &MeshContext, prim: ::gltf::Primitive<'a>, path: String) -> Self {
        let uv_set = prim
            .material()
            .index()
            .and_then(|i| cx.materials.get(i))
            .and_then(|mt| mt.texture)
            .map_or(0, |t| t.1);
        PrimitiveInput { prim, path, uv_set }
    }

    fn attr(&self, name: &str) -> Option<::gltf::Accessor<'a>> {
        self.prim
            .attributes()
            .find(|(s, _)| s.to_string() == name)
            .map(|(_, a)| a)
    }

    /// Attributes, triangles and morph targets, then what the primitive lacks for its material
    /// and, on request, smooth normals.
    fn read(
        &self,
        cx: &MeshContext,
        topology: Topology,
        warnings: &mut Vec<String>,
    ) -> Result<Primitive> {
        let material = self.prim.material().index();
        let mut out = Primitive {
            topology: Some(topology),
            material,
            attributes: self.prim.attributes().map(|(s, _)| s.to_string()).collect(),
            ..Primitive::default()
        };
        if let Some(ext) = self.prim.extension_value("KHR_draco_mesh_compression") {
            self.read_draco(cx, ext, &mut out)?;
        } else {
            self.read_attributes(cx.reader, &mut out)?;
            self.read_indices(cx.reader, topology, &mut out)?;
            self.read_targets(cx.reader, &mut out)?;
        }
        let path = &self.path;
        if self.attr("JOINTS_1").is_some() {
            warnings.push(format!(
                "glTF {path}: JOINTS_1/WEIGHTS_1 are ignored (at most 4 joints per vertex)"
            ));
        }
        let textured = material
            .and_then(|i| cx.materials.get(i))
            .is_some_and(|mt| mt.texture.is_some());
        if textured && out.uvs.is_none() {
            warnings.push(format!(
                "glTF {path}: its material samples TEXCOORD_{}, which it lacks; drawn untextured",
                self.uv_set
            ));
        }
        if out.normals.is_none() && cx.smooth_normals {
            out.normals = Some(smooth_normals(&out.positions, &out.triangles));
            out.normals_computed = true;
        }
        Ok(out)
    }

    /// Geometry from a KHR_draco_mesh_compression stream: attributes of the wrong width are
    /// dropped; POSITION must be VEC3.
    fn read_draco(
        &self,
        cx: &MeshContext,
        ext: &serde_json::Value,
        out: &mut Primitive,
    ) -> Result<()> {
        let path = &self.path;
        let mut want = HashMap::new();
        for (s, a) in self.prim.attributes() {
            want.insert(
                s.to_string(),
                (a.dimensions().multiplicity(), a.normalized()),
            );
        }
        let d = draco::decode(cx.doc, cx.reader, path, ext, &want)?;
        let get = |name: &str| d.attributes.get(name);
        let vec3 = |v: &(usize, Vec<f64>)| -> Option<Vec<[f32; 3]>> {
            (v.0 == 3).then(|| {
                v.1.chunks_exact(3)
                    .map(|c| [c[0] as f32, c[1] as f32, c[2] as f32])
                    .collect()
            })
        };
        out.draco = true;
        out.positions = get("POSITION").and_then(vec3).ok_or_else(|| {
            json_error(
                format!("{path}.extensions"),
                "Draco stream lacks a VEC3 POSITION",
            )
        })?;
        out.normals = get("NORMAL").and_then(vec3);
        out.uvs = get(&format!("TEXCOORD_{}", self.uv_set))
            .filter(|v| v.0 == 2)
            .map(|v| {
                v.1.chunks_exact(2)
                    .map(|c| [c[0] as f32, c[1] as f32])
                    .collect()
            });
        out.colors = get("COLOR_0").filter(|v| v.0 == 3 || v.0 == 4).map(|v| {
            v.1.chunks_exact(v.0)
                .map(|c| std::array::from_fn(|i| c.get(i).map_or(1.0, |&x| x as f32)))
                .collect()
        });
        out.joints = get("JOINTS_0").filter(|v| v.0 == 4).map(|v| {
            v.1.chunks_exact(4)
                .map(|c| std::array::from_fn(|i| c[i].clamp(0.0, 65535.0) as u16))
                .collect()
        });
        out.weights = get("WEIGHTS_0").filter(|v| v.0 == 4).map(|v| {
            v.1.chunks_exact(4)
                .map(|c| std::array::from_fn(|i| c[i] as f32))
                .collect()
        });
        out.indexed = true;
        out.triangles = d.triangles;
        if d.points != out.positions.len() {
            return Err(json_error(path, "Draco attribute sizes disagree"));
        }
        Ok(())
    }

    /// An attribute (or morph target attribute, `name` then `targets[K].…`) must have
    /// `n` elements, as POSITION has.
    fn check_count(&self, name: &str, len: usize, n: usize) -> Result<()> {
        if len == n {
            Ok(())
        } else {
            Err(json_error(
                format!("{}.attributes.{name}", self.path),
                format!("{len} elements, but POSITION has {n}"),
            ))
        }
    }

    /// POSITION, then NORMAL, the material's TEXCOORD set, COLOR_0, JOINTS_0 (VEC4) and
    /// WEIGHTS_0 where present.
    fn read_attributes(&self, reader: &Reader, out: &mut Primitive) -> Result<()> {
        let path = &self.path;
        let pos = self
            .attr("POSITION")
            .ok_or_else(|| json_error(format!("{path}.attributes"), "no POSITION"))?;
        out.positions = reader.floats::<3>(&pos, "POSITION")?;
        let n = out.positions.len();
        if let Some(a) = self.attr("NORMAL") {
            let v = reader.floats::<3>(&a, "NORMAL")?;
            self.check_count("NORMAL", v.len(), n)?;
            out.normals = Some(v);
        }
        let uv_name = format!("TEXCOORD_{}", self.uv_set);
        if let Some(a) = self.attr(&uv_name) {
            let v = reader.floats::<2>(&a, &uv_name)?;
            self.check_count(&uv_name, v.len(), n)?;
            out.uvs = Some(v);
        }
        if let Some(a) = self.attr("COLOR_0") {
            let v = reader.floats_3_or_4(&a, "COLOR_0", 1.0)?;
            self.check_count("COLOR_0", v.len(), n)?;
            out.colors = Some(v);
        }
        if let Some(a) = self.attr("JOINTS_0") {
            let (v, w) = reader.uints(&a, "JOINTS_0")?;
            if w != 4 {
                return Err(json_error(
                    format!("{path}.attributes.JOINTS_0"),
                    "must be VEC4",
                ));
            }
            self.check_count("JOINTS_0", v.len() / 4, n)?;
            out.joints = Some(
                v.chunks_exact(4)
                    .map(|c| std::array::from_fn(|i| c[i].min(65535) as u16))
                    .collect(),
            );
        }
        if let Some(a) = self.attr("WEIGHTS_0") {
            let v = reader.floats::<4>(&a, "WEIGHTS_0")?;
            self.check_count("WEIGHTS_0", v.len(), n)?;
            out.weights = Some(v);
        }
        Ok(())
    }

    /// The index list (SCALAR, each below the vertex count; none: the vertices in order) as
    /// triangles of `topology`.
    fn read_indices(&self, reader: &Reader, topology: Topology, out: &mut Primitive) -> Result<()> {
        let path = &self.path;
        let n = out.positions.len();
        let indices = match self.prim.indices() {
            Some(acc) => {
                let (v, w) = reader.uints(&acc, "indices")?;
                if w != 1 {
                    return Err(json_error(format!("{path}.indices"), "must be SCALAR"));
                }
                if let Some(bad) = v.iter().find(|&&i| i as usize >= n) {
                    return Err(json_error(
                        format!("{path}.indices"),
                        format!("index {bad} is past the {n} vertices"),
                    ));
                }
                out.indexed = true;
                v
            }
            None => (0..n as u32).collect(),
        };
        charge(reader.budget, indices.len() as u64 * 12, path)?;
        out.triangles = triangles(topology, &indices);
        Ok(())
    }

    /// Morph targets (at most [`MAX_MORPH_TARGETS`]): POSITION and NORMAL offsets.
    fn read_targets(&self, reader: &Reader, out: &mut Primitive) -> Result<()> {
        let targets = self.prim.morph_targets();
        if targets.len() as u64 > MAX_MORPH_TARGETS {
            return Err(json_error(
                format!("{}.targets", self.path),
                format!(
                    "{} morph targets, at most {MAX_MORPH_TARGETS}",
                    targets.len()
                ),
            ));
        }
        let n = out.positions.len();
        for (k, t) in targets.enumerate() {
            let mut mt = MorphTarget::default();
            if let Some(a) = t.positions() {
                let v = reader.floats::<3>(&a, "morph POSITION")?;
                self.check_count(&format!("targets[{k}].POSITION"), v.len(), n)?;
                mt.positions = Some(v);
            }
            if let Some(a) = t.normals() {
                let v = reader.floats::<3>(&a, "morph NORMAL")?;
                self.check_count(&format!("targets[{k}].NORMAL"), v.len(), n)?;
                mt.normals = Some(v);
            }
            out.targets.push(mt);
        }
        Ok(())
    }
}

/// Charges `bytes` against the budget, blaming `path`.
fn charge(budget: &Budget, bytes: u64, path: &str) -> Result<()> {
    budget.charge_for(path, bytes, "decoded data (bytes)")
}

/// Triangles of a topology from its index list, counter-clockwise as glTF defines them
/// (glTF 2.0 §3.7.2.1): strips alternate `(i, i+1, i+2)` and `(i+1, i, i+2)`; fans are
/// `(i+1, i+2, 0)`. Triangles with a repeated vertex (strip joins) are dropped.
pub fn triangles(topology: Topology, idx: &[u32]) -> Vec<[u32; 3]> {
    let tris: Vec<[u32; 3]> = match topology {
        Topology::Triangles => idx.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
        Topology::Strip => (0..idx.len().saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [idx[i], idx[i + 1], idx[i + 2]]
                } else {
                    [idx[i + 1], idx[i], idx[i + 2]]
                }
            })
            .collect(),
        Topology::Fan => (1..idx.len().saturating_sub(1))
            .map(|i| [idx[i], idx[i + 1], idx[0]])
            .collect(),
    };
    tris.into_iter()
        .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
        .collect()
}

/// Smooth normals: each face's area-weighted normal added to every vertex at the same position
/// (so split vertices — UV seams, non-indexed meshes — share one normal).
pub fn smooth_normals(positions: &[[f32; 3]], tris: &[[u32; 3]]) -> Vec<[f32; 3]> {
    let key = |p: [f32; 3]| p.map(f32::to_bits);
    let mut sums: HashMap<[u32; 3], [f32; 3]> = HashMap::new();
    for t in tris {
        let [a, b, c] = t.map(|i| positions[i as usize]);
        let n = cross(
            [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
            [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
        );
        for &i in t {
            let s = sums.entry(key(positions[i as usize])).or_insert([0.0; 3]);
            for k in 0..3 {
                s[k] += n[k];
            }
        }
    }
    positions
        .iter()
        .map(|&p| normalize3(sums.get(&key(p)).copied().unwrap_or([0.0; 3])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_alternate_and_fans_pivot_on_the_first_vertex() {
        assert_eq!(
            triangles(Topology::Strip, &[0, 1, 2, 3, 4]),
            vec![[0, 1, 2], [2, 1, 3], [2, 3, 4]]
        );
        assert_eq!(
            triangles(Topology::Fan, &[0, 1, 2, 3]),
            vec![[1, 2, 0], [2, 3, 0]]
        );
        assert_eq!(
            triangles(Topology::Triangles, &[0, 1, 2, 2, 2, 3, 9]),
            vec![[0, 1, 2]]
        );
        assert!(triangles(Topology::Strip, &[0, 1]).is_empty());
    }
}
