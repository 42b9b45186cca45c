// The capture view: frames, the displayed picture, VRAM after any command, the command list,
// pixel history and comparisons with pictures.
import { getJson, getPicture } from './api.js';
import { loadInto, zoomImage, PixelView } from './pixels.js';

const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
};

export class CaptureView {
  constructor(status) {
    this.status = status;
    this.spec = null;
    this.frame = 0;
    this.after = null;   // commands of the frame run; null = all
    this.depth = 15;
    this.display = null; // the display area of the last picture
    this.loaded = 0;     // VRAM pictures shown (tests wait on it)
    this.histories = 0;  // histories shown (tests wait on it)
    this.vram = new PixelView($('c-vram'), {
      onPick: (p) => this.history(p),
      onZoom: (z) => { $('c-zoom').value = String(z); },
    });
    this.wire();
  }

  /** The current point as API parameters. */
  params(extra = {}) {
    return { path: this.spec, frame: this.frame, after: this.after ?? '', ...extra };
  }

  async open(spec) {
    this.status('opening the capture…');
    const facts = await getJson('/api/capture', { path: spec });
    this.spec = spec;
    this.facts = facts;
    this.frame = 0;
    $('c-summary').textContent = `${facts.shown}: ${facts.summary.split('\n')[0]} — ${facts.frames.length} frame(s)`;
    $('c-warnings').replaceChildren(...facts.warnings.map((w) => el('li', w)));
    const list = $('c-frames');
    list.replaceChildren(...facts.frames.map((f, i) => {
      const li = el('li');
      li.dataset.frame = String(i);
      const img = el('img');
      img.loading = 'lazy';
      img.alt = `frame ${i}`;
      if (i < 1000) img.src = `/api/capture/thumb.png?path=${encodeURIComponent(spec)}&frame=${i}`;
      li.append(img, el('span', f.stop === null ? `${i} (end)` : String(i)));
      li.addEventListener('click', () => this.showFrame(i));
      return li;
    }));
    $('c-compare-result').replaceChildren();
    $('c-diff').hidden = true;
    await this.showFrame(0);
    this.status(`${facts.shown}: ${facts.frames.length} frame(s)`);
  }

  async showFrame(i) {
    this.frame = i;
    this.after = null;
    for (const li of $('c-frames').children) li.classList.toggle('open', li.dataset.frame === String(i));
    const f = this.facts.frames[i];
    const scrub = $('c-scrub');
    scrub.max = String(f.commands);
    scrub.value = String(f.commands);
    $('c-scrub-n').textContent = `${f.commands} of ${f.commands}`;
    $('c-cmd-info').textContent = `${f.commands} in this frame (GP0 commands ${f.first_command} on)`;
    $('c-commands').replaceChildren();
    this.listed = 0;
    await Promise.all([this.loadCommands(), this.pictures()]);
  }

  async loadCommands() {
    const r = await getJson('/api/capture/commands', this.params({ from: this.listed }));
    const ol = $('c-commands');
    if (!this.listed) ol.start = 0;
    for (const c of r.commands) {
      const li = el('li', `${c.title}   [${c.at}, GP0 command ${c.index}]`);
      li.value = c.local;
      li.dataset.local = String(c.local);
      li.title = 'show VRAM after this command';
      li.addEventListener('click', () => this.scrubTo(c.local + 1));
      ol.append(li);
    }
    this.listed += r.commands.length;
    $('c-more').hidden = this.listed >= r.total;
    this.markCommands();
  }

  markCommands() {
    const n = this.after ?? Infinity;
    for (const li of $('c-commands').children) {
      const k = +li.dataset.local;
      li.className = k < n ? 'done' : 'pending';
      if (k === n - 1) li.classList.add('current');
    }
  }

  async scrubTo(n) {
    const total = this.facts.frames[this.frame].commands;
    this.after = n >= total ? null : n;
    $('c-scrub').value = String(n);
    $('c-scrub-n').textContent = `${Math.min(n, total)} of ${total}`;
    this.markCommands();
    await this.pictures();
  }

  /** The displayed picture and VRAM at the current point (latest request wins). */
  async pictures() {
    const token = (this.token = (this.token || 0) + 1);
    try {
      const [shown, vram] = await Promise.all([
        getPicture('/api/capture/display.png', this.params()),
        getPicture('/api/capture/vram.png', this.params({ depth: this.depth })),
      ]);
      if (token !== this.token) return;
      const img = $('c-display');
      await loadInto(img, shown.src);
      zoomImage(img, 1);
      const d = JSON.parse(shown.headers.get('x-psxrender-display') || 'null');
      this.display = d;
      if (d) {
        $('c-display-info').textContent = `${d.width}×${d.height} ${d.depth24 ? 24 : 15}-bit at (${d.x}, ${d.y})${d.enabled ? '' : ', display off'}`;
      }
      const bitmap = new Image();
      bitmap.src = vram.src;
      await bitmap.decode();
      if (token !== this.token) return;
      this.vram.outline = d && (this.depth === 24
        ? { x: Math.floor(d.x * 2 / 3), y: d.y, w: d.width, h: d.height }
        : { x: d.x, y: d.y, w: d.depth24 ? Math.ceil(d.width * 3 / 2) : d.width, h: d.height });
      const c = $('c-vram');
      if (c.width !== bitmap.width) c.width = bitmap.width;
      this.vram.show(bitmap);
      this.loaded++;
    } catch (e) {
      this.status(e.message, true);
    }
  }

  /** Shows the history of the VRAM pixel under a click (a halfword; in 24-bit view, the
   *  halfword holding the pixel's first byte). */
  async history(p) {
    const x = this.depth === 24 ? Math.floor(p.x * 3 / 2) : p.x;
    const y = p.y;
    this.vram.mark = { x: p.x, y: p.y };
    this.vram.draw();
    $('c-pixel').textContent = `(${x}, ${y})`;
    try {
      const h = await getJson('/api/capture/history', this.params({ x, y }));
      this.showHistory(h);
    } catch (e) {
      this.status(e.message, true);
    }
  }

  showHistory(h) {
    const n = h.events.length;
    $('c-history-title').textContent = `pixel (${h.x},${h.y}): ${n} command${n === 1 ? '' : 's'} touched it`;
    $('c-history-command').textContent = h.command || '(up to a command inside the frame: no single command line)';
    const body = $('c-history').tBodies[0];
    body.replaceChildren(...h.events.map((e) => {
      const tr = el('tr');
      const px = e.pixel;
      const colour = px ? `rgb (${px.rgb.join(',')})${px.uv ? ` uv (${px.uv.join(',')})` : ''} dither ${px.dither}` : '';
      let texel = px && px.texel ? px.texel : '';
      if (e.texel_source) {
        texel += e.texel_source.from === 'vram' ? ' from VRAM'
          : ` from the cache (filled by ${e.texel_source.filled_by ?? 'earlier'})`;
      }
      const cells = [String(e.command), e.at ?? `GP0 word ${e.word}`, e.title, colour, texel,
        `${e.before} → ${e.after} ${e.outcome}`];
      for (const c of cells) tr.append(el('td', c));
      tr.dataset.text = e.text;
      tr.title = e.text;
      return tr;
    }));
    const head = `pixel (${h.x},${h.y}): ${n} command${n === 1 ? '' : 's'} touched it\n`;
    $('c-history-text').textContent = head + h.events.map((e) => e.text).join('');
    this.histories++;
  }

  setPictures(list) {
    const sel = $('c-against');
    const keep = sel.value;
    sel.replaceChildren(...list.map((f) => {
      const o = el('option', `${f.name} (${f.kind === 'pictures' ? 'folder' : 'picture'})`);
      o.value = f.path;
      return o;
    }));
    if (keep) sel.value = keep;
  }

  offerPictures(spec) { $('c-against').value = spec; }

  async compare() {
    const against = $('c-against').value;
    if (!this.spec || !against) { this.status('open a capture and pick pictures first', true); return; }
    this.status('comparing…');
    try {
      const r = await getJson('/api/capture/compare', this.params({ after: '', against }));
      const s = r.summary;
      const out = $('c-compare-result');
      const first = s.first_differing_frame;
      const head = el('p', first === null
        ? `equal: ${s.compared} frame(s) compared, no differing frame`
        : `first differing frame: ${first} — ${s.compared} compared, ${s.equal} equal, ${s.compared - s.equal} differing, ${s.unpaired} only on one side`);
      head.id = 'c-first-difference';
      const table = el('table');
      for (const f of r.frames) {
        const tr = el('tr', undefined, `diffrow ${f.outcome}`);
        tr.append(el('td', String(f.frame)), el('td', f.outcome),
          el('td', f.differing !== undefined ? `${f.differing} pixels differ, largest channel error ${f.max_channel_error}` : ''));
        tr.addEventListener('click', () => this.showDiff(f.frame, against));
        table.append(tr);
      }
      out.replaceChildren(head, table);
      if (first !== null && first < this.facts.frames.length) await this.showDiff(first, against);
      this.status('compared');
    } catch (e) {
      this.status(`compare: ${e.message}`, true);
    }
  }

  async showDiff(frame, against) {
    try {
      const { src } = await getPicture('/api/capture/diff.png', { path: this.spec, frame, against });
      const img = $('c-diff');
      img.hidden = false;
      await loadInto(img, src);
      zoomImage(img, 1);
    } catch (e) {
      this.status(`difference of frame ${frame}: ${e.message}`, true);
    }
  }

  wire() {
    $('c-scrub').addEventListener('input', (e) => this.scrubTo(+e.target.value));
    $('c-more').addEventListener('click', () => this.loadCommands());
    for (const r of document.querySelectorAll('input[name="c-depth"]')) {
      r.addEventListener('change', () => { this.depth = +r.value; this.vram.setZoom(1); this.pictures(); });
    }
    $('c-zoom').addEventListener('change', (e) => this.vram.setZoom(+e.target.value));
    $('c-compare').addEventListener('click', () => this.compare());
  }
}
