//! A texture's pixels, decoded when the loader read the file or on first use.
//!
//! A loader that knows a texture file's facts from the texture cache (its size and whether any
//! texel is translucent, recorded the first time the file was decoded) hands out the texture
//! undecoded: when every encoding the renderer asks for is in the cache too, the file is never
//! decoded at all. Anything that looks at the pixels decodes them then, once, for everyone
//! sharing the image.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};

use super::RgbaImage;

/// What names a texture's source: a hash of the file's bytes, how the loader decodes them, and
/// the program's version. Equal ids decode to equal pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceId(pub u128);

/// Decodes a texture's pixels; called at most once.
type Decode = Box<dyn FnOnce() -> RgbaImage + Send>;

struct Inner {
    pixels: OnceLock<Arc<RgbaImage>>,
    /// Until first use, for a lazily decoded image.
    decode: Mutex<Option<Decode>>,
    size: [u32; 2],
    source: Option<SourceId>,
}

/// A texture's pixels, shared: clones are the same image, decoded (if it is lazy) once for all
/// of them. Dereferences to the decoded [`RgbaImage`].
#[derive(Clone)]
pub struct TextureImage(Arc<Inner>);

impl TextureImage {
    /// Pixels already decoded, from a `source` when the loader knows it.
    pub fn decoded(image: Arc<RgbaImage>, source: Option<SourceId>) -> TextureImage {
        TextureImage(Arc::new(Inner {
            size: [image.width, image.height],
            pixels: OnceLock::from(image),
            decode: Mutex::new(None),
            source,
        }))
    }

    /// An image of `size` from `source`, decoded by `decode` on first use. `decode` must give
    /// an image of that size: one of another size is replaced by a magenta one of the right
    /// size, so that nothing downstream indexes past the pixels it was promised.
    pub fn lazy(
        source: SourceId,
        size: [u32; 2],
        decode: impl FnOnce() -> RgbaImage + Send + 'static,
    ) -> TextureImage {
        TextureImage(Arc::new(Inner {
            pixels: OnceLock::new(),
            decode: Mutex::new(Some(Box::new(decode))),
            size,
            source: Some(source),
        }))
    }

    /// What the pixels were decoded from, when the loader said.
    pub fn source(&self) -> Option<SourceId> {
        self.0.source
    }

    /// Width and height, without decoding.
    pub fn size(&self) -> [u32; 2] {
        self.0.size
    }

    /// What tells this image (and its clones) from every other: an address.
    pub fn as_ptr(&self) -> *const () {
        Arc::as_ptr(&self.0).cast()
    }

    /// Whether the pixels have been decoded (always, for an image that was not lazy).
    pub fn is_decoded(&self) -> bool {
        self.0.pixels.get().is_some()
    }

    /// The pixels, decoded now if they were not yet.
    pub fn image(&self) -> &Arc<RgbaImage> {
        self.0.pixels.get_or_init(|| {
            // The lock is only held to take the closure; a poisoned lock still holds it.
            let decode = match self.0.decode.lock() {
                Ok(mut d) => d.take(),
                Err(poisoned) => poisoned.into_inner().take(),
            };
            let [width, height] = self.0.size;
            Arc::new(match decode.map(|d| d()) {
                Some(img) if img.width == width && img.height == height => img,
                _ => RgbaImage {
                    width,
                    height,
                    pixels: vec![[255, 0, 255, 255]; width as usize * height as usize],
                },
            })
        })
    }
}

impl Deref for TextureImage {
    type Target = RgbaImage;

    fn deref(&self) -> &RgbaImage {
        self.image()
    }
}

impl From<RgbaImage> for TextureImage {
    fn from(image: RgbaImage) -> TextureImage {
        TextureImage::decoded(Arc::new(image), None)
    }
}

impl From<Arc<RgbaImage>> for TextureImage {
    fn from(image: Arc<RgbaImage>) -> TextureImage {
        TextureImage::decoded(image, None)
    }
}

/// Two images are equal when they are the same image or their pixels are equal (which decodes
/// both).
impl PartialEq for TextureImage {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.image() == other.image()
    }
}

impl fmt::Debug for TextureImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [w, h] = self.0.size;
        f.debug_struct("TextureImage")
            .field("size", &format_args!("{w}x{h}"))
            .field("source", &self.0.source)
            .field("decoded", &self.is_decoded())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn img(w: u32, h: u32) -> RgbaImage {
        RgbaImage {
            width: w,
            height: h,
            pixels: vec![[1, 2, 3, 4]; (w * h) as usize],
        }
    }

    #[test]
    fn a_lazy_image_is_decoded_once_on_first_use_for_every_clone() {
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        let a = TextureImage::lazy(SourceId(7), [2, 3], || {
            CALLS.fetch_add(1, Ordering::Relaxed);
            img(2, 3)
        });
        let b = a.clone();
        assert_eq!((a.size(), a.source()), ([2, 3], Some(SourceId(7))));
        assert!(!a.is_decoded() && CALLS.load(Ordering::Relaxed) == 0);
        assert_eq!(b.pixels.len(), 6);
        assert_eq!(a.width, 2);
        assert!(a.is_decoded());
        assert_eq!(CALLS.load(Ordering::Relaxed), 1);
        assert_eq!(a, TextureImage::from(img(2, 3)));
    }

    #[test]
    fn a_decoder_giving_another_size_gives_a_magenta_image_of_the_promised_size() {
        let a = TextureImage::lazy(SourceId(1), [4, 2], || img(3, 3));
        assert_eq!((a.width, a.height, a.pixels.len()), (4, 2, 8));
        assert!(a.pixels.iter().all(|p| *p == [255, 0, 255, 255]));
    }
}
