// The model view: one picture at a time from /api/frame.png, the command line that makes it,
// and saves written by the render command itself.
import { getJson, getPicture, postJson, url } from './api.js';
import { loadInto, zoomImage } from './pixels.js';

const $ = (id) => document.getElementById(id);
const decodeCommand = (h) => (h ? decodeURIComponent(h.replace(/\+/g, ' ')) : '');

export class ModelView {
  constructor(status) {
    this.status = status;
    this.spec = null;
    this.facts = null;
    this.busy = false;   // a picture is being fetched
    this.again = false;  // settings changed meanwhile: fetch once more after
    this.playing = false;
    this.rendered = 0;   // pictures shown (tests wait on it)
    this.wire();
  }

  /** The picture's settings as the API's query parameters. */
  params() {
    const p = {
      path: this.spec,
      anim: this.anim,
      frame: this.frame,
      size: $('m-size').value,
      bg: $('m-bg-none').checked ? 'none' : $('m-bg').value.slice(1),
      effects: $('m-effects').checked ? 'on' : 'off',
      dither: $('m-dither').checked ? 'on' : 'off',
    };
    if (this.yaw !== this.facts.yaw || this.pitch !== this.facts.pitch) {
      p.yaw = +this.yaw.toFixed(2);
      p.pitch = +this.pitch.toFixed(2);
    }
    if (this.distance) p.distance = +this.distance.toPrecision(6);
    return p;
  }

  async open(spec) {
    this.status('loading the model…');
    const facts = await getJson('/api/model', { path: spec });
    this.spec = spec;
    this.facts = facts;
    const sel = $('m-anim');
    sel.replaceChildren();
    facts.animations.forEach((a, i) => {
      const o = document.createElement('option');
      o.value = i;
      o.textContent = `${i}: ${a.name} (${a.frames} frames)`;
      sel.append(o);
    });
    if (!facts.animations.length) {
      const o = document.createElement('option');
      o.textContent = '(no animations: rest pose)';
      sel.append(o);
    }
    this.anim = facts.default_animation ?? '';
    if (this.anim !== '') sel.value = String(this.anim);
    const size = $('m-size');
    if (!size.options.length) {
      for (const h of facts.sizes.heights) for (const w of facts.sizes.widths) {
        const o = document.createElement('option');
        o.textContent = `${w}x${h}`;
        if (w === 320 && h === 240) o.selected = true;
        size.append(o);
      }
    }
    this.resetView();
    this.setFrames();
    const warn = $('m-warnings');
    warn.replaceChildren(...[...facts.warnings, ...facts.notes].map((w) => {
      const li = document.createElement('li');
      li.textContent = w;
      return li;
    }));
    this.status(`${facts.shown}: ${facts.format}, ${facts.animations.length} animations`);
    await this.render();
  }

  resetView() {
    this.yaw = this.facts.yaw;
    this.pitch = this.facts.pitch;
    this.distance = null;
  }

  /** The frame slider for the current animation. */
  setFrames() {
    const a = this.facts.animations[this.anim];
    const n = a ? Math.max(1, a.frames) : 1;
    const slider = $('m-frame');
    slider.max = String(n - 1);
    this.frame = Math.min(this.frame ?? 0, n - 1);
    slider.value = String(this.frame);
    $('m-frame-n').textContent = String(this.frame);
    $('m-range').value = `0..${n}`;
  }

  /** Fetches and shows the picture for the current settings (latest settings win). */
  async render() {
    if (!this.spec) return;
    if (this.busy) { this.again = true; return this.pending; }
    this.busy = true;
    this.pending = (async () => {
      try {
        do {
          this.again = false;
          const t0 = performance.now();
          const { src, headers } = await getPicture('/api/frame.png', this.params());
          const img = $('m-picture');
          await loadInto(img, src);
          zoomImage(img, +$('m-zoom').value);
          const cmd = decodeCommand(headers.get('x-psxrender-command'));
          $('m-command').textContent = cmd;
          img.dataset.frame = String(this.frame);
          img.dataset.command = cmd;
          const d = parseFloat(headers.get('x-psxrender-distance'));
          if (d > 0) this.fitted = d;
          this.lastMs = performance.now() - t0;
          $('m-stats').textContent = `${headers.get('x-psxrender-stats') || ''}; ${this.lastMs.toFixed(0)} ms round trip`;
          this.rendered++;
        } while (this.again);
      } catch (e) {
        this.status(e.message, true);
        this.playing = false;
        $('m-play').setAttribute('aria-pressed', 'false');
      } finally {
        this.busy = false;
      }
    })();
    return this.pending;
  }

  async play() {
    const fps = this.facts.fps || 30;
    while (this.playing) {
      const t0 = performance.now();
      const max = +$('m-frame').max;
      this.frame = this.frame >= max ? 0 : this.frame + 1;
      $('m-frame').value = String(this.frame);
      $('m-frame-n').textContent = String(this.frame);
      await this.render();
      const wait = 1000 / fps - (performance.now() - t0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }

  async save(kind) {
    const p = { ...this.params(), kind };
    if (kind !== 'png') p.frames = $('m-range').value.trim();
    if (kind === 'sheet') { p.sheet = 'auto'; p.yaw_steps = $('m-yaw-steps').value; }
    $('m-job').hidden = false;
    $('m-job-files').replaceChildren();
    try {
      const { job, command } = await postJson('/api/save', p);
      $('m-job-command').textContent = command;
      for (;;) {
        const s = await getJson(`/api/jobs/${job}`);
        $('m-progress').value = s.estimated_fraction;
        $('m-job-text').textContent = s.state === 'running'
          ? `rendering ${s.frames} frame(s): ${s.elapsed_s.toFixed(1)} s (about ${Math.round(s.estimated_fraction * 100)}%)`
          : s.state === 'done' ? `done in ${s.seconds.toFixed(1)} s` : `failed: ${s.error}`;
        if (s.state === 'done') {
          $('m-job-files').replaceChildren(...s.files.map((f) => {
            const li = document.createElement('li');
            const a = document.createElement('a');
            a.href = url(`/api/jobs/${job}/${encodeURIComponent(f)}`);
            a.download = f;
            a.textContent = `download ${f}`;
            li.append(a);
            return li;
          }));
          $('m-job-files').querySelector('a')?.click();
        }
        if (s.state !== 'running') break;
        await new Promise((r) => setTimeout(r, 250));
      }
    } catch (e) {
      $('m-job-text').textContent = `not saved: ${e.message}`;
    }
  }

  wire() {
    const rerender = () => this.render();
    $('m-anim').addEventListener('change', (e) => {
      this.anim = +e.target.value;
      this.frame = 0;
      this.setFrames();
      rerender();
    });
    $('m-frame').addEventListener('input', (e) => {
      this.frame = +e.target.value;
      $('m-frame-n').textContent = String(this.frame);
      rerender();
    });
    $('m-play').addEventListener('click', (e) => {
      this.playing = !this.playing;
      e.target.setAttribute('aria-pressed', String(this.playing));
      if (this.playing) this.play();
    });
    const step = (dy, dp) => () => {
      this.yaw += dy;
      this.pitch = Math.max(-89, Math.min(89, this.pitch + dp));
      rerender();
    };
    $('m-yaw-minus').addEventListener('click', step(-15, 0));
    $('m-yaw-plus').addEventListener('click', step(15, 0));
    $('m-pitch-minus').addEventListener('click', step(0, -15));
    $('m-pitch-plus').addEventListener('click', step(0, 15));
    $('m-reset').addEventListener('click', () => { this.resetView(); rerender(); });
    for (const id of ['m-effects', 'm-dither', 'm-size', 'm-bg', 'm-bg-none']) {
      $(id).addEventListener('change', rerender);
    }
    $('m-zoom').addEventListener('change', () => zoomImage($('m-picture'), +$('m-zoom').value));
    $('m-copy').addEventListener('click', () => navigator.clipboard?.writeText($('m-command').textContent));
    $('m-save-png').addEventListener('click', () => this.save('png'));
    $('m-save-gif').addEventListener('click', () => this.save('gif'));
    $('m-save-sheet').addEventListener('click', () => this.save('sheet'));
    const img = $('m-picture');
    let drag = null;
    img.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, yaw: this.yaw, pitch: this.pitch };
      img.setPointerCapture(e.pointerId);
    });
    img.addEventListener('pointermove', (e) => {
      if (!drag || !this.facts) return;
      this.yaw = drag.yaw + (e.clientX - drag.x) * 0.5;
      this.pitch = Math.max(-89, Math.min(89, drag.pitch + (e.clientY - drag.y) * 0.5));
      rerender();
    });
    img.addEventListener('pointerup', () => { drag = null; });
    img.addEventListener('wheel', (e) => {
      if (!this.facts) return;
      e.preventDefault();
      const base = this.distance || this.fitted;
      if (!base) return;
      this.distance = base * (e.deltaY > 0 ? 1.1 : 1 / 1.1);
      rerender();
    }, { passive: false });
  }
}
