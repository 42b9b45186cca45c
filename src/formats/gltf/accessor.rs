//! Reading accessors: every element's bytes are checked to lie inside its buffer view, and the
//! view inside its buffer, before anything is read; the element count is charged to the budget
//! before anything is allocated. Sparse accessors are applied on top of their base (or zeros).
//!
//! Layout (glTF 2.0 §3.6.2): element `i` starts at `view.byteOffset + accessor.byteOffset +
//! i × stride`, where stride is the view's `byteStride` or the element's size; matrix columns of
//! 1- and 2-byte components start on 4-byte boundaries. Normalised integers map to −1..1 or 0..1
//! (signed: `max(c / MAX, −1)`).

use ::gltf::accessor::{DataType, Dimensions};

use super::source::BufferData;
use super::{json_error, Budget, MAX_ACCESSOR_COUNT};
use crate::formats::error::Result;

/// Bytes of one component.
pub fn component_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// Components per element.
pub fn components(d: Dimensions) -> usize {
    d.multiplicity()
}

/// `(rows per column, columns)`: a vector is one column.
fn shape(d: Dimensions) -> (usize, usize) {
    match d {
        Dimensions::Mat2 => (2, 2),
        Dimensions::Mat3 => (3, 3),
        Dimensions::Mat4 => (4, 4),
        other => (other.multiplicity(), 1),
    }
}

/// Byte size of one element and the byte stride between its columns.
fn element_layout(t: DataType, d: Dimensions) -> (usize, usize) {
    let (rows, cols) = shape(d);
    let size = component_size(t);
    let column = if cols > 1 {
        (rows * size).div_ceil(4) * 4
    } else {
        rows * size
    };
    (column * cols, column)
}

/// One component as `f64`: its value, or its normalised value.
fn component(bytes: &[u8], t: DataType, normalized: bool) -> f64 {
    let v = match t {
        DataType::I8 => f64::from(bytes[0] as i8),
        DataType::U8 => f64::from(bytes[0]),
        DataType::I16 => f64::from(i16::from_le_bytes([bytes[0], bytes[1]])),
        DataType::U16 => f64::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        DataType::U32 => f64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
        DataType::F32 => {
            return f64::from(f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
        }
    };
    if !normalized {
        return v;
    }
    match t {
        DataType::I8 => (v / 127.0).max(-1.0),
        DataType::U8 => v / 255.0,
        DataType::I16 => (v / 32767.0).max(-1.0),
        DataType::U16 => v / 65535.0,
        DataType::U32 => v / f64::from(u32::MAX),
        DataType::F32 => v,
    }
}

/// The document's buffers, for reading accessors.
pub struct Reader<'a> {
    /// Buffers by index.
    pub buffers: &'a [BufferData],
    /// The load's budget.
    pub budget: &'a Budget,
}

/// One contiguous run of elements: bytes, stride, count.
struct Strided<'b> {
    bytes: &'b [u8],
    stride: usize,
    count: usize,
}

impl<'b> Strided<'b> {
    fn element(&self, i: usize) -> &'b [u8] {
        &self.bytes[i * self.stride..]
    }
}

impl<'a> Reader<'a> {
    /// The bytes of `view`, checked against its buffer.
    pub fn view_bytes(&self, view: &::gltf::buffer::View) -> Result<&'a [u8]> {
        let b = view.buffer().index();
        let data = self
            .buffers
            .get(b)
            .ok_or_else(|| json_error(format!("bufferViews[{}]", view.index()), "no buffer"))?;
        let (off, len) = (view.offset() as u64, view.length() as u64);
        match off.checked_add(len) {
            Some(end) if end <= data.bytes().len() as u64 => {
                Ok(&data.bytes()[off as usize..end as usize])
            }
            // The bad values are the view's, in the JSON: the error is the model's, at that path
            // (the buffer's file is named in the message).
            _ => Err(json_error(
                format!("bufferViews[{}]", view.index()),
                format!(
                    "bytes {off}..{} lie outside buffers[{b}] ({}, {} bytes)",
                    off.saturating_add(len),
                    data.origin,
                    data.bytes().len()
                ),
            )),
        }
    }

    /// `count` elements of `elem` bytes from `offset` in `view`, stride `stride` (0 = packed).
    fn strided(
        &self,
        path: &str,
        view: &::gltf::buffer::View,
        offset: usize,
        count: usize,
        elem: usize,
        stride: Option<usize>,
    ) -> Result<Strided<'a>> {
        let bytes = self.view_bytes(view)?;
        let stride = stride.unwrap_or(elem);
        if stride < elem {
            return Err(json_error(
                format!("bufferViews[{}].byteStride", view.index()),
                format!("stride {stride} is smaller than {path}'s {elem}-byte elements"),
            ));
        }
        if count == 0 {
            return Ok(Strided {
                bytes: &[],
                stride,
                count,
            });
        }
        let need = (count as u64 - 1)
            .checked_mul(stride as u64)
            .and_then(|n| n.checked_add(elem as u64))
            .and_then(|n| n.checked_add(offset as u64));
        match need {
            Some(end) if end <= bytes.len() as u64 => Ok(Strided {
                bytes: &bytes[offset..end as usize],
                stride,
                count,
            }),
            // The count, offset and stride are the JSON's: the error is the model's.
            _ => Err(json_error(
                path,
                format!(
                    "{count} elements of {elem} bytes (stride {stride}) from byte {offset} run past the end of bufferViews[{}] ({} bytes)",
                    view.index(),
                    bytes.len()
                ),
            )),
        }
    }

    /// Reads accessor `acc` as `f64` components, `components(dims)` per element, normalised
    /// integers scaled. `what` names it for errors (`accessors[3]`).
    pub fn read(&self, acc: &::gltf::Accessor) -> Result<(Vec<f64>, usize)> {
        let path = format!("accessors[{}]", acc.index());
        let count = acc.count() as u64;
        if count > MAX_ACCESSOR_COUNT {
            return Err(json_error(
                format!("{path}.count"),
                format!("{count} elements is more than the limit {MAX_ACCESSOR_COUNT}"),
            ));
        }
        let count = count as usize;
        let (t, d) = (acc.data_type(), acc.dimensions());
        let n = components(d);
        let (rows, cols) = shape(d);
        let (elem, column) = element_layout(t, d);
        let csize = component_size(t);
        self.budget
            .charge_for(&path, (count * n * 8) as u64, "accessor data (bytes)")?;
        let mut out = vec![0.0f64; count * n];
        let decode = |src: &[u8], dst: &mut [f64]| {
            for c in 0..cols {
                for r in 0..rows {
                    let at = c * column + r * csize;
                    dst[c * rows + r] = component(&src[at..], t, acc.normalized());
                }
            }
        };
        if let Some(view) = acc.view() {
            let s = self.strided(&path, &view, acc.offset(), count, elem, view.stride())?;
            for (i, dst) in out.chunks_exact_mut(n).enumerate().take(s.count) {
                decode(s.element(i), dst);
            }
        }
        if let Some(sparse) = acc.sparse() {
            let sc = sparse.count();
            if sc > count {
                return Err(json_error(
                    format!("{path}.sparse.count"),
                    format!("{sc} is more than the accessor's {count} elements"),
                ));
            }
            let idx = sparse.indices();
            let isize_ = match idx.index_type() {
                ::gltf::accessor::sparse::IndexType::U8 => 1,
                ::gltf::accessor::sparse::IndexType::U16 => 2,
                ::gltf::accessor::sparse::IndexType::U32 => 4,
            };
            let ipath = format!("{path}.sparse.indices");
            let is = self.strided(&ipath, &idx.view(), idx.offset(), sc, isize_, None)?;
            let vpath = format!("{path}.sparse.values");
            let vals = sparse.values();
            let vs = self.strided(&vpath, &vals.view(), vals.offset(), sc, elem, None)?;
            for k in 0..sc {
                let b = is.element(k);
                let target = match isize_ {
                    1 => usize::from(b[0]),
                    2 => usize::from(u16::from_le_bytes([b[0], b[1]])),
                    _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
                };
                if target >= count {
                    return Err(json_error(
                        &ipath,
                        format!("index {target} is past the accessor's {count} elements"),
                    ));
                }
                decode(vs.element(k), &mut out[target * n..(target + 1) * n]);
            }
        }
        Ok((out, n))
    }

    /// Reads `acc` as `N`-wide float elements, refusing another width. `what` says what it is
    /// for (`POSITION`).
    pub fn floats<const N: usize>(
        &self,
        acc: &::gltf::Accessor,
        what: &str,
    ) -> Result<Vec<[f32; N]>> {
        let (v, n) = self.read(acc)?;
        if n != N {
            return Err(json_error(
                format!("accessors[{}].type", acc.index()),
                format!("{what} needs {N} components per element, the accessor has {n}"),
            ));
        }
        Ok(v.chunks_exact(N)
            .map(|c| std::array::from_fn(|i| c[i] as f32))
            .collect())
    }

    /// Reads `acc` as 3- or 4-wide floats, a missing fourth component filled with `fill`
    /// (COLOR_0's alpha).
    pub fn floats_3_or_4(
        &self,
        acc: &::gltf::Accessor,
        what: &str,
        fill: f32,
    ) -> Result<Vec<[f32; 4]>> {
        let (v, n) = self.read(acc)?;
        if n != 3 && n != 4 {
            return Err(json_error(
                format!("accessors[{}].type", acc.index()),
                format!("{what} needs VEC3 or VEC4, the accessor has {n} components"),
            ));
        }
        Ok(v.chunks_exact(n)
            .map(|c| std::array::from_fn(|i| c.get(i).map_or(fill, |&x| x as f32)))
            .collect())
    }

    /// Reads `acc` as non-negative integers (indices, joints), refusing floats and normalised
    /// types.
    pub fn uints(&self, acc: &::gltf::Accessor, what: &str) -> Result<(Vec<u32>, usize)> {
        if acc.data_type() == DataType::F32 || acc.normalized() {
            return Err(json_error(
                format!("accessors[{}].componentType", acc.index()),
                format!("{what} must be unsigned integers"),
            ));
        }
        let (v, n) = self.read(acc)?;
        if v.iter().any(|&x| x < 0.0) {
            return Err(json_error(
                format!("accessors[{}]", acc.index()),
                format!("{what} must not be negative"),
            ));
        }
        Ok((v.into_iter().map(|x| x as u32).collect(), n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalised_components_map_to_unit_range() {
        assert_eq!(component(&[255], DataType::U8, true), 1.0);
        assert_eq!(component(&[0x80], DataType::I8, true), -1.0);
        assert_eq!(component(&[0x81], DataType::I8, true), -1.0);
        assert_eq!(component(&[0xff, 0x7f], DataType::I16, true), 1.0);
        assert_eq!(component(&[7, 0], DataType::U16, false), 7.0);
    }

    #[test]
    fn matrix_columns_of_small_components_are_padded_to_four_bytes() {
        assert_eq!(element_layout(DataType::U8, Dimensions::Mat3), (12, 4));
        assert_eq!(element_layout(DataType::I16, Dimensions::Mat3), (24, 8));
        assert_eq!(element_layout(DataType::U8, Dimensions::Mat2), (8, 4));
        assert_eq!(element_layout(DataType::F32, Dimensions::Mat4), (64, 16));
        assert_eq!(element_layout(DataType::U8, Dimensions::Vec3), (3, 3));
    }
}
