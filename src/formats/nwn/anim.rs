//! Controller sampling and node transforms: keys at time t (linear, bezier, quaternion
//! slerp), node-local transforms `T · R · S`, and world transforms down the tree.

use super::mdl::{Controller, ControllerType, Node};

/// Quaternion `(x, y, z, w)`, the order binary MDLs store.
pub type Quat = [f32; 4];

/// The identity rotation.
pub const QUAT_IDENTITY: Quat = [0.0, 0.0, 0.0, 1.0];

/// An affine transform: `m` (rows, includes scale) then `t`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine {
    /// Linear part, row-major.
    pub m: [[f32; 3]; 3],
    /// Translation.
    pub t: [f32; 3],
}

impl Affine {
    /// The identity.
    pub const IDENTITY: Affine = Affine {
        m: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        t: [0.0; 3],
    };

    /// `T(pos) · R(q) · S(scale)`.
    pub fn from_trs(pos: [f32; 3], q: Quat, scale: f32) -> Affine {
        let [x, y, z, w] = normalize_quat(q);
        let r = [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y - z * w),
                2.0 * (x * z + y * w),
            ],
            [
                2.0 * (x * y + z * w),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z - x * w),
            ],
            [
                2.0 * (x * z - y * w),
                2.0 * (y * z + x * w),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ];
        let mut m = r;
        for row in &mut m {
            for v in row.iter_mut() {
                *v *= scale;
            }
        }
        Affine { m, t: pos }
    }

    /// `self · other`.
    pub fn mul(&self, o: &Affine) -> Affine {
        let mut m = [[0.0; 3]; 3];
        for (i, row) in m.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = (0..3).map(|k| self.m[i][k] * o.m[k][j]).sum();
            }
        }
        Affine {
            m,
            t: add(self.apply_vector(o.t), self.t),
        }
    }

    /// Transforms a point.
    pub fn apply(&self, p: [f32; 3]) -> [f32; 3] {
        add(self.apply_vector(p), self.t)
    }

    /// Transforms a direction (no translation).
    pub fn apply_vector(&self, v: [f32; 3]) -> [f32; 3] {
        [0, 1, 2].map(|i| self.m[i][0] * v[0] + self.m[i][1] * v[1] + self.m[i][2] * v[2])
    }

    /// The inverse, or the identity for a singular transform.
    pub fn inverse(&self) -> Affine {
        let m = &self.m;
        let c = |r0: usize, c0: usize, r1: usize, c1: usize| {
            m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]
        };
        let cof = [
            [c(1, 1, 2, 2), -c(0, 1, 2, 2), c(0, 1, 1, 2)],
            [-c(1, 0, 2, 2), c(0, 0, 2, 2), -c(0, 0, 1, 2)],
            [c(1, 0, 2, 1), -c(0, 0, 2, 1), c(0, 0, 1, 1)],
        ];
        let det = m[0][0] * cof[0][0] + m[0][1] * cof[1][0] + m[0][2] * cof[2][0];
        if det.abs() < 1e-12 || !det.is_finite() {
            return Affine::IDENTITY;
        }
        let mut inv = [[0.0; 3]; 3];
        for (i, row) in inv.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = cof[i][j] / det;
            }
        }
        let r = Affine {
            m: inv,
            t: [0.0; 3],
        };
        let t = r.apply_vector(self.t);
        Affine {
            m: inv,
            t: [-t[0], -t[1], -t[2]],
        }
    }

    /// Adds `w · other` component-wise (for blending skin matrices).
    pub fn add_weighted(&mut self, o: &Affine, w: f32) {
        for i in 0..3 {
            for j in 0..3 {
                self.m[i][j] += o.m[i][j] * w;
            }
            self.t[i] += o.t[i] * w;
        }
    }

    /// All zeros (the start of a weighted sum).
    pub const ZERO: Affine = Affine {
        m: [[0.0; 3]; 3],
        t: [0.0; 3],
    };
}

fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// Unit quaternion (identity for a zero or non-finite one).
pub fn normalize_quat(q: Quat) -> Quat {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n > 1e-8 && n.is_finite() {
        q.map(|v| v / n)
    } else {
        QUAT_IDENTITY
    }
}

/// Quaternion from an axis and an angle in radians (ASCII `orientation x y z angle`).
pub fn quat_from_axis_angle(axis: [f32; 3], angle: f32) -> Quat {
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    if n < 1e-8 || !n.is_finite() || !angle.is_finite() {
        return QUAT_IDENTITY;
    }
    let s = crate::math::sin(angle * 0.5) / n;
    [
        axis[0] * s,
        axis[1] * s,
        axis[2] * s,
        crate::math::cos(angle * 0.5),
    ]
}

/// Spherical interpolation along the shorter arc.
pub fn slerp(a: Quat, b: Quat, f: f32) -> Quat {
    let a = normalize_quat(a);
    let mut b = normalize_quat(b);
    let mut dot: f32 = (0..4).map(|i| a[i] * b[i]).sum();
    if dot < 0.0 {
        b = b.map(|v| -v);
        dot = -dot;
    }
    if dot > 0.9995 {
        return normalize_quat([0, 1, 2, 3].map(|i| a[i] + (b[i] - a[i]) * f));
    }
    let theta = crate::math::acos(dot.clamp(-1.0, 1.0));
    let s = crate::math::sin(theta);
    let wa = crate::math::sin((1.0 - f) * theta) / s;
    let wb = crate::math::sin(f * theta) / s;
    [0, 1, 2, 3].map(|i| a[i] * wa + b[i] * wb)
}

/// Where `t` falls among `times`: (key, next key, fraction). Times before the first key give
/// the first key, after the last the last; unsorted or equal times never divide by zero.
fn bracket(times: &[f32], t: f32) -> (usize, usize, f32) {
    let last = times.len() - 1;
    if t.is_nan() || t <= times[0] {
        return (0, 0, 0.0);
    }
    if t >= times[last] {
        return (last, last, 0.0);
    }
    let k = times
        .windows(2)
        .position(|w| w[0] <= t && t < w[1])
        .unwrap_or(last);
    if k >= last {
        return (last, last, 0.0);
    }
    let dt = times[k + 1] - times[k];
    let f = if dt > 0.0 { (t - times[k]) / dt } else { 0.0 };
    (k, k + 1, f.clamp(0.0, 1.0))
}

/// The value of a (non-orientation) controller at `t`, `columns` floats.
///
/// Bezier keys store per row the value, an in-handle and an out-handle (each `columns`
/// floats); the segment from key k to k+1 is the cubic with control points `v_k`,
/// `v_k + out_k`, `v_{k+1} + in_{k+1}`, `v_{k+1}`. Torlack notes no BioWare model is known to
/// use bezier keys; this layout is our reading of the `× 3` column count and is unverified.
pub fn sample(c: &Controller, t: f32) -> Vec<f32> {
    let rows = c.times.len().min(c.values.len() / c.stride().max(1));
    if rows == 0 {
        return Vec::new();
    }
    let (k0, k1, f) = bracket(&c.times[..rows], t);
    let a = c.row(k0);
    let b = c.row(k1);
    if !c.bezier || k0 == k1 {
        return (0..c.columns).map(|i| a[i] + (b[i] - a[i]) * f).collect();
    }
    let s = c.stride();
    let n = c.columns;
    let out_a = &c.values[k0 * s + 2 * n..k0 * s + 3 * n];
    let in_b = &c.values[k1 * s + n..k1 * s + 2 * n];
    let g = 1.0 - f;
    (0..n)
        .map(|i| {
            let p0 = a[i];
            let p1 = a[i] + out_a[i];
            let p2 = b[i] + in_b[i];
            let p3 = b[i];
            g * g * g * p0 + 3.0 * g * g * f * p1 + 3.0 * g * f * f * p2 + f * f * f * p3
        })
        .collect()
}

/// An orientation controller (quaternion rows) at `t`, slerped between keys.
pub fn sample_orientation(c: &Controller, t: f32) -> Quat {
    let rows = c.times.len().min(c.values.len() / c.stride().max(1));
    if rows == 0 || c.columns < 4 {
        return QUAT_IDENTITY;
    }
    let (k0, k1, f) = bracket(&c.times[..rows], t);
    let q = |r: &[f32]| [r[0], r[1], r[2], r[3]];
    slerp(q(c.row(k0)), q(c.row(k1)), f)
}

/// A node's local transform parts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    /// Position relative to the parent.
    pub position: [f32; 3],
    /// Orientation.
    pub orientation: Quat,
    /// Uniform scale.
    pub scale: f32,
}

impl Trs {
    /// The rest pose of `node` (its static controllers at t = 0).
    pub fn rest(node: &Node) -> Trs {
        let mut trs = Trs {
            position: [0.0; 3],
            orientation: QUAT_IDENTITY,
            scale: 1.0,
        };
        trs.apply(node, 0.0, 1.0);
        trs
    }

    /// Overrides what `node`'s controllers key, sampled at `t`; positions are multiplied by
    /// `position_scale` (the model's animation scale for animation nodes).
    pub fn apply(&mut self, node: &Node, t: f32, position_scale: f32) {
        if let Some(c) = node.controller(ControllerType::POSITION) {
            let v = sample(c, t);
            if v.len() >= 3 && v.iter().all(|x| x.is_finite()) {
                self.position = [v[0], v[1], v[2]].map(|x| x * position_scale);
            }
        }
        if let Some(c) = node.controller(ControllerType::ORIENTATION) {
            self.orientation = sample_orientation(c, t);
        }
        if let Some(c) = node.controller(ControllerType::SCALE) {
            let v = sample(c, t);
            if let Some(&s) = v.first().filter(|s| s.is_finite()) {
                self.scale = s;
            }
        }
    }

    /// `T · R · S`.
    pub fn affine(&self) -> Affine {
        Affine::from_trs(self.position, self.orientation, self.scale)
    }
}

/// World transforms of `nodes` (parents first) from their local transforms.
pub fn world(nodes: &[Node], local: &[Affine]) -> Vec<Affine> {
    let mut out: Vec<Affine> = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        let w = match n.parent.filter(|&p| p < i) {
            Some(p) => out[p].mul(&local[i]),
            None => local[i],
        };
        out.push(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctl(times: &[f32], values: &[f32], columns: usize, bezier: bool) -> Controller {
        Controller {
            ty: ControllerType::POSITION,
            times: times.to_vec(),
            values: values.to_vec(),
            columns,
            bezier,
        }
    }

    #[test]
    fn linear_keys_interpolate_and_clamp() {
        let c = ctl(&[0.0, 1.0], &[0.0, 0.0, 0.0, 2.0, 4.0, 6.0], 3, false);
        assert_eq!(sample(&c, 0.5), vec![1.0, 2.0, 3.0]);
        assert_eq!(sample(&c, -1.0), vec![0.0, 0.0, 0.0]);
        assert_eq!(sample(&c, 9.0), vec![2.0, 4.0, 6.0]);
        assert_eq!(sample(&c, f32::NAN), vec![0.0, 0.0, 0.0]);
    }

    #[test]
    fn bezier_keys_pass_through_values_and_use_handles() {
        // value, in, out per row (1 column).
        let c = ctl(&[0.0, 1.0], &[0.0, 0.0, 1.0, 1.0, -1.0, 0.0], 1, true);
        assert_eq!(sample(&c, 0.0), vec![0.0]);
        assert_eq!(sample(&c, 1.0), vec![1.0]);
        // P = 0, 1, 0, 1 at f = 0.5: 0.375 + 0 + 0.125 = 0.5; at 0.25: 3·.5625·.25 + .015625.
        assert!((sample(&c, 0.25)[0] - 0.4375).abs() < 1e-6);
    }

    #[test]
    fn slerp_halfway_about_z() {
        let a = QUAT_IDENTITY;
        let b = quat_from_axis_angle([0.0, 0.0, 1.0], std::f32::consts::FRAC_PI_2);
        let h = slerp(a, b, 0.5);
        let want = quat_from_axis_angle([0.0, 0.0, 1.0], std::f32::consts::FRAC_PI_4);
        for i in 0..4 {
            assert!((h[i] - want[i]).abs() < 1e-6, "{h:?} vs {want:?}");
        }
    }

    #[test]
    fn affine_inverse_round_trips() {
        let q = quat_from_axis_angle([1.0, 2.0, 3.0], 0.7);
        let a = Affine::from_trs([1.0, -2.0, 3.0], q, 1.5);
        let p = a.inverse().apply(a.apply([0.3, 0.4, 0.5]));
        for (x, y) in p.iter().zip([0.3, 0.4, 0.5]) {
            assert!((x - y).abs() < 1e-5, "{p:?}");
        }
        // 90° about Z takes +X to +Y.
        let r = Affine::from_trs(
            [0.0; 3],
            quat_from_axis_angle([0.0, 0.0, 1.0], 1.5707964),
            1.0,
        );
        let v = r.apply([1.0, 0.0, 0.0]);
        assert!(v[0].abs() < 1e-6 && (v[1] - 1.0).abs() < 1e-6, "{v:?}");
    }
}
