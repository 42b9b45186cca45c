// The JSON API of `psxrender serve` (docs/serve.md), as the page uses it.

/** A failed request: the server's message. */
export class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

/** `path` with `params` as its query string (empty values left out). */
export function url(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

async function check(r) {
  if (r.ok) return r;
  let message = `${r.status} ${r.statusText}`;
  try { message = (await r.json()).error || message; } catch { /* not JSON */ }
  throw new ApiError(r.status, message);
}

/** GET a JSON answer. */
export async function getJson(path, params, signal) {
  return (await check(await fetch(url(path, params), { signal }))).json();
}

/** POST, JSON answer. */
export async function postJson(path, params, body) {
  const r = await fetch(url(path, params), { method: 'POST', body });
  return (await check(r)).json();
}

/** GET a picture: its bytes as an object URL, and the answer's headers. */
export async function getPicture(path, params, signal) {
  const r = await check(await fetch(url(path, params), { signal }));
  const blob = await r.blob();
  return { src: URL.createObjectURL(blob), headers: r.headers };
}

/** Uploads dropped files as one batch (so a model finds its textures); their specs. */
export async function upload(files, onProgress) {
  const { batch } = await postJson('/api/upload/batch');
  const specs = [];
  let n = 0;
  for (const f of files) {
    onProgress?.(`uploading ${f.name} (${++n}/${files.length})`);
    const r = await postJson('/api/upload', { batch, name: f.name }, f);
    specs.push(r.path);
  }
  return specs;
}
