// A bounded local load test of `psxrender serve`: CONCURRENCY clients on loopback send
// requests back to back for SECONDS (a mix of frame renders, capture pictures, histories and
// listings); every answer must be 200 or 503, and the server must still answer after. Prints
// the counts, and the server's peak resident memory when its PID is given.
// Usage: node load.mjs URL MODEL_SPEC CAPTURE_SPEC [CONCURRENCY=200] [SECONDS=10] [PID]
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [url, model, capture, c = '200', s = '10', pid] = process.argv.slice(2);
const concurrency = +c, seconds = +s;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const paths = [
  `/api/frame.png?path=${model}&frame=`,
  `/api/capture/vram.png?path=${capture}&after=`,
  `/api/capture/history?path=${capture}&x=160&y=120&after=`,
  '/api/files?n=',
];
const counts = {};
let errors = 0, peak = 0;
const rss = () => {
  if (!pid) return;
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m) peak = Math.max(peak, +m[1]);
};
const get = (path) => new Promise((resolve) => {
  const req = http.get(url.replace(/\/$/, '') + path, { agent }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode));
  });
  req.on('error', () => resolve('error'));
  req.setTimeout(30_000, () => { req.destroy(); resolve('timeout'); });
});
const end = Date.now() + seconds * 1000;
const timer = setInterval(rss, 200);
await Promise.all(Array.from({ length: concurrency }, async (_, k) => {
  let i = k;
  while (Date.now() < end) {
    const p = paths[i % paths.length] + (i % 20);
    const st = await get(p);
    counts[st] = (counts[st] || 0) + 1;
    if (st !== 200 && st !== 503) errors++;
    i += concurrency;
  }
}));
clearInterval(timer);
rss();
const after = await get('/api/files');
console.log(`answers by status: ${JSON.stringify(counts)}; other than 200/503: ${errors}; ` +
  `still serving after: ${after === 200}; peak RSS: ${peak ? `${(peak / 1024).toFixed(0)} MiB` : 'n/a'}`);
process.exit(errors || after !== 200 ? 1 : 0);
