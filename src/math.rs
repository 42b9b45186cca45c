//! The vector math the CPU side shares, in `f32` before anything becomes PS1 fixed point:
//! 3-vectors, quaternions and 3×4 affine matrices for bone posing (M2, glTF), the camera and
//! face normals (FF9). One spelling of each operation, so every loader rounds alike.
//!
//! The transcendental functions on the way to pixels (camera, posing, slerp, effects, the demo
//! models) are here too, from the `libm` crate (a pure-Rust port of musl's): `f32::sin` and
//! friends call the platform's maths library, whose last bit differs between glibc, macOS and
//! Windows, so a picture (and an exact golden) could move by a pixel from one machine to the
//! next. Square roots need no such care: IEEE 754 rounds them exactly everywhere.

/// A rotation quaternion `[x, y, z, w]`.
pub type Quat = [f32; 4];

/// An affine transform: 3 rows of `[m0, m1, m2, translation]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine(pub [[f32; 4]; 3]);

impl Affine {
    /// The identity.
    pub const IDENTITY: Affine = Affine([
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ]);

    /// A translation by `t`.
    pub fn translation(t: [f32; 3]) -> Affine {
        let mut m = Self::IDENTITY;
        for (row, v) in m.0.iter_mut().zip(t) {
            row[3] = v;
        }
        m
    }

    /// A rotation by the (normalised) quaternion `q`.
    pub fn rotation(q: Quat) -> Affine {
        let [x, y, z, w] = normalize4(q);
        Affine([
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y - z * w),
                2.0 * (x * z + y * w),
                0.0,
            ],
            [
                2.0 * (x * y + z * w),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z - x * w),
                0.0,
            ],
            [
                2.0 * (x * z - y * w),
                2.0 * (y * z + x * w),
                1.0 - 2.0 * (x * x + y * y),
                0.0,
            ],
        ])
    }

    /// A scale by `s` along each axis.
    pub fn scale(s: [f32; 3]) -> Affine {
        let mut m = Self::IDENTITY;
        for (i, v) in s.into_iter().enumerate() {
            m.0[i][i] = v;
        }
        m
    }

    /// `self · other` (other applied first).
    pub fn mul(&self, other: &Affine) -> Affine {
        let (a, b) = (&self.0, &other.0);
        let mut out = [[0.0f32; 4]; 3];
        for (i, row) in out.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                *cell = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
                if j == 3 {
                    *cell += a[i][3];
                }
            }
        }
        Affine(out)
    }

    /// Transforms a point.
    pub fn point(&self, p: [f32; 3]) -> [f32; 3] {
        let m = &self.0;
        std::array::from_fn(|i| m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3])
    }

    /// Transforms a direction (no translation).
    pub fn vector(&self, v: [f32; 3]) -> [f32; 3] {
        let m = &self.0;
        std::array::from_fn(|i| m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2])
    }

    /// Column `j` of the 3×3 part.
    pub fn column(&self, j: usize) -> [f32; 3] {
        std::array::from_fn(|i| self.0[i][j])
    }
}

/// `v / |v|`, or `v` unchanged when it is (nearly) zero.
pub fn normalize3(v: [f32; 3]) -> [f32; 3] {
    let len = dot3(v, v).sqrt();
    if len > 1e-12 && len.is_finite() {
        v.map(|c| c / len)
    } else {
        v
    }
}

/// Unit quaternion; a zero or non-finite one becomes the identity.
pub fn normalize4(q: Quat) -> Quat {
    let len = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    if len > 1e-12 && len.is_finite() {
        q.map(|c| c / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Dot product.
pub fn dot3(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a + b`.
pub fn add3(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `v · s`.
pub fn scale3(v: [f32; 3], s: f32) -> [f32; 3] {
    [v[0] * s, v[1] * s, v[2] * s]
}

/// `a + (b − a) · t`.
pub fn lerp3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [0, 1, 2].map(|i| a[i] + (b[i] - a[i]) * t)
}

/// `a − b`.
pub fn sub3(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Cross product.
pub fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Sine, the same to the bit on every platform.
pub fn sin(x: f32) -> f32 {
    libm::sinf(x)
}

/// Cosine, the same to the bit on every platform.
pub fn cos(x: f32) -> f32 {
    libm::cosf(x)
}

/// `(sin x, cos x)`, the same to the bit on every platform.
pub fn sin_cos(x: f32) -> (f32, f32) {
    libm::sincosf(x)
}

/// Tangent, the same to the bit on every platform.
pub fn tan(x: f32) -> f32 {
    libm::tanf(x)
}

/// Arc cosine, the same to the bit on every platform.
pub fn acos(x: f32) -> f32 {
    libm::acosf(x)
}

/// Arc tangent, the same to the bit on every platform.
pub fn atan(x: f32) -> f32 {
    libm::atanf(x)
}

/// `x` to the power `y`, the same to the bit on every platform.
pub fn powf(x: f32, y: f32) -> f32 {
    libm::powf(x, y)
}

/// Spherical linear interpolation along the shorter arc.
pub fn slerp(a: Quat, b: Quat, t: f32) -> Quat {
    let (a, mut b) = (normalize4(a), normalize4(b));
    let mut d: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    if d < 0.0 {
        b = b.map(|c| -c);
        d = -d;
    }
    if d > 0.9995 {
        return normalize4(std::array::from_fn(|i| a[i] + (b[i] - a[i]) * t));
    }
    let theta = acos(d.min(1.0));
    let s = sin(theta);
    let (wa, wb) = (sin((1.0 - t) * theta) / s, sin(t * theta) / s);
    normalize4(std::array::from_fn(|i| a[i] * wa + b[i] * wb))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    #[test]
    fn quarter_turn_about_y_takes_z_to_x() {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let r = Affine::rotation([0.0, h, 0.0, h]);
        assert!(close(r.point([0.0, 0.0, 1.0]), [1.0, 0.0, 0.0]), "{:?}", r);
    }

    #[test]
    fn composition_applies_right_first() {
        let m = Affine::translation([1.0, 2.0, 3.0]).mul(&Affine::scale([2.0, 2.0, 2.0]));
        assert!(close(m.point([1.0, 1.0, 1.0]), [3.0, 4.0, 5.0]));
        assert!(close(m.vector([1.0, 0.0, 0.0]), [2.0, 0.0, 0.0]));
    }

    #[test]
    fn transcendentals_are_pinned_to_the_bit() {
        // musl's results (the libm crate), as bits: a platform library may round differently.
        let cases: [(f32, [u32; 4]); 4] = [
            (0.5, [0x3ef5_7744, 0x3f60_a940, 0x3f0b_da7b, 0x3f86_0a92]),
            (1.0, [0x3f57_6aa4, 0x3f0a_5140, 0x3fc7_5923, 0x0000_0000]),
            (-2.25, [0xbf47_2fce, 0xbf20_cffd, 0x3f9e_8b5a, 0x0]),
            (100.0, [0xbf01_a12e, 0x3f5c_c0ee, 0xbf16_53a7, 0x0]),
        ];
        for (x, want) in cases {
            let got = [
                sin(x),
                cos(x),
                tan(x),
                if x.abs() <= 1.0 { acos(x) } else { 0.0 },
            ];
            let got = got.map(f32::to_bits);
            assert_eq!(got, want, "x = {x}: {got:08x?}");
            assert_eq!(sin_cos(x), (sin(x), cos(x)));
        }
        assert_eq!(atan(1.0).to_bits(), std::f32::consts::FRAC_PI_4.to_bits());
        assert_eq!(powf(0.5, 1.0 / 2.4).to_bits(), 0x3f3f_c887);
    }

    #[test]
    fn slerp_halfway_is_half_the_angle() {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let q = slerp([0.0, 0.0, 0.0, 1.0], [0.0, h, 0.0, h], 0.5);
        let angle = 2.0 * q[3].acos();
        assert!((angle - std::f32::consts::FRAC_PI_4).abs() < 1e-5, "{q:?}");
        // The shorter arc is taken even when the second key has the opposite sign.
        let q2 = slerp([0.0, 0.0, 0.0, 1.0], [0.0, -h, 0.0, -h], 0.5);
        assert!(q.iter().zip(q2).all(|(a, b)| (a - b).abs() < 1e-5));
    }
}
