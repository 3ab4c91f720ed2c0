// SPDX-License-Identifier: Apache-2.0
// gradyn view in headless Chromium: the page of a falling red ball on a grey plane loads without
// console errors, screenshots of two frames show the ball where the trajectory puts it (pixel
// colours at its projected centre), the slider scrubs, play/pause run and stop the frames, and
// a page with every geom type draws each. Node's standard library only: Chromium is driven
// through the DevTools protocol over a pipe (--remote-debugging-pipe), PNGs decoded with zlib.
// usage: node test_viewer_browser.mjs GRADYN_PROGRAM SOURCE_DIR SCRATCH_DIR
// Exit 0 when every check passed, 1 when one failed, 77 (ctest: skipped) when there is no
// Chromium or the program was built without the viewer's player; the reason is printed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';

const SKIP = 77;
const [gradyn, sourceDir, scratchArg] = process.argv.slice(2);
if (!gradyn || !sourceDir || !scratchArg) {
  console.error('usage: node test_viewer_browser.mjs GRADYN_PROGRAM SOURCE_DIR SCRATCH_DIR');
  process.exit(2);
}
const scratch = resolve(scratchArg);
let passed = 0, failed = 0;

// one named check: counted, printed when it fails
function check(ok, what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL: ${what}`);
  }
  return ok;
}

// end with the counts line the test scripts sum
function finish(code) {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(code !== undefined ? code : failed ? 1 : 0);
}

function skip(reason) {
  console.log(`test_viewer_browser: SKIPPED: ${reason}`);
  process.exit(SKIP);
}

// the Chromium program: $GDN_CHROMIUM, else chromium on PATH or in /usr/bin
function findChromium() {
  if (process.env.GDN_CHROMIUM) {
    return process.env.GDN_CHROMIUM;
  }
  for (const dir of (process.env.PATH || '').split(':').concat(['/usr/bin'])) {
    for (const name of ['chromium', 'chromium-browser']) {
      const path = join(dir, name);
      if (dir && existsSync(path)) {
        return path;
      }
    }
  }
  return null;
}

// ---------------------------------------------------------------- PNG decoding

// the RGBA pixels of a PNG (8-bit RGB or RGBA, not interlaced): {width, height, pixel(x, y)}
function decodePng(buffer) {
  let offset = 8, width = 0, height = 0, colorType = 0;
  const idat = [];
  while (offset < buffer.length) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('latin1', offset + 4, offset + 8);
    const data = buffer.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || (data[9] !== 2 && data[9] !== 6) || data[12] !== 0) {
        throw new Error(`PNG: unsupported format (depth ${data[8]}, colour type ${data[9]})`);
      }
      colorType = data[9];
    } else if (type === 'IDAT') {
      idat.push(data);
    }
    offset += 12 + length;
  }
  const bpp = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(height * stride);
  // undo the per-row filters (none, sub, up, average, Paeth)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? out[y * stride + i - bpp] : 0;
      const b = y > 0 ? out[(y - 1) * stride + i] : 0;
      const c = i >= bpp && y > 0 ? out[(y - 1) * stride + i - bpp] : 0;
      let predictor = 0;
      if (filter === 1) {
        predictor = a;
      } else if (filter === 2) {
        predictor = b;
      } else if (filter === 3) {
        predictor = (a + b) >> 1;
      } else if (filter === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[y * stride + i] = (row[i] + predictor) & 255;
    }
  }
  return {
    width,
    height,
    pixel(x, y) {
      const k = Math.round(y) * stride + Math.round(x) * bpp;
      return [out[k], out[k + 1], out[k + 2]];
    },
  };
}

// ---------------------------------------------------------------- DevTools protocol over a pipe

// a Chromium started with --remote-debugging-pipe: send(method, params, session) -> result;
// events go to onEvent(message)
function startBrowser(chromium, profile) {
  const args = ['--headless', '--no-sandbox', '--remote-debugging-pipe', '--no-first-run',
                '--no-default-browser-check', '--disable-extensions', '--mute-audio',
                '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
                `--user-data-dir=${profile}`, '--window-size=800,600', 'about:blank'];
  const child = spawn(chromium, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const toBrowser = child.stdio[3], fromBrowser = child.stdio[4];
  const pending = new Map();
  let nextId = 1, buffered = Buffer.alloc(0);
  const browser = { child, onEvent: () => {}, stderr: () => stderr };
  fromBrowser.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    let end;
    while ((end = buffered.indexOf(0)) >= 0) {
      const message = JSON.parse(buffered.toString('utf8', 0, end));
      buffered = buffered.subarray(end + 1);
      if (message.id !== undefined && pending.has(message.id)) {
        const { resolve: done, reject } = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) {
          reject(new Error(`${message.error.message} (${JSON.stringify(message.error)})`));
        } else {
          done(message.result);
        }
      } else {
        browser.onEvent(message);
      }
    }
  });
  child.on('exit', (code) => {
    for (const { reject } of pending.values()) {
      reject(new Error(`chromium exited (${code}): ${stderr.slice(-2000)}`));
    }
    pending.clear();
  });
  browser.send = (method, params = {}, sessionId = undefined) => new Promise((done, reject) => {
    const id = nextId++;
    pending.set(id, { resolve: done, reject });
    const message = { id, method, params };
    if (sessionId) {
      message.sessionId = sessionId;
    }
    toBrowser.write(JSON.stringify(message) + '\0');
  });
  return browser;
}

// a promise that rejects after ms
function timeout(ms, what) {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms));
}
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// ---------------------------------------------------------------- the scene's geometry

// the pixel (in CSS pixels of the page) where the camera (eye, target, z up, vertical fov in
// degrees) draws world point p, in a canvas at rect
function project(p, eye, target, fovDegrees, rect) {
  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                           a[0] * b[1] - a[1] * b[0]];
  const unit = (a) => { const n = Math.hypot(...a); return [a[0] / n, a[1] / n, a[2] / n]; };
  const forward = unit(sub(target, eye));
  const right = unit(cross(forward, [0, 0, 1]));
  const up = cross(right, forward);
  const d = sub(p, eye);
  const t = Math.tan((fovDegrees * Math.PI) / 360);
  const aspect = rect.width / rect.height;
  const ndcX = dot(d, right) / (dot(d, forward) * t * aspect);
  const ndcY = dot(d, up) / (dot(d, forward) * t);
  return [rect.left + ((ndcX + 1) / 2) * rect.width, rect.top + ((1 - ndcY) / 2) * rect.height];
}

const isRed = ([r, g, b]) => r > 120 && r > 2 * g + 40 && r > 2 * b + 40;
const isGrey = ([r, g, b]) => Math.abs(r - g) < 16 && Math.abs(g - b) < 16 && r < 215;

// the colour class of a pixel: which channels are lit ('r', 'rg', 'gb', ...), '' for greys
function hue([r, g, b]) {
  const hi = Math.max(r, g, b), lo = Math.min(r, g, b);
  if (hi < 90 || hi - lo < 70) {
    return '';
  }
  return (r > hi - 60 ? 'r' : '') + (g > hi - 60 ? 'g' : '') + (b > hi - 60 ? 'b' : '');
}

// the page of one geom of every type (colours: sphere red, capsule green, ellipsoid blue,
// cylinder yellow, box cyan, mesh magenta) with contacts: it loads, and every colour is drawn
async function allGeoms(browser) {
  const model = join(sourceDir, 'tests', 'viewer', 'all_geoms.xml');
  const csv = join(scratch, 'all.csv'), html = join(scratch, 'all.html');
  const sim = spawnSync(gradyn, ['simulate', model, '--key', 'swing', '--steps', '300',
                                 '--every', '10', '--format', 'csv', '-o', csv],
                        { encoding: 'utf8' });
  const view = spawnSync(gradyn, ['view', model, csv, '-o', html, '--contacts'],
                         { encoding: 'utf8' });
  if (!check(sim.status === 0 && view.status === 0, `all_geoms: ${sim.stderr} ${view.stderr}`)) {
    return;
  }
  const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true });
  const send = (method, params) => browser.send(method, params, sessionId);
  await send('Runtime.enable');
  await send('Log.enable');
  await send('Emulation.setDeviceMetricsOverride',
             { width: 800, height: 600, deviceScaleFactor: 1, mobile: false });
  await send('Page.navigate', { url: `file://${html}#paused=1&frame=30` });
  const evaluate = async (expression) =>
    (await send('Runtime.evaluate', { expression, returnByValue: true })).result.value;
  let status;
  for (let i = 0; i < 200 && !status; i++) {
    status = await evaluate('window.gradynViewer && (window.gradynViewer.ready ? "ready" : ' +
                            'window.gradynViewer.errors.join("; "))');
    if (!status) {
      await sleep(100);
    }
  }
  check(status === 'ready', `all_geoms: the page is ready (${status})`);
  check(await evaluate('gradynViewer.frame') === 30, 'all_geoms: opened at #frame=30');
  const label = await evaluate('document.getElementById("gradyn-time").textContent');
  check(/contacts/.test(label), `all_geoms: the label counts contacts (${label})`);
  const shot = await send('Page.captureScreenshot', { format: 'png' });
  const buffer = Buffer.from(shot.data, 'base64');
  writeFileSync(join(scratch, 'all_geoms.png'), buffer);
  const png = decodePng(buffer);
  const counts = {};
  for (let y = 0; y < png.height; y += 2) {
    for (let x = 0; x < png.width; x += 2) {
      const h = hue(png.pixel(x, y));
      counts[h] = (counts[h] || 0) + 1;
    }
  }
  console.log(`all_geoms: pixels (every 2nd) per colour ${JSON.stringify(counts)}`);
  for (const [h, geom] of [['r', 'sphere'], ['g', 'capsule'], ['b', 'ellipsoid'],
                           ['rg', 'cylinder'], ['gb', 'box'], ['rb', 'mesh']]) {
    check((counts[h] || 0) >= 10, `all_geoms: the ${geom} is drawn (${counts[h] || 0} '${h}' pixels)`);
  }
}

// ---------------------------------------------------------------- the test

async function main() {
  const chromium = findChromium();
  if (!chromium) {
    skip('no Chromium (Debian: apt-get install chromium; or set GDN_CHROMIUM)');
  }
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });

  // the trajectory: 0.5 s of the ball falling from 1 m, every 5th step (frames 0.01 s apart)
  const model = join(sourceDir, 'tests', 'viewer', 'falling_ball.xml');
  const csv = join(scratch, 'ball.csv'), html = join(scratch, 'ball.html');
  const sim = spawnSync(gradyn, ['simulate', model, '--steps', '250', '--every', '5',
                                 '--format', 'csv', '-o', csv], { encoding: 'utf8' });
  if (!check(sim.status === 0, `gradyn simulate: ${sim.stderr}`)) {
    finish();
  }
  const view = spawnSync(gradyn, ['view', model, csv, '-o', html], { encoding: 'utf8' });
  if (view.status !== 0 && /built without the viewer/.test(view.stderr)) {
    skip(view.stderr.trim());
  }
  if (!check(view.status === 0 && existsSync(html), `gradyn view: ${view.stderr}`)) {
    finish();
  }
  const rows = readFileSync(csv, 'utf8').trim().split('\n').slice(1)
      .map((line) => line.split(',').map(Number));
  const frames = [0, 30]; // z = 1 and z = 1 - g t^2 / 2 at t = 0.3 s, still in the air
  const ballAt = (f) => [rows[f][1], rows[f][2], rows[f][3]];
  check(rows.length === 51, `51 rows in the CSV (got ${rows.length})`);
  check(ballAt(30)[2] < 0.6 && ballAt(30)[2] > 0.5, 'the ball falls to z = 0.56 at frame 30');

  // a fixed camera looking down at the scene
  const eye = [0, -3, 1.5], target = [0, 0, 0.4], fov = 45;
  const url = `file://${html}#paused=1&frame=0&fov=${fov}&camera=${eye.join(',')},${target.join(',')}`;
  const profile = join(scratch, 'profile');
  const browser = startBrowser(chromium, profile);
  const errors = [];
  browser.onEvent = (message) => {
    const p = message.params || {};
    if (message.method === 'Runtime.exceptionThrown') {
      errors.push(`exception: ${p.exceptionDetails.text} ${p.exceptionDetails.exception
          ? p.exceptionDetails.exception.description : ''}`);
    } else if (message.method === 'Runtime.consoleAPICalled' &&
               (p.type === 'error' || p.type === 'assert')) {
      errors.push(`console.${p.type}: ${p.args.map((a) => a.value ?? a.description).join(' ')}`);
    } else if (message.method === 'Log.entryAdded' && p.entry.level === 'error') {
      errors.push(`log: ${p.entry.text} (${p.entry.url || ''})`);
    }
  };
  try {
    const started = Date.now();
    const run = async () => {
      const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await browser.send('Target.attachToTarget',
                                                 { targetId, flatten: true });
      const send = (method, params) => browser.send(method, params, sessionId);
      await send('Runtime.enable');
      await send('Log.enable');
      await send('Page.enable');
      await send('Emulation.setDeviceMetricsOverride',
                 { width: 800, height: 600, deviceScaleFactor: 1, mobile: false });
      await send('Page.navigate', { url });
      const evaluate = async (expression) => {
        const r = await send('Runtime.evaluate', { expression, returnByValue: true });
        return r.result.value;
      };
      let ready = false;
      for (let i = 0; i < 200 && !ready; i++) {
        ready = await evaluate('!!(window.gradynViewer && (window.gradynViewer.ready || ' +
                               'window.gradynViewer.errors.length))');
        if (!ready) {
          await sleep(100);
        }
      }
      check(ready, 'the page starts its player within 20 s');
      const status = await evaluate('document.body.dataset.status');
      check(status === 'ready', `the page reports ready (status ${status}, errors ` +
            `${JSON.stringify(await evaluate('window.gradynViewer.errors'))})`);
      check(await evaluate('gradynViewer.nframe') === 51, 'the page has the 51 frames');
      const rect = await evaluate('(() => { const r = document.querySelector(' +
          '"#gradyn-view canvas").getBoundingClientRect(); return {left: r.left, top: r.top, ' +
          'width: r.width, height: r.height}; })()');
      check(rect.width > 400 && rect.height > 300, `the canvas fills the page (${JSON.stringify(rect)})`);

      // each frame: the ball's centre is red, the other frame's ball centre is not, the plane
      // in front of the ball is grey
      for (const f of frames) {
        const shown = await evaluate(`gradynViewer.setFrame(${f})`);
        check(shown === f, `setFrame(${f}) shows frame ${f}`);
        await sleep(50);
        const shot = await send('Page.captureScreenshot', { format: 'png' });
        const buffer = Buffer.from(shot.data, 'base64');
        writeFileSync(join(scratch, `frame${f}.png`), buffer);
        const png = decodePng(buffer);
        check(png.width === 800 && png.height === 600, `screenshot is 800x600 (${png.width}x${png.height})`);
        const here = project(ballAt(f), eye, target, fov, rect);
        const other = project(ballAt(frames.find((g) => g !== f)), eye, target, fov, rect);
        const floor = project([0.5, -0.8, 0], eye, target, fov, rect);
        const [c, o, g] = [png.pixel(...here), png.pixel(...other), png.pixel(...floor)];
        console.log(`frame ${f}: ball at (${here.map(Math.round)}) rgb ${c}; frame ` +
                    `${frames.find((k) => k !== f)}'s place (${other.map(Math.round)}) rgb ${o}; ` +
                    `floor (${floor.map(Math.round)}) rgb ${g}`);
        check(isRed(c), `frame ${f}: the ball's projected centre is red (rgb ${c})`);
        check(!isRed(o), `frame ${f}: the other frame's ball position is not red (rgb ${o})`);
        const b = ballAt(f);
        const side = png.pixel(...project([b[0] + 0.2, b[1], b[2]], eye, target, fov, rect));
        check(!isRed(side), `frame ${f}: 2 radii beside the ball is not red (rgb ${side})`);
        check(isGrey(g), `frame ${f}: the plane is grey (rgb ${g})`);
      }

      // the controls: the slider scrubs (and pauses), play advances the frames, pause stops
      const scrubbed = await evaluate('(() => { const s = document.getElementById(' +
          '"gradyn-slider"); s.value = "20"; s.dispatchEvent(new Event("input")); ' +
          'return gradynViewer.frame; })()');
      check(scrubbed === 20, `the slider scrubs to frame 20 (frame ${scrubbed})`);
      // at 0.25x, 0.6 s of wall time is 0.15 s of the trajectory: frame 35, before the loop
      await evaluate('document.querySelector("#gradyn-controls select").value = "0.25"');
      await evaluate('document.getElementById("gradyn-play").click()');
      await sleep(600);
      const playing = await evaluate('gradynViewer.frame');
      check(playing > 20, `play advances the frames (frame ${playing} after 0.6 s)`);
      const button = await evaluate('document.getElementById("gradyn-play").textContent');
      check(button === 'pause', `the button then says pause (${button})`);
      await evaluate('document.getElementById("gradyn-play").click()');
      const paused = await evaluate('gradynViewer.frame');
      await sleep(300);
      check(await evaluate('gradynViewer.frame') === paused, 'pause stops the frames');
    };
    await Promise.race([run(), timeout(60000, 'the browser test')]);
    await Promise.race([allGeoms(browser), timeout(60000, 'the all-geoms page')]);
    console.log(`browser checks took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await sleep(100); // late console messages
    check(errors.length === 0, `no console errors: ${errors.join('; ')}`);
  } catch (error) {
    check(false, `${error.message}\nchromium stderr (tail): ${browser.stderr().slice(-1500)}`);
  } finally {
    browser.child.kill('SIGKILL');
  }
  finish();
}

main().catch((error) => {
  check(false, error.stack || String(error));
  finish();
});
