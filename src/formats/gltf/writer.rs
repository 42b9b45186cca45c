//! Writes glTF files for what the public samples lack (vertex colours, strips and fans, STEP and
//! CUBICSPLINE keys, several skins, textures with alpha, node matrices, morph targets, sparse
//! accessors) and for the bad-input tests. The document is built as JSON values, so a test can
//! set any field — valid or not; binary data goes into one buffer, written as a GLB BIN chunk,
//! a base64 data URI or an external file.

use serde_json::{json, Map, Value};

/// glTF component type codes.
pub mod component {
    /// BYTE.
    pub const I8: u32 = 5120;
    /// UNSIGNED_BYTE.
    pub const U8: u32 = 5121;
    /// SHORT.
    pub const I16: u32 = 5122;
    /// UNSIGNED_SHORT.
    pub const U16: u32 = 5123;
    /// UNSIGNED_INT.
    pub const U32: u32 = 5125;
    /// FLOAT.
    pub const F32: u32 = 5126;
}

/// A glTF document under construction: the JSON root and the one buffer's bytes.
#[derive(Clone, Debug)]
pub struct Builder {
    /// The JSON root (edit freely).
    pub root: Map<String, Value>,
    /// Buffer 0's bytes.
    pub bin: Vec<u8>,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

/// Standard base64 (RFC 4648) with padding.
pub fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = u32::from(c[0]) << 16
            | u32::from(c.get(1).copied().unwrap_or(0)) << 8
            | u32::from(c.get(2).copied().unwrap_or(0));
        for k in 0..4 {
            if k <= c.len() {
                s.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

impl Builder {
    /// An empty 2.0 document with one scene.
    pub fn new() -> Builder {
        let mut root = Map::new();
        root.insert(
            "asset".into(),
            json!({"version": "2.0", "generator": "psxrender test writer"}),
        );
        root.insert("scene".into(), json!(0));
        root.insert("scenes".into(), json!([{"nodes": []}]));
        Builder {
            root,
            bin: Vec::new(),
        }
    }

    /// Appends `value` to the top-level array `key`; returns its index.
    pub fn push(&mut self, key: &str, value: Value) -> usize {
        let arr = self
            .root
            .entry(key.to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        let a = arr.as_array_mut().expect("top-level arrays only");
        a.push(value);
        a.len() - 1
    }

    /// Adds `node` as a root of scene 0.
    pub fn root_node(&mut self, node: Value) -> usize {
        let n = self.push("nodes", node);
        self.root["scenes"][0]["nodes"]
            .as_array_mut()
            .expect("scene 0 exists")
            .push(json!(n));
        n
    }

    /// Appends bytes to the buffer (4-byte aligned) as a new buffer view; returns its index.
    pub fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.push(
            "bufferViews",
            json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}),
        )
    }

    /// An accessor over a new view of `bytes`.
    pub fn accessor(
        &mut self,
        bytes: &[u8],
        component_type: u32,
        ty: &str,
        count: usize,
        normalized: bool,
    ) -> usize {
        let v = self.view(bytes);
        let mut a =
            json!({"bufferView": v, "componentType": component_type, "type": ty, "count": count});
        if normalized {
            a["normalized"] = json!(true);
        }
        self.push("accessors", a)
    }

    /// A float accessor of `N`-wide elements (`type` from N: SCALAR, VEC2, VEC3, VEC4, MAT4);
    /// VEC3 gets min/max (required of POSITION).
    pub fn floats<const N: usize>(&mut self, data: &[[f32; N]]) -> usize {
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let ty = match N {
            1 => "SCALAR",
            2 => "VEC2",
            3 => "VEC3",
            4 => "VEC4",
            16 => "MAT4",
            _ => panic!("no glTF type has {N} components"),
        };
        let a = self.accessor(&bytes, component::F32, ty, data.len(), false);
        if N == 3 {
            let lo: Vec<f32> = (0..N)
                .map(|i| data.iter().map(|v| v[i]).fold(f32::MAX, f32::min))
                .collect();
            let hi: Vec<f32> = (0..N)
                .map(|i| data.iter().map(|v| v[i]).fold(f32::MIN, f32::max))
                .collect();
            self.root["accessors"][a]["min"] = json!(lo);
            self.root["accessors"][a]["max"] = json!(hi);
        }
        a
    }

    /// A SCALAR float accessor.
    pub fn scalars(&mut self, data: &[f32]) -> usize {
        let v: Vec<[f32; 1]> = data.iter().map(|&x| [x]).collect();
        self.floats(&v)
    }

    /// An UNSIGNED_SHORT accessor (`ty` SCALAR for indices, VEC4 for joints).
    pub fn u16s(&mut self, data: &[u16], ty: &str, count: usize) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.accessor(&bytes, component::U16, ty, count, false)
    }

    /// The accessors of a square from (−1, −1) to (1, 1) in the XY plane facing +Z, with the
    /// texture upright on it: `(POSITION, TEXCOORD_0, indices)`.
    pub fn square(&mut self) -> (usize, usize, usize) {
        let pos = self.floats(&[
            [-1.0, -1.0, 0.0],
            [1.0, -1.0, 0.0],
            [1.0, 1.0, 0.0],
            [-1.0, 1.0, 0.0],
        ]);
        let uv = self.floats(&[[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]);
        let idx = self.u16s(&[0, 1, 2, 0, 2, 3], "SCALAR", 6);
        (pos, uv, idx)
    }

    /// A normalised UNSIGNED_BYTE accessor (colours, weights).
    pub fn unorm8(&mut self, data: &[u8], ty: &str, count: usize) -> usize {
        self.accessor(data, component::U8, ty, count, true)
    }

    /// A PNG image of `width`×`height` RGBA pixels stored in a buffer view; returns the image
    /// index.
    pub fn png(&mut self, width: u32, height: u32, rgba: &[[u8; 4]]) -> usize {
        let mut bytes = Vec::new();
        let img = image::RgbaImage::from_raw(width, height, rgba.concat()).expect("pixel count");
        img.write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .expect("PNG encodes to memory");
        let v = self.view(&bytes);
        self.push("images", json!({"bufferView": v, "mimeType": "image/png"}))
    }

    /// A JPEG image (quality 90) of `width`×`height` RGB pixels stored in a buffer view;
    /// returns the image index.
    pub fn jpeg(&mut self, width: u32, height: u32, rgb: &[[u8; 3]]) -> usize {
        let mut bytes = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 90)
            .encode(
                rgb.as_flattened(),
                width,
                height,
                image::ExtendedColorType::Rgb8,
            )
            .expect("JPEG encodes to memory");
        let v = self.view(&bytes);
        self.push("images", json!({"bufferView": v, "mimeType": "image/jpeg"}))
    }

    /// A texture of `image` and a material sampling it; returns the material index.
    pub fn textured_material(&mut self, image: usize, extra: Value) -> usize {
        let t = self.push("textures", json!({"source": image}));
        let mut m = json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": t}}});
        if let (Some(m), Some(e)) = (m.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                m.insert(k.clone(), v.clone());
            }
        }
        self.push("materials", m)
    }

    fn with_buffer(&self, uri: Option<String>) -> Value {
        let mut root = self.root.clone();
        if !self.bin.is_empty() || root.contains_key("bufferViews") {
            let mut b = json!({"byteLength": self.bin.len()});
            if let Some(u) = uri {
                b["uri"] = json!(u);
            }
            root.insert("buffers".into(), json!([b]));
        }
        Value::Object(root)
    }

    /// The document as `.gltf` JSON with the buffer embedded as a base64 data URI.
    pub fn gltf_embedded(&self) -> Vec<u8> {
        let uri = format!("data:application/octet-stream;base64,{}", base64(&self.bin));
        serde_json::to_vec_pretty(&self.with_buffer(Some(uri))).expect("JSON serialises")
    }

    /// The document as `.gltf` JSON naming `bin_uri` for its buffer (write `self.bin` there).
    pub fn gltf_external(&self, bin_uri: &str) -> Vec<u8> {
        serde_json::to_vec_pretty(&self.with_buffer(Some(bin_uri.to_string())))
            .expect("JSON serialises")
    }

    /// The document as a `.glb`: 12-byte header, JSON chunk padded with spaces, BIN chunk padded
    /// with zeros (glTF 2.0 §4.4).
    pub fn glb(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec(&self.with_buffer(None)).expect("JSON serialises");
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        let mut bin = self.bin.clone();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let has_bin = !bin.is_empty();
        let total = 12 + 8 + json.len() + if has_bin { 8 + bin.len() } else { 0 };
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json);
        if has_bin {
            out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
            out.extend_from_slice(b"BIN\0");
            out.extend_from_slice(&bin);
        }
        out
    }
}

/// A column-major 4×4 matrix for glTF from rows of a 3×4 affine transform.
pub fn columns(rows: [[f32; 4]; 3]) -> [f32; 16] {
    let mut m = [0.0f32; 16];
    for (r, row) in rows.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            m[c * 4 + r] = *v;
        }
    }
    m[15] = 1.0;
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn glb_lengths_add_up() {
        let mut b = Builder::new();
        b.scalars(&[1.0, 2.0, 3.0]);
        let g = b.glb();
        assert_eq!(&g[..4], b"glTF");
        assert_eq!(
            u32::from_le_bytes(g[8..12].try_into().unwrap()) as usize,
            g.len()
        );
        let jl = u32::from_le_bytes(g[12..16].try_into().unwrap()) as usize;
        assert_eq!(jl % 4, 0);
        assert_eq!(&g[20 + jl + 4..20 + jl + 8], b"BIN\0");
    }
}
