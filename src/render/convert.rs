//! Model → PS1 fixed point: positions to int16 model space around a fixed origin with one scale
//! per model (so its posed extent fits with room for animation), normals to 1.3.12.

use super::gte_stage::Q12;

/// Largest coordinate (in GTE units) the framing pose's extent is scaled to. int16 leaves 8× room
/// for animation to wander before a vertex saturates (saturated vertices are counted in
/// [`super::FrameStats::clamped_vertices`]).
pub const TARGET_EXTENT: f32 = 4096.0;

/// How model units map to the GTE's int16 model space: `gte = (p - origin) * scale`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelSpace {
    /// Model-space point that becomes (0,0,0): the centre of the framing pose's bounding box.
    pub origin: [f32; 3],
    /// GTE units per model unit.
    pub scale: f32,
    /// Largest distance of a framing-pose vertex from `origin`, in model units.
    pub radius: f32,
}

impl ModelSpace {
    /// Fits `points` (an empty set gives the identity at scale 1).
    pub fn fit(points: &[[f32; 3]]) -> ModelSpace {
        let finite = points.iter().filter(|p| p.iter().all(|c| c.is_finite()));
        let mut lo = [f32::MAX; 3];
        let mut hi = [f32::MIN; 3];
        let mut any = false;
        for p in finite.clone() {
            any = true;
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        if !any {
            return ModelSpace {
                origin: [0.0; 3],
                scale: 1.0,
                radius: 1.0,
            };
        }
        let origin = [0, 1, 2].map(|a| (lo[a] + hi[a]) / 2.0);
        let extent = (0..3).map(|a| (hi[a] - lo[a]) / 2.0).fold(0.0f32, f32::max);
        // A single point (a mesh-less effect model at rest) has no extent to fit: one model
        // unit stands in, so the scale stays finite and the camera backs off from it.
        let extent = if extent > 1e-6 { extent } else { 1.0 };
        let radius = finite
            .map(|p| {
                (0..3)
                    .map(|a| (p[a] - origin[a]).powi(2))
                    .sum::<f32>()
                    .sqrt()
            })
            .fold(0.0f32, f32::max)
            .max(1e-6);
        ModelSpace {
            origin,
            scale: TARGET_EXTENT / extent,
            radius,
        }
    }

    /// A position in int16 GTE model space, and whether it had to saturate.
    pub fn position(&self, p: [f32; 3]) -> ([i16; 3], bool) {
        let mut clamped = false;
        let v = [0, 1, 2].map(|a| {
            let f = (p[a] - self.origin[a]) * self.scale;
            let f = if f.is_finite() { f.round() } else { 0.0 };
            if !(-32768.0..=32767.0).contains(&f) {
                clamped = true;
            }
            f.clamp(-32768.0, 32767.0) as i16
        });
        (v, clamped)
    }
}

/// A unit normal in 1.3.12 (non-finite → zero).
pub fn normal(n: [f32; 3]) -> [i16; 3] {
    n.map(|c| {
        if c.is_finite() {
            Q12::from_f32(c).to_bits()
        } else {
            0
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_extent_and_saturates_outliers() {
        let s = ModelSpace::fit(&[[0.0, 0.0, 0.0], [2.0, 1.0, 0.5], [f32::NAN, 0.0, 0.0]]);
        assert_eq!(s.origin, [1.0, 0.5, 0.25]);
        assert_eq!(s.scale, 4096.0);
        assert_eq!(s.position([2.0, 1.0, 0.5]), ([4096, 2048, 1024], false));
        assert!(s.position([100.0, 0.5, 0.25]).1);
        assert_eq!(normal([0.0, -1.0, f32::INFINITY]), [0, -4096, 0]);
    }

    #[test]
    fn a_lone_point_fits_as_one_model_unit() {
        // A mesh-less effect model frames on its emitter alone.
        let s = ModelSpace::fit(&[[0.5, 0.0, 2.0]]);
        assert_eq!((s.origin, s.scale), ([0.5, 0.0, 2.0], 4096.0));
    }
}
