// Pictures shown as the console shows them: whole-number zoom, no smoothing.

/** Shows `img` at `zoom` × its natural size (CSS pixels), pixelated. */
export function zoomImage(img, zoom) {
  const apply = () => {
    img.style.width = `${img.naturalWidth * zoom}px`;
    img.style.height = `${img.naturalHeight * zoom}px`;
  };
  if (img.complete && img.naturalWidth) apply();
  img.onload = apply;
}

/** Loads `src` into `img`; resolves once decoded (the old picture stays until then). */
export function loadInto(img, src) {
  return new Promise((resolve, reject) => {
    const next = new Image();
    next.onload = () => {
      const old = img.src;
      img.src = src;
      img.decode().catch(() => {}).then(() => {
        if (old.startsWith('blob:')) URL.revokeObjectURL(old);
        resolve();
      });
    };
    next.onerror = () => reject(new Error('the picture could not be decoded'));
    next.src = src;
  });
}

/**
 * A canvas showing a picture with pan (drag) and whole-number zoom (wheel), an outlined
 * rectangle, and clicks reported in picture pixels.
 */
export class PixelView {
  constructor(canvas, { onPick, onZoom } = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.image = null;
    this.zoom = 1;
    this.x0 = 0; this.y0 = 0; // picture pixel at the canvas's top left
    this.outline = null;
    this.onPick = onPick;
    this.onZoom = onZoom;
    let drag = null;
    canvas.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, x0: this.x0, y0: this.y0, moved: false };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const s = this.scale();
      const dx = (e.clientX - drag.x) / s, dy = (e.clientY - drag.y) / s;
      if (Math.abs(dx) + Math.abs(dy) > 2 / s) drag.moved = true;
      this.x0 = drag.x0 - dx; this.y0 = drag.y0 - dy;
      this.draw();
    });
    canvas.addEventListener('pointerup', (e) => {
      const d = drag; drag = null;
      if (d && !d.moved) {
        const p = this.pick(e);
        if (p) this.onPick?.(p);
      }
    });
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      const steps = [1, 2, 4, 8, 16];
      const i = steps.indexOf(this.zoom);
      const next = steps[Math.max(0, Math.min(steps.length - 1, i + (e.deltaY < 0 ? 1 : -1)))];
      this.setZoom(next, this.pick(e));
      this.onZoom?.(next);
    }, { passive: false });
  }

  /** Canvas pixels per CSS pixel (the canvas may be shown smaller than it is). */
  scale() {
    const r = this.canvas.getBoundingClientRect();
    return r.width ? r.width / this.canvas.width * this.zoom : this.zoom;
  }

  /** The picture pixel under a mouse event, or null. */
  pick(e) {
    if (!this.image) return null;
    const r = this.canvas.getBoundingClientRect();
    const cx = (e.clientX - r.left) * this.canvas.width / r.width;
    const cy = (e.clientY - r.top) * this.canvas.height / r.height;
    const x = Math.floor(this.x0 + cx / this.zoom), y = Math.floor(this.y0 + cy / this.zoom);
    if (x < 0 || y < 0 || x >= this.image.width || y >= this.image.height) return null;
    return { x, y };
  }

  /** Zooms, keeping `at` (a picture pixel) where it is, or the centre. */
  setZoom(zoom, at) {
    const cw = this.canvas.width, ch = this.canvas.height;
    const ax = at ? at.x : this.x0 + cw / this.zoom / 2, ay = at ? at.y : this.y0 + ch / this.zoom / 2;
    const fx = (ax - this.x0) * this.zoom / cw, fy = (ay - this.y0) * this.zoom / ch;
    this.zoom = zoom;
    this.x0 = ax - fx * cw / zoom; this.y0 = ay - fy * ch / zoom;
    if (zoom === 1) { this.x0 = 0; this.y0 = 0; }
    this.draw();
  }

  /** Shows `image` (an ImageBitmap or decoded Image). */
  show(image) { this.image = image; this.draw(); }

  draw() {
    const { ctx, canvas } = this;
    ctx.imageSmoothingEnabled = false;
    ctx.fillStyle = '#000';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    if (!this.image) return;
    ctx.save();
    ctx.scale(this.zoom, this.zoom);
    ctx.translate(-this.x0, -this.y0);
    ctx.drawImage(this.image, 0, 0);
    if (this.outline) {
      const o = this.outline;
      ctx.strokeStyle = '#ff3';
      ctx.lineWidth = 1 / this.zoom;
      ctx.strokeRect(o.x, o.y, o.w, o.h);
    }
    if (this.mark) {
      ctx.strokeStyle = '#f0f';
      ctx.lineWidth = 2 / this.zoom;
      ctx.strokeRect(this.mark.x, this.mark.y, 1, 1);
    }
    ctx.restore();
  }
}
