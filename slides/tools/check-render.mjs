// Checks that every slide of every deck rendered: for each staged deck DIR/NAME.md (written by
// `grader docs --stage DIR`, rendered by Marp to DIR/NAME.html) it counts the slides of the
// Markdown (Marp's `---` separators outside the front matter and code fences) in the source deck
// and in the staged copy, and the <section> elements of the HTML; they must agree, every
// section must hold something besides its header and footer, and every local image the HTML or
// the Markdown refers to must exist. No dependencies: node only.
//
//   node check-render.mjs --source slides/ DIR/01-....md DIR/02-....md ...
//
// Exit 0 when every deck passes, 1 otherwise (each problem printed with file and line).
import { readFileSync, existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

const args = process.argv.slice(2);
let sourceDir = null;
const decks = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--source') sourceDir = args[++i];
  else decks.push(args[i]);
}
if (decks.length === 0) {
  console.error('check-render: no decks given');
  process.exit(1);
}

/** Slides of a Marp deck: separators outside front matter and fences, plus one. */
function countSlides(file, problems) {
  const lines = readFileSync(file, 'utf8').split('\n');
  let i = 0;
  if (lines[0] === '---') {
    i = 1;
    while (i < lines.length && lines[i] !== '---') i++;
    if (i === lines.length) {
      problems.push(`${file}:1: the front matter is not closed by '---'`);
      return 0;
    }
    i++;
  }
  let fence = null;
  let separators = 0;
  for (; i < lines.length; i++) {
    const line = lines[i];
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1];
      continue;
    }
    if (!/^ {0,3}((-[ \t]*){3,}|(\*[ \t]*){3,}|(_[ \t]*){3,})$/.test(line)) continue;
    const previous = i > 0 ? lines[i - 1].trim() : '';
    if (previous !== '' && /^ {0,3}-+[ \t]*$/.test(line)) {
      problems.push(`${file}:${i + 1}: '${line.trim()}' right after a line of text makes that text a heading, ` +
                    'not a new slide: put a blank line before it');
      continue;
    }
    separators++;
  }
  if (fence) problems.push(`${file}: a code fence (${fence}) is never closed`);
  return separators + 1;
}

function localTarget(src) {
  return !/^(?:[a-z][a-z0-9+.-]*:|#|\/\/)/i.test(src);
}

let failed = false;
for (const md of decks) {
  const problems = [];
  const name = basename(md, '.md');
  const staged = countSlides(md, problems);
  let source = null;
  if (sourceDir) {
    const src = join(sourceDir, `${name}.md`);
    if (existsSync(src)) source = countSlides(src, problems);
    else problems.push(`${src}: the source deck of ${md} is missing`);
  }
  const htmlFile = md.replace(/\.md$/, '.html');
  let sections = [];
  let images = 0;
  if (!existsSync(htmlFile)) {
    problems.push(`${htmlFile}: not rendered`);
  } else {
    const html = readFileSync(htmlFile, 'utf8');
    sections = [...html.matchAll(/<section\b([^>]*)>([\s\S]*?)<\/section>/g)];
    sections.forEach((s, k) => {
      const body = s[2].replace(/<header\b[\s\S]*?<\/header>/g, '').replace(/<footer\b[\s\S]*?<\/footer>/g, '');
      const text = body.replace(/<[^>]*>/g, '').replace(/&nbsp;/g, ' ').trim();
      if (text === '' && !/<img\b|background-image/.test(body)) {
        problems.push(`${htmlFile}: slide ${k + 1} rendered empty`);
      }
      if (!/data-theme="convlab"/.test(s[1]) && !/data-theme="convlab"/.test(html)) {
        problems.push(`${htmlFile}: slide ${k + 1} is not in the convlab theme (was --theme-set given?)`);
      }
    });
    const refs = [
      ...[...html.matchAll(/<img\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]),
      ...[...html.matchAll(/url\((?:&quot;|["'])?([^)"'&]+)(?:&quot;|["'])?\)/g)].map((m) => m[1]),
    ].filter(localTarget);
    for (const ref of refs) {
      images++;
      const path = resolve(dirname(htmlFile), decodeURIComponent(ref));
      if (!existsSync(path)) problems.push(`${htmlFile}: image '${ref}' does not exist (${path})`);
    }
  }
  const mdText = readFileSync(md, 'utf8');
  for (const m of mdText.matchAll(/!\[[^\]]*\]\(([^)\s]+)/g)) {
    if (!localTarget(m[1])) continue;
    const path = resolve(dirname(md), m[1]);
    if (!existsSync(path)) problems.push(`${md}: image '${m[1]}' does not exist (${path})`);
  }
  if (source !== null && source !== staged) {
    problems.push(`${md}: ${staged} slides, but its source deck has ${source}`);
  }
  if (existsSync(htmlFile) && sections.length !== staged) {
    problems.push(`${htmlFile}: ${sections.length} slides rendered, the deck has ${staged}`);
  }
  if (problems.length) {
    failed = true;
    for (const p of problems) console.error(`check-render: ${p}`);
    console.log(`FAIL ${name}: ${staged} slides in the deck, ${sections.length} rendered`);
  } else {
    console.log(`ok   ${name}: ${staged} slides in the deck, ${sections.length} rendered, none empty; ` +
                `${images} local image${images === 1 ? '' : 's'}, all present`);
  }
}
process.exit(failed ? 1 : 0);
