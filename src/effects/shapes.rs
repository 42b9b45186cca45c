//! Where a new particle starts and which way it leaves, for the emitters that are not the
//! format-neutral cone ([`Shape::Cone`], which [`super::spawn`] draws itself): M2's plane,
//! sphere and spline generators, as WebWowViewerCpp's `particles/generators/`
//! (`CPlaneGenerator.cpp`, `CSphereGenerator.cpp`, `CSplineGenerator.cpp` with
//! `algorithms/C3Spline_Bezier3.cpp`) place them (read for facts; the code is ours).
//!
//! Both work in the emitter's own frame (its X, Y and Z, Z the emission axis) with two angles
//! drawn uniformly in ±range: the vertical range (polar) and the horizontal range (azimuth, about
//! Z from X). A horizontal range of 0 is therefore a flat fan in the emitter's X–Z plane, not a
//! cone.

use super::{sane, Rng};
use crate::math::{add3, cross, normalize3, scale3, sub3};

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
    /// M2 spline (emitter type 3): from the point of the source's [`Spline`] a fraction
    /// between `area[0]` and `area[1]` (each clamped to 0..1) along its length, leaving along
    /// Z turned about the spline's tangent there by up to ±`polar` (`CSplineGenerator`).
    Spline {
        /// The generator's values.
        generator: Generator,
        /// The area width moved since the step before: every particle starts at the fraction
        /// `area[1]` itself rather than at a random one between the two (WebWowViewerCpp
        /// compares the width with its value at the emitter's last birth).
        moved: bool,
    },
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
/// direction; `None` for [`Shape::Cone`]. A [`Shape::Spline`] without a `spline` of a whole
/// segment starts particles at the origin, leaving along Z (its sources emit nothing then).
pub(super) fn place(
    shape: &Shape,
    spline: Option<&Spline>,
    rng: &mut Rng,
) -> Option<([f32; 3], [f32; 3])> {
    let (g, sphere) = match shape {
        Shape::Cone => return None,
        Shape::Plane(g) => (g, false),
        Shape::Sphere(g) => (g, true),
        Shape::Spline { generator, moved } => {
            let (local, dir) = match spline.filter(|s| s.segments() > 0) {
                Some(spline) => spline_place(generator, *moved, spline, rng),
                None => ([0.0; 3], [0.0, 0.0, 1.0]),
            };
            return Some((
                generator.in_scene(local),
                normalize3(generator.in_scene(dir)),
            ));
        }
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

/// Most control points of one [`Spline`]: far more than an emitter's path needs, few enough
/// that a broken count cannot make a load large.
pub const MAX_SPLINE_POINTS: u64 = 1024;

/// A path of cubic Bézier segments in an emitter's own X, Y, Z: segment `i` has control
/// points `3i ..= 3i + 3`, so consecutive segments share an end (WebWowViewerCpp's
/// `C3Spline_Bezier3`). Each segment's length is the sum of 20 chords, as the reference
/// measures it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spline {
    points: Vec<[f32; 3]>,
    lengths: Vec<f32>,
}

impl Spline {
    /// The spline through `points` (each coordinate clamped to ±10⁴, a non-finite one read as
    /// 0). Points past the last whole segment are kept but never reached; the reference's
    /// `size / 3` segments would read one point past the end when the count is a multiple of 3,
    /// so such a last segment is dropped here.
    pub fn new(points: Vec<[f32; 3]>) -> Spline {
        let points: Vec<[f32; 3]> = (points.into_iter())
            .map(|p| p.map(|c| sane(c, -1e4, 1e4)))
            .collect();
        let segments = points.len().saturating_sub(1) / 3;
        let mut spline = Spline {
            points,
            lengths: Vec::with_capacity(segments),
        };
        spline.lengths = (0..segments)
            .map(|i| {
                let at = |k: u32| spline.at(i, k as f32 / 20.0);
                (1..=20).map(|k| dist(at(k - 1), at(k))).sum()
            })
            .collect();
        spline
    }

    /// The control points as read.
    pub fn points(&self) -> &[[f32; 3]] {
        &self.points
    }

    /// Whole segments.
    pub fn segments(&self) -> usize {
        self.lengths.len()
    }

    /// Segment `i` at parameter `t` (0..1): Bernstein weights of its four points.
    fn at(&self, i: usize, t: f32) -> [f32; 3] {
        let u = 1.0 - t;
        self.blend(i, [u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t])
    }

    /// The derivative of segment `i` at `t`.
    fn slope(&self, i: usize, t: f32) -> [f32; 3] {
        let u = 1.0 - t;
        self.blend(
            i,
            [
                -3.0 * u * u,
                3.0 * u * (1.0 - 3.0 * t),
                3.0 * t * (2.0 - 3.0 * t),
                3.0 * t * t,
            ],
        )
    }

    fn blend(&self, i: usize, w: [f32; 4]) -> [f32; 3] {
        (0..4).fold([0.0; 3], |acc, k| {
            add3(acc, scale3(self.points[3 * i + k], w[k]))
        })
    }

    /// The segment and its parameter a fraction `s` of the way along: with one segment `s`
    /// is the parameter itself; with more, the segment holding that fraction of the summed
    /// lengths and the share of its own length left over (`C3Spline::arclengthSegT`).
    fn locate(&self, s: f32) -> (usize, f32) {
        if self.segments() == 1 {
            return (0, s);
        }
        let total: f32 = self.lengths.iter().sum();
        let want = total * s;
        let (mut seg, mut before) = (0, 0.0);
        while seg + 1 < self.segments() && want >= before + self.lengths[seg] {
            before += self.lengths[seg];
            seg += 1;
        }
        let len = self.lengths[seg];
        (
            seg,
            if len > 0.0 {
                (want - before) / len
            } else {
                0.0
            },
        )
    }
}

fn dist(a: [f32; 3], b: [f32; 3]) -> f32 {
    let d = sub3(b, a);
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// A spline generator's start (emitter X, Y, Z) and direction, as `CSplineGenerator` makes
/// them: the fraction along the spline is `area[1]` when `moved`, else uniform between
/// `area[0]` and `area[1]` (both clamped to 0..1; 0 the first point, 1 the last); a Z source
/// aims away from its point; else a vertical range turns Z about the spline's tangent there
/// by up to ±range, and a horizontal range adds one random amount up to it to each of X, Y
/// and Z of the start; with neither the particle leaves along Z. `spline` has a segment
/// (the reference's first and last points are the first and last read).
fn spline_place(
    g: &Generator,
    moved: bool,
    spline: &Spline,
    rng: &mut Rng,
) -> ([f32; 3], [f32; 3]) {
    let [lo, hi] = g.area.map(|v| sane(v, 0.0, 1.0));
    let s = if moved {
        hi
    } else {
        lo + (hi - lo) * rng.unit()
    };
    let mut local = if s <= 0.0 {
        spline.points[0]
    } else if s >= 1.0 {
        spline.points[spline.points.len() - 1]
    } else {
        let (i, t) = spline.locate(s);
        spline.at(i, t)
    };
    if let Some(away) = g.away_from_source(local) {
        return (local, away);
    }
    let polar = sane(g.polar, -1e3, 1e3);
    if polar == 0.0 {
        return (local, [0.0, 0.0, 1.0]);
    }
    let (i, t) = spline.locate(s);
    let axis = normalize3(spline.slope(i, t.clamp(0.0, 1.0)));
    let dir = turn_z_about(axis, polar * rng.signed());
    let azimuth = sane(g.azimuth, -1e3, 1e3);
    if azimuth != 0.0 {
        let d = azimuth * rng.unit();
        local = add3(local, [d; 3]);
    }
    (local, dir)
}

/// The Z axis turned by `angle` about the unit `axis` (Rodrigues' rotation formula).
fn turn_z_about(axis: [f32; 3], angle: f32) -> [f32; 3] {
    let (sin, cos) = crate::math::sin_cos(angle);
    let z = [0.0, 0.0, 1.0];
    let along = scale3(axis, axis[2] * (1.0 - cos));
    add3(add3(scale3(z, cos), scale3(cross(axis, z), sin)), along)
}
