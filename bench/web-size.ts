// The first screen's weight, from the production build (run after `npm run build:web`), in bytes as the
// server sends them (the .br files of scripts/compress-web.ts):
// - before paint: what the browser must have before it draws `/` — the stylesheets of the HTML's head and
//   any classic script there (module scripts do not hold the paint of a page whose HTML has its content);
//   when the HTML has no content (an empty root), the scripts too, since nothing shows before they run;
// - before interactive: that, plus the module scripts, their preloads, the app the entry imports once the
//   page is on screen (start.tsx), the page's own chunk, and their static imports.
// Also: whether the root has content at first byte (prerendered, scripts/prerender.ts), and whether any
// of the browser's files holds zod's JSON Schema code (scripts/vite-zod-sans-json-schema.ts) or, for
// `/` and `/logement`, react-hook-form. Prints; asserts nothing. Target: `/` ≤ 60 KB before paint.
//   tsx bench/web-size.ts [--dir <built web folder>]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync } from 'node:zlib';

const dirArg = process.argv.indexOf('--dir');
const WEB = dirArg > 0 ? path.resolve(process.argv[dirArg + 1]!) : fileURLToPath(new URL('../dist/web/', import.meta.url));

/** Figures of the unchanged app (commit c354b11), measured with this script on its build. */
export const AVANT_C354B11 = {
  beforePaintKb: 152.4,
  beforeInteractiveKb: 152.4,
  cssKb: 28.7,
  rootHasContent: false,
  zodJsonSchema: true,
};

/** The HTML the server sends for an address: its prerendered page if there is one, else the shell. */
function htmlFor(pathname: string, web = WEB): string {
  const page = path.join(web, 'pages', `${pathname === '/' ? 'index' : pathname.slice(1)}.html`);
  return fs.readFileSync(fs.existsSync(page) ? page : path.join(web, 'index.html'), 'utf8');
}

/** Bytes as served: the .br beside the file, else the file compressed now. */
function servedBytes(file: string, web = WEB): number {
  const full = path.join(web, file);
  return fs.existsSync(`${full}.br`) ? fs.statSync(`${full}.br`).size : brotliCompressSync(fs.readFileSync(full)).length;
}

/** The given scripts and every chunk they import statically, transitively (dynamic `import()` left out). */
function withStaticImports(scripts: string[], web = WEB): string[] {
  const queue = [...scripts];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = fs.readFileSync(path.join(web, file), 'utf8');
    // Static imports only: `import … from "./x.js"` and `import "./x.js"` (not `import("./x.js")`).
    for (const m of code.matchAll(/(?:^|[;\s}])import\s*(?:[\w$*{}\s,]+from\s*)?["'`]\.\/([^"'`]+\.js)["'`]/gu)) {
      queue.push(path.posix.join(path.posix.dirname(file), m[1]!));
    }
  }
  return [...seen];
}

export interface FirstScreen {
  css: string[];
  /** Brotli bytes of the CSS written into the page (part of the HTML document). */
  inlineCss: number;
  blockingScripts: string[];
  scripts: string[];
  rootHasContent: boolean;
  beforePaint: number;
  beforeInteractive: number;
}

/** The chunk of a prerendered page's own code (loaded before the page is taken over), by its module's name. */
const PAGE_CHUNK: Record<string, string> = { '/logement': 'DemandesAccueilPage-', '/logement/nouveau': 'NouvelleDemandePage-' };

export function firstScreen(pathname: string, web = WEB): FirstScreen {
  const html = htmlFor(pathname, web);
  const head = html.slice(0, html.indexOf('</head>'));
  // Stylesheets that hold the paint: links (not `disabled`, not for print) and the ones written into the page.
  const links = [...head.matchAll(/<link([^>]+)>/gu)].map((m) => m[1]!).filter((a) => /rel="stylesheet"/u.test(a) && !/\sdisabled|media="print"/u.test(a));
  const css = links.map((a) => /href="\/([^"]+)"/u.exec(a)![1]!);
  const inlineCss = [...head.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/gu)].reduce((n, m) => n + brotliCompressSync(m[1]!).length, 0);
  const tags = [...head.matchAll(/<script([^>]*)\ssrc="\/([^"]+\.js)"/gu)];
  const blockingScripts = tags.filter((m) => !/type="module"|\sasync|\sdefer/u.test(m[1]!)).map((m) => m[2]!);
  // Module scripts: in the head, preloaded, or added by the prerendered pages' inline loader once the page has painted.
  const chargees = [...html.matchAll(/<script>([\s\S]*?)<\/script>/gu)].flatMap((m) => [...m[1]!.matchAll(/\.src="\/([^"]+\.js)"/gu)].map((s) => s[1]!));
  const modules = [
    ...tags.filter((m) => /type="module"/u.test(m[1]!)).map((m) => m[2]!),
    ...[...head.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/([^"]+\.js)"/gu)].map((m) => m[1]!),
    ...chargees,
  ];
  // The entry imports the app (start.tsx) dynamically once the page is on screen: part of "interactive".
  const started = modules.flatMap((m) => [...fs.readFileSync(path.join(web, m), 'utf8').matchAll(/import\(["'`]\.\/([^"'`]+\.js)["'`]\)/gu)].map((d) => path.posix.join(path.posix.dirname(m), d[1]!)));
  const pageChunk = PAGE_CHUNK[pathname];
  const own = pageChunk ? fs.readdirSync(path.join(web, 'assets')).filter((f) => f.startsWith(pageChunk) && f.endsWith('.js')).map((f) => `assets/${f}`) : [];
  const scripts = withStaticImports([...blockingScripts, ...modules, ...started, ...own], web);
  // The root's text: from its opening to the end of the body, the page's scripts (the prerendered pages' inline loader
  // follows the root) and styles left out.
  const debut = html.indexOf('<div id="root"');
  const root = debut === -1 ? '' : html.slice(debut, html.lastIndexOf('</body>'));
  const rootHasContent = root.replace(/<(style|script)[\s\S]*?<\/\1>/gu, '').replace(/<[^>]+>/gu, '').trim().length > 0;
  const sum = (files: string[]) => files.reduce((n, f) => n + servedBytes(f, web), 0);
  // With an empty root nothing shows before the app's scripts have run.
  const paintScripts = rootHasContent ? withStaticImports(blockingScripts, web) : scripts;
  const cssBytes = sum(css) + inlineCss;
  return { css, inlineCss, blockingScripts, scripts, rootHasContent, beforePaint: cssBytes + sum(paintScripts), beforeInteractive: cssBytes + sum(scripts) };
}

/** Files of the browser build holding one of the markers (code, not names). */
function filesWith(markers: string[], files: string[], web = WEB): string[] {
  return files.filter((f) => {
    const code = fs.readFileSync(path.join(web, f), 'utf8');
    return markers.some((m) => code.includes(m));
  });
}

// zod's JSON Schema code: the draft's address written in the output, the error of an unknown type.
const ZOD_JSON_SCHEMA = ['json-schema.org/draft', 'Non-representable type'];
// react-hook-form: its validation modes table.
const REACT_HOOK_FORM = ['onTouched'];

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

export function printWebSize(web = WEB): void {
  const landing = firstScreen('/', web);
  const met = landing.beforePaint <= 60 * 1024;
  const cssBytes = landing.css.reduce((n, f) => n + servedBytes(f, web), 0) + landing.inlineCss;
  console.log('first screen (brotli, as served)');
  console.log(
    `  /                 : before paint ${kb(landing.beforePaint)} (target <= 60 KB: ${met ? 'met' : 'MISSED'}; c354b11 ${AVANT_C354B11.beforePaintKb} KB), ` +
      `CSS ${kb(cssBytes)} (${kb(landing.inlineCss)} of it in the HTML, ${landing.css.length} blocking file(s)) (c354b11 ${AVANT_C354B11.cssKb} KB), ` +
      `before interactive ${kb(landing.beforeInteractive)} in ${landing.scripts.length} script(s) (c354b11 ${AVANT_C354B11.beforeInteractiveKb} KB)`,
  );
  console.log(`  content at first byte: ${landing.rootHasContent ? 'yes' : 'no'} (c354b11 ${AVANT_C354B11.rootHasContent ? 'yes' : 'no'})`);
  for (const route of ['/logement', '/logement/nouveau']) {
    const s = firstScreen(route, web);
    const rhf = filesWith(REACT_HOOK_FORM, s.scripts, web).length > 0;
    console.log(
      `  ${route.padEnd(18)}: before paint ${kb(s.beforePaint)}, before interactive ${kb(s.beforeInteractive)}, content at first byte: ${s.rootHasContent ? 'yes' : 'no'}, react-hook-form: ${rhf ? 'yes' : 'no'}`,
    );
  }
  const assets = fs.readdirSync(path.join(web, 'assets')).filter((f) => f.endsWith('.js')).map((f) => `assets/${f}`);
  const zod = filesWith(ZOD_JSON_SCHEMA, assets, web);
  console.log(`  no zod JSON-schema code in client: ${zod.length === 0 ? 'yes' : `no (${zod.join(', ')})`} (c354b11 ${AVANT_C354B11.zodJsonSchema ? 'no' : 'yes'})`);
  const rhfOnLanding = filesWith(REACT_HOOK_FORM, landing.scripts, web).length > 0;
  console.log(`  react-hook-form on /: ${rhfOnLanding ? 'yes' : 'no'}; ${assets.length} chunks in all, the rest load on demand`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) printWebSize();
