// The page: file list, the two views, drag and drop.
import { getJson, upload } from './api.js';
import { ModelView } from './model.js';
import { CaptureView } from './capture.js';

const $ = (id) => document.getElementById(id);

/** One line of status: what is happening, or what went wrong (in red). */
export function status(text, error = false) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', error);
}

let files = [];
const model = new ModelView(status);
const capture = new CaptureView(status);

function show(view) {
  for (const v of ['model', 'capture']) {
    $(`view-${v}`).hidden = v !== view;
    $(`tab-${v}`).setAttribute('aria-selected', String(v === view));
  }
}

async function open(spec) {
  const f = files.find((x) => x.path === spec);
  if (!f) return;
  for (const li of document.querySelectorAll('#file-list li')) {
    li.classList.toggle('open', li.dataset.path === spec);
  }
  try {
    if (f.kind === 'model') { show('model'); await model.open(f.path); }
    else if (f.kind === 'capture') { show('capture'); await capture.open(f.path); }
    else { show('capture'); capture.offerPictures(f.path); status(`${f.name}: pick it under "Compare with pictures"`); }
    history.replaceState(null, '', `#${encodeURIComponent(spec)}`);
  } catch (e) {
    status(`${f.name}: ${e.message}`, true);
  }
}

async function refresh() {
  const list = await getJson('/api/files');
  files = list.files;
  const ul = $('file-list');
  const filter = $('file-filter').value.toLowerCase();
  ul.replaceChildren();
  for (const f of files) {
    if (filter && !f.name.toLowerCase().includes(filter)) continue;
    const li = document.createElement('li');
    li.dataset.path = f.path;
    li.textContent = f.name;
    const k = document.createElement('span');
    k.className = 'kind';
    k.textContent = f.kind;
    li.append(k);
    li.addEventListener('click', () => open(f.path));
    ul.append(li);
  }
  $('file-more').textContent = list.not_listed ? `${list.not_listed} more files not listed` : '';
  capture.setPictures(files.filter((f) => f.kind === 'picture' || f.kind === 'pictures'));
  return files;
}

for (const b of document.querySelectorAll('nav button')) {
  b.addEventListener('click', () => show(b.dataset.view));
}
$('file-filter').addEventListener('input', refresh);

// Drag and drop: every dropped file goes up in one batch; the first model or capture opens.
let depth = 0;
addEventListener('dragenter', (e) => { e.preventDefault(); depth++; $('drop').hidden = false; });
addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; $('drop').hidden = true; } });
addEventListener('dragover', (e) => e.preventDefault());
addEventListener('drop', async (e) => {
  e.preventDefault();
  depth = 0;
  $('drop').hidden = true;
  const dropped = [...(e.dataTransfer?.files || [])];
  if (!dropped.length) return;
  try {
    const specs = await upload(dropped, status);
    await refresh();
    const first = files.find((f) => specs.includes(f.path) && f.kind !== 'picture')
      || files.find((f) => specs.includes(f.path));
    status(`uploaded ${specs.length} file(s)`);
    if (first) await open(first.path);
  } catch (err) {
    status(`upload: ${err.message}`, true);
  }
});

refresh().then(() => {
  const want = decodeURIComponent(location.hash.slice(1));
  if (want) open(want);
  else status(`${files.length} files; pick one`);
}).catch((e) => status(e.message, true));

// For scripts and tests: open a file by its spec.
window.psxrender = { open, refresh, model, capture };
