//! KHR_draco_mesh_compression: a primitive whose geometry is a Draco bitstream in a buffer view.
//! The extension maps glTF attribute names to the stream's attribute ids; the primitive's
//! accessors keep only their type and count. Decoding is done by the `draco-core` crate under
//! limits taken from the load's budget.

use std::collections::HashMap;

use draco_core::{DataType, DecodeLimits, DecoderBuffer, Mesh, MeshDecoder};

use super::accessor::Reader;
use super::{json_error, MAX_ACCESSOR_COUNT};
use crate::formats::error::Result;

/// Geometry decoded from one Draco stream.
pub struct Decoded {
    /// Number of points (vertices).
    pub points: usize,
    /// Attribute name → (components, values as `f64`, `components` per point).
    pub attributes: HashMap<String, (usize, Vec<f64>)>,
    /// Triangles.
    pub triangles: Vec<[u32; 3]>,
}

/// Largest value of an integer type, for normalised attributes.
fn normaliser(t: DataType) -> Option<f64> {
    match t {
        DataType::Int8 => Some(127.0),
        DataType::Uint8 => Some(255.0),
        DataType::Int16 => Some(32767.0),
        DataType::Uint16 => Some(65535.0),
        DataType::Int32 => Some(f64::from(i32::MAX)),
        DataType::Uint32 => Some(f64::from(u32::MAX)),
        _ => None,
    }
}

/// Decodes the extension `ext` of `meshes[m].primitives[p]`; `want` gives each attribute's
/// component count and whether its accessor says normalised.
pub fn decode(
    doc: &::gltf::Document,
    reader: &Reader,
    path: &str,
    ext: &serde_json::Value,
    want: &HashMap<String, (usize, bool)>,
) -> Result<Decoded> {
    let epath = format!("{path}.extensions.KHR_draco_mesh_compression");
    let view_index = ext
        .get("bufferView")
        .and_then(|v| v.as_u64())
        .ok_or_else(|| json_error(format!("{epath}.bufferView"), "missing or not an index"))?;
    let view = doc
        .views()
        .nth(view_index as usize)
        .ok_or_else(|| json_error(format!("{epath}.bufferView"), "no such buffer view"))?;
    let bytes = reader.view_bytes(&view)?;
    let ids = ext
        .get("attributes")
        .and_then(|v| v.as_object())
        .ok_or_else(|| json_error(format!("{epath}.attributes"), "missing or not an object"))?;
    let remaining = reader.budget.remaining();
    let limits = DecodeLimits::default()
        .with_max_points(MAX_ACCESSOR_COUNT)
        .with_max_faces(MAX_ACCESSOR_COUNT)
        .with_max_decoded_bytes(remaining / 4);
    let mut buffer = DecoderBuffer::new(bytes).with_limits(limits);
    let mut mesh = Mesh::new();
    MeshDecoder::new()
        .decode(&mut buffer, &mut mesh)
        .map_err(|e| json_error(&epath, format!("Draco stream: {e}")))?;
    let points = mesh.num_points();
    let faces = mesh.num_faces();
    // What the decode made lives on while we copy it out: charge it before copying.
    reader.budget.charge_for(
        &epath,
        (points as u64) * 8 * 16 + faces as u64 * 12,
        "Draco geometry (bytes)",
    )?;
    let mut attributes = HashMap::new();
    for (name, id) in ids {
        let id = id
            .as_u64()
            .filter(|&i| i <= u64::from(u32::MAX))
            .ok_or_else(|| {
                json_error(format!("{epath}.attributes.{name}"), "not an attribute id")
            })?;
        let Some(&(comps, normalized)) = want.get(name) else {
            continue;
        };
        let attr = mesh.attribute_by_unique_id(id as u32).ok_or_else(|| {
            json_error(
                format!("{epath}.attributes.{name}"),
                format!("the Draco stream has no attribute {id}"),
            )
        })?;
        let scale = if normalized {
            normaliser(attr.data_type())
        } else {
            None
        };
        let values: Vec<f64> = attr
            .read_f32s(points, comps)
            .into_iter()
            .map(|v| match scale {
                Some(s) => (f64::from(v) / s).max(-1.0),
                None => f64::from(v),
            })
            .collect();
        attributes.insert(name.clone(), (comps, values));
    }
    let triangles = mesh
        .faces()
        .iter()
        .map(|f| [f[0].0, f[1].0, f[2].0])
        .collect::<Vec<_>>();
    if let Some(bad) = triangles.iter().flatten().find(|&&i| i as usize >= points) {
        return Err(json_error(
            &epath,
            format!("a decoded face names point {bad} of {points}"),
        ));
    }
    Ok(Decoded {
        points,
        attributes,
        triangles,
    })
}
