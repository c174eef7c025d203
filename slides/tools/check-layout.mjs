// Checks what an audience sees: each deck, rendered by Marp with the bare template, is opened in
// headless Chromium at the slides' own size (1280×720) and every slide is measured:
//   - no element may leave its slide (left of 0, right of 1280, above 0, below 720);
//   - no element of the slide's content may reach into the footer;
//   - no code block may be wider than its box (lines cut off on the right);
//   - no text below the minimum size: 20 px for body text and table cells; 16 px inside code
//     blocks (excerpts of the solutions keep their line breaks); header and footer exempt.
// Every problem is printed with the deck and the slide number (1-based, as Marp's page number).
// Uses puppeteer-core, which Marp CLI already installs (slides/node_modules), and Debian's
// Chromium (CHROME_PATH, or chromium on the PATH).
//
//   node check-layout.mjs --chrome PATH DIR/NAME.html...
//
// Exit 0 when every slide passes, 1 when any fails, 2 when Chromium cannot be started.
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'));
const puppeteer = require('puppeteer-core');

export const kMinBodyPx = 20;
export const kMinCodePx = 16;

const args = process.argv.slice(2);
let chrome = process.env.CHROME_PATH || '';
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--chrome') chrome = args[++i];
  else files.push(args[i]);
}
if (!chrome || files.length === 0) {
  console.error('usage: node check-layout.mjs --chrome PATH DIR/NAME.html...');
  process.exit(2);
}

/** Runs in the page: the problems of every slide, as {slide, what}. */
function measure(minBody, minCode) {
  const problems = [];
  const sections = [...document.querySelectorAll('section')].filter((s) => !s.parentElement.closest('section'));
  sections.forEach((section, index) => {
    const slide = index + 1;
    const box = section.getBoundingClientRect();
    const scale = box.width / 1280;
    const rel = (r) => ({
      left: (r.left - box.left) / scale,
      top: (r.top - box.top) / scale,
      right: (r.right - box.left) / scale,
      bottom: (r.bottom - box.top) / scale,
    });
    const describe = (el) => {
      const text = (el.textContent || '').replace(/\s+/g, ' ').trim();
      const what = el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? `.${el.className}` : '');
      if (el.tagName === 'IMG') return `picture '${el.getAttribute('alt') || el.getAttribute('src')}'`;
      return `${what} "${text.length > 60 ? `${text.slice(0, 57)}...` : text}"`;
    };
    const footer = [...section.children].find((c) => c.tagName === 'FOOTER');
    const footerTop = footer ? rel(footer.getBoundingClientRect()).top : 720;
    const reported = [];  // one report per element that leaves: not one for each of its children too
    for (const el of section.querySelectorAll('*')) {
      if (el.closest('header, footer')) continue;
      if (reported.some((a) => a.contains(el))) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const p = rel(r);
      const tolerance = 1;
      if (p.right > 1280 + tolerance || p.left < -tolerance || p.bottom > 720 + tolerance || p.top < -tolerance) {
        problems.push({ slide, what: `${describe(el)} leaves the slide (its box: x ${Math.round(p.left)}–${Math.round(p.right)}, ` +
                                     `y ${Math.round(p.top)}–${Math.round(p.bottom)} of 1280×720)` });
        reported.push(el);
        continue;
      }
      if (el.parentElement === section && p.bottom > footerTop + tolerance) {
        problems.push({ slide, what: `${describe(el)} runs into the footer (its bottom at y ${Math.round(p.bottom)}, ` +
                                     `the footer's top at ${Math.round(footerTop)})` });
      }
      if ((el.tagName === 'PRE' || el.tagName === 'MARP-PRE') && el.scrollWidth > el.clientWidth + tolerance) {
        problems.push({ slide, what: `${describe(el)} is wider than its box: lines are cut off on the right` });
      }
    }
    // Text below the minimum size, one report per element.
    const walker = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
    const seen = new Set();
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.textContent.trim()) continue;
      const el = n.parentElement;
      if (!el || seen.has(el) || el.closest('header, footer')) continue;
      seen.add(el);
      const size = parseFloat(getComputedStyle(el).fontSize);
      const min = el.closest('pre, marp-pre') ? minCode : minBody;
      if (size + 0.01 < min) {
        problems.push({ slide, what: `${describe(el)} is set in ${size} px text, below the ${min} px minimum` });
      }
    }
  });
  return { slides: sections.length, problems };
}

let browser;
try {
  browser = await puppeteer.launch({
    executablePath: chrome,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'],
  });
} catch (e) {
  console.error(`check-layout: cannot start Chromium at ${chrome}: ${e.message}`);
  process.exit(2);
}
let failed = false;
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  for (const file of files) {
    const deck = basename(file, '.html');
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.evaluate(() => document.fonts.ready);
    const { slides, problems } = await page.evaluate(measure, kMinBodyPx, kMinCodePx);
    if (slides === 0) problems.push({ slide: 0, what: 'no slide found in the HTML' });
    if (problems.length) {
      failed = true;
      for (const p of problems) console.error(`check-layout: ${deck}, slide ${p.slide}: ${p.what}`);
      console.log(`FAIL ${deck}: ${problems.length} layout problem${problems.length === 1 ? '' : 's'} in ${slides} slides`);
    } else {
      console.log(`ok   ${deck}: ${slides} slides inside 1280×720, clear of the footer, no text below ` +
                  `${kMinBodyPx} px (${kMinCodePx} px in code)`);
    }
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
