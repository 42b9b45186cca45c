// Browser tests of `psxrender serve` and `compare --html`, in Debian's Chromium driven by
// playwright-core. Run by tests/serve_browser.rs, which makes the expected files with the
// CLI, starts the server and passes everything in the JSON file named by
// PSXRENDER_BROWSER_CONFIG. Prints one line per check and closes with `N passed, N failed`.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const cfg = JSON.parse(readFileSync(process.env.PSXRENDER_BROWSER_CONFIG, 'utf8'));
let passed = 0, failed = 0;
function check(ok, what, detail = '') {
  if (ok) { passed++; console.log(`ok - ${what}`); }
  else { failed++; console.log(`not ok - ${what}${detail ? `: ${detail}` : ''}`); }
}

const profile = mkdtempSync(join(tmpdir(), 'psxrender-chromium-'));
// A fresh profile (--user-data-dir, which playwright passes for a persistent context).
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: cfg.chromium || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1500, height: 1100 },
});
const page = browser.pages()[0] || await browser.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));

/** Pixel differences between the <img> `selector` and the PNG file `png`, decoded alike. */
async function differences(selector, png) {
  const data = `data:image/png;base64,${readFileSync(png).toString('base64')}`;
  return page.evaluate(async ([sel, data]) => {
    const pixels = async (img) => {
      await img.decode();
      const c = new OffscreenCanvas(img.naturalWidth, img.naturalHeight);
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      return g.getImageData(0, 0, c.width, c.height);
    };
    const want = new Image();
    want.src = data;
    const [a, b] = [await pixels(document.querySelector(sel)), await pixels(want)];
    if (a.width !== b.width || a.height !== b.height) return `size ${a.width}x${a.height} vs ${b.width}x${b.height}`;
    let bad = 0;
    for (let i = 0; i < a.data.length; i++) if (a.data[i] !== b.data[i]) bad++;
    return bad;
  }, [selector, data]);
}

const waitFor = (fn, arg) => page.waitForFunction(fn, arg, { timeout: 60_000 });

try {
  // The model view: Rabbit2 at frame 10 is `psxrender Rabbit2.m2 --frame 10`'s PNG.
  await page.goto(cfg.url);
  await page.waitForSelector(`#file-list li[data-path="${cfg.model}"]`);
  await page.click(`#file-list li[data-path="${cfg.model}"]`);
  await waitFor(() => window.psxrender.model.rendered >= 1 && !window.psxrender.model.busy);
  await page.$eval('#m-frame', (el) => { el.value = '10'; el.dispatchEvent(new Event('input')); });
  await waitFor(() => document.querySelector('#m-picture').dataset.frame === '10' && !window.psxrender.model.busy);
  const d10 = await differences('#m-picture', cfg.frame10);
  check(d10 === 0, 'the page shows exactly the pixels of `psxrender Rabbit2.m2 --frame 10`', `${d10} channel values differ`);
  const cmd = await page.textContent('#m-command');
  check(/^psxrender \S*Rabbit2\.m2 --frame=10$/.test(cmd), 'the page shows the command line', cmd);
  await page.screenshot({ path: join(cfg.shots, 'serve-model.png') });

  // Moving the slider (keyboard, as a user would) shows the next frame's picture.
  await page.focus('#m-frame');
  await page.keyboard.press('ArrowRight');
  await waitFor(() => document.querySelector('#m-picture').dataset.frame === '11' && !window.psxrender.model.busy);
  const d11 = await differences('#m-picture', cfg.frame11);
  check(d11 === 0, 'after moving the slider the picture is frame 11\'s', `${d11} channel values differ`);
  const d11vs10 = await differences('#m-picture', cfg.frame10);
  check(d11vs10 > 0, 'and it differs from frame 10\'s', `${d11vs10}`);

  // The capture view: a reference frame dump, a click on a VRAM pixel, its history.
  await page.click(`#file-list li[data-path="${cfg.capture}"]`);
  await waitFor(() => window.psxrender.capture.loaded >= 1);
  const box = await page.locator('#c-vram').boundingBox();
  const [x, y] = cfg.pixel;
  await page.mouse.click(box.x + (x + 0.5) * box.width / 1024, box.y + (y + 0.5) * box.height / 512);
  await waitFor(() => window.psxrender.capture.histories >= 1);
  const shown = await page.textContent('#c-history-text');
  const want = readFileSync(cfg.history, 'utf8');
  check(shown === want, `clicking VRAM pixel (${x},${y}) shows the entries \`replay --history ${x},${y}\` prints`,
    `page:\n${shown.slice(0, 400)}\ncli:\n${want.slice(0, 400)}`);
  const rows = await page.locator('#c-history tbody tr').count();
  const events = (want.match(/^ {2}command /gm) || []).length;
  check(rows === events && rows > 1, `the history table has a row per entry (${rows})`);
  await page.locator('#c-history').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(cfg.shots, 'serve-capture.png') });

  // The static compare report opens from disk and names the first differing frame.
  await page.goto(`file://${cfg.report}`);
  const first = await page.textContent('#first-difference');
  check(first.trim() === `first differing frame: ${cfg.first_difference}`, 'the HTML report names the first differing frame', first);
  await page.screenshot({ path: join(cfg.shots, 'compare-report.png'), fullPage: true });
  check(errors.length === 0, 'no script errors in the page', errors.join('; '));
} catch (e) {
  check(false, 'the browser session ran to the end', e.stack || String(e));
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
