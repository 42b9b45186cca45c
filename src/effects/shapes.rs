//! Where a new particle starts and which way it leaves, for the emitters that are not the
//! format-neutral cone ([`Shape::Cone`], which [`super::spawn`] draws itself): M2's plane and
//! sphere generators, as WebWowViewerCpp's `particles/generators/CPlaneGenerator.cpp` and
//! `CSphereGenerator.cpp` place them (read for facts; the code is ours).
//!
//! Both work in the emitter's own frame (its X, Y and Z, Z the emission axis) with two angles
//! drawn uniformly in ±range: the vertical range (polar) and the horizontal range (azimuth, about
//! Z from X). A horizontal range of 0 is therefore a flat fan in the emitter's X–Z plane, not a
//! cone.

use super::{sane, Rng};
use crate::math::{add3, normalize3, scale3, sub3};

/// How an emitter places its particles.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Shape {
    /// From the state's area rectangle, directions up to `spread` from its axis at any turn
    /// about it (NWN, and the default).
    #[default]
    Cone,
    /// M2 plane (emitter type 1): from a point of the `area` rectangle (length along X, width
    /// along Y), leaving at polar angle ±`polar` from Z and azimuth ±`azimuth` from X.
    Plane(Generator),
    /// M2 sphere (emitter type 2): from a point at a radius between `area[0]` and `area[1]`,
    /// elevation ±`polar` from the X–Y plane and azimuth ±`azimuth` from X, leaving outward (or
    /// along Z when `up`).
    Sphere(Generator),
}

/// One M2 generator's values at one moment, in scene space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Generator {
    /// The emitter's X, Y and Z axes (unit); Z is the emission axis.
    pub frame: [[f32; 3]; 3],
    /// Plane: area length (X) and width (Y); sphere: smallest and largest radius.
    pub area: [f32; 2],
    /// Vertical range, radians.
    pub polar: f32,
    /// Horizontal range, radians.
    pub azimuth: f32,
    /// Z source: above 0, a particle leaves away from the point this far along Z from the
    /// emitter (wowdev and WebWowViewerCpp: `position − (0, 0, zSource)`), whatever the
    /// angles say.
    pub z_source: f32,
    /// Sphere only: leave along Z rather than outward (M2 flag 0x100).
    pub up: bool,
}

impl Generator {
    /// `v` (emitter X, Y, Z components) in scene space.
    fn in_scene(&self, v: [f32; 3]) -> [f32; 3] {
        let [x, y, z] = self.frame;
        add3(add3(scale3(x, v[0]), scale3(y, v[1])), scale3(z, v[2]))
    }

    /// The direction away from the Z source, `None` when there is none (or the particle sits
    /// on it).
    fn away_from_source(&self, local: [f32; 3]) -> Option<[f32; 3]> {
        if self.z_source.is_nan() || self.z_source <= 0.001 {
            return None;
        }
        let d = sub3(local, [0.0, 0.0, self.z_source]);
        let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        (len > 1e-4).then(|| scale3(d, 1.0 / len))
    }
}

/// Where a particle of `shape` starts (relative to the emitter's origin) and its unit
/// direction; `None` for [`Shape::Cone`].
pub(super) fn place(shape: &Shape, rng: &mut Rng) -> Option<([f32; 3], [f32; 3])> {
    let (g, sphere) = match shape {
        Shape::Cone => return None,
        Shape::Plane(g) => (g, false),
        Shape::Sphere(g) => (g, true),
    };
    let polar = sane(g.polar, -1e3, 1e3) * rng.signed();
    let azimuth = sane(g.azimuth, -1e3, 1e3) * rng.signed();
    let (sin_p, cos_p) = crate::math::sin_cos(polar);
    let (sin_a, cos_a) = crate::math::sin_cos(azimuth);
    let [a, b] = g.area.map(|v| sane(v, -1e4, 1e4));
    let (local, dir) = if sphere {
        let radius = a + (b - a) * rng.unit();
        let out = [cos_p * cos_a, cos_p * sin_a, sin_p];
        let dir = if g.up { [0.0, 0.0, 1.0] } else { out };
        (scale3(out, radius), dir)
    } else {
        let at = [rng.signed() * a * 0.5, rng.signed() * b * 0.5, 0.0];
        (at, [cos_a * sin_p, sin_a * sin_p, cos_p])
    };
    let dir = g.away_from_source(local).unwrap_or(dir);
    Some((g.in_scene(local), normalize3(g.in_scene(dir))))
}
