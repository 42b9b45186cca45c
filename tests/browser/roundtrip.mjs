// Measures the frame round trip of `psxrender serve` as a user scrubbing sees it: from the
// request to the PNG shown in the page (fetch, decode, display), for Rabbit2 at 320x240,
// stepping the frame slider. Not a test: a measurement (docs/perf.md has the figures).
// Usage: node roundtrip.mjs URL MODEL_SPEC [STEPS]   (a server already running: use a release
// build, `psxrender serve ../shared/samples/m2 --port 0`)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [url, spec, stepsArg] = process.argv.slice(2);
const steps = +(stepsArg || 60);
const profile = mkdtempSync(join(tmpdir(), 'psxrender-chromium-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = browser.pages()[0] || await browser.newPage();
await page.goto(url);
await page.waitForSelector(`#file-list li[data-path="${spec}"]`);
await page.click(`#file-list li[data-path="${spec}"]`);
await page.waitForFunction(() => window.psxrender.model.rendered >= 1 && !window.psxrender.model.busy);
const times = await page.evaluate(async (steps) => {
  const m = window.psxrender.model;
  const slider = document.querySelector('#m-frame');
  const out = [];
  for (let i = 0; i < steps; i++) {
    slider.value = String((i + 1) % (+slider.max + 1));
    slider.dispatchEvent(new Event('input'));
    await m.pending;
    out.push(m.lastMs);
  }
  return out;
}, steps);
await browser.close();
rmSync(profile, { recursive: true, force: true });
times.sort((a, b) => a - b);
const q = (f) => times[Math.min(times.length - 1, Math.floor(f * times.length))];
console.log(`${times.length} frames: median ${q(0.5).toFixed(1)} ms, min ${times[0].toFixed(1)} ms, p90 ${q(0.9).toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms`);
