// After `vite build` (dist/web) and `vite build --ssr src/web/entry-server.tsx` (dist/prerendu): writes the
// first screens as real HTML, so that a slow connection shows them before any script has arrived.
// - dist/web/pages/<address>.html for each page of PAGES (`/` → pages/index.html, `/logement/nouveau` →
//   pages/logement/nouveau.html): the page, its header and footer, the stylesheets it needs and its
//   script preloaded. The server sends it for that address (src/server/app.ts); the browser takes it over.
// - dist/web/index.html: the shell (header, menu, footer, empty page) for every other address.
// Run by `npm run build:web`; scripts/compress-web.ts compresses the files afterwards.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

/** The prerendered pages: address, the module of its page (as the manifest names it), its <title>. */
export const PAGES = [
  { path: '/', module: null, title: 'Accueil — Quartier Vivant' },
  { path: '/logement', module: 'features/demandes/DemandesAccueilPage.tsx', title: 'Logement social — Quartier Vivant' },
  { path: '/logement/nouveau', module: 'features/demandes/NouvelleDemandePage.tsx', title: 'Nouvelle demande de logement — Quartier Vivant' },
] as const;

/** Where the page of an address is written, under dist/web (also what the server looks for). */
export function pageFile(pathname: string): string {
  return `pages${pathname === '/' ? '/index' : pathname}.html`;
}

interface ManifestChunk {
  file: string;
  css?: string[];
  imports?: string[];
}

/** A chunk's stylesheets and scripts, with those of the chunks it imports statically (what it needs to run). */
function chunkFiles(manifest: Record<string, ManifestChunk>, key: string): { css: string[]; js: string[] } {
  const css: string[] = [];
  const js: string[] = [];
  const visit = (k: string) => {
    const chunk = manifest[k];
    if (!chunk) throw new Error(`prerender: ${k} is not in the build's manifest`);
    if (js.includes(chunk.file)) return;
    js.push(chunk.file);
    for (const i of chunk.imports ?? []) visit(i);
    for (const c of chunk.css ?? []) if (!css.includes(c)) css.push(c);
  };
  visit(key);
  return { css, js };
}

function escapeHtml(text: string): string {
  return text.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;').replace(/"/gu, '&quot;');
}

/** The template (Vite's dist/web/index.html) with the page's HTML, route, title and extra head tags. */
export function fillTemplate(template: string, page: { html: string; route: string | null; title?: string; head?: string[] }): string {
  let out = template.replace('<div id="root"></div>', `<div id="root"${page.route === null ? '' : ` data-route="${escapeHtml(page.route)}"`}>${page.html}</div>`);
  if (!out.includes(page.html)) throw new Error('prerender: no <div id="root"></div> in dist/web/index.html');
  if (page.title) out = out.replace(/<title>[^<]*<\/title>/u, `<title>${escapeHtml(page.title)}</title>`);
  if (page.head && page.head.length > 0) out = out.replace('</head>', `  ${page.head.join('\n    ')}\n  </head>`);
  return out;
}

/**
 * A prerendered page's one script, written into the page (its hash allows it in the CSP: src/server/pages-web.ts): the
 * app's entry is fetched only once the page has painted (or after a second at most, as in a tab in the background),
 * so that nothing the page does not need comes before its first paint.
 */
export function amorce(entree: string): string {
  return `(function(){var fait=false,charger=function(){if(fait)return;fait=true;var s=document.createElement('script');s.type='module';s.src=${JSON.stringify(entree)};document.head.appendChild(s)},apres=function(){requestAnimationFrame(function(){setTimeout(charger,0)})};setTimeout(charger,1000);try{new PerformanceObserver(function(l,o){if(l.getEntries().some(function(e){return e.name==='first-contentful-paint'})){o.disconnect();apres()}}).observe({type:'paint',buffered:true})}catch(e){apres()}})()`;
}

/** A prerendered page: the template's entry script replaced by `amorce`, at the end of the body. */
export function entreeApresAffichage(template: string): string {
  const entree = /\s*<script type="module" crossorigin src="([^"]+)"><\/script>/u.exec(template);
  if (!entree) throw new Error('prerender: no entry <script type="module" crossorigin src="…"> in dist/web/index.html');
  return template.replace(entree[0], '').replace('</body>', `  <script>${amorce(entree[1]!)}</script>\n  </body>`);
}

/** `web`: the browser build (dist/web); `ssr`: the prerender's module (dist/prerendu), removed afterwards. */
export async function prerender(WEB = path.join(DIST, 'web'), SSR = path.join(DIST, 'prerendu')): Promise<string[]> {
  const template = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');
  const manifestFile = path.join(WEB, '.vite', 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, ManifestChunk>;
  const entry = (await import(pathToFileURL(path.join(SSR, 'entry-server.js')).href)) as {
    renderPage: (pathname: string) => Promise<string>;
    renderShell: () => Promise<string>;
  };
  // The stylesheets are written into the page (no request before the first paint), each also named by a
  // `disabled` link, which the browser does not fetch: the sign for Vite's loader that the stylesheet is
  // there (it would otherwise fetch it again before the app starts).
  const entryCss = manifest['index.html']?.css ?? [];
  const app = chunkFiles(manifest, 'start.tsx');
  const styles = (files: string[]) => {
    const unique = [...new Set(files)];
    return [
      ...unique.map((c) => `<style data-href="/${c}">${fs.readFileSync(path.join(WEB, c), 'utf8').replaceAll('</style', '<\\/style')}</style>`),
      ...unique.map((c) => `<link rel="stylesheet" href="/${c}" disabled>`),
    ];
  };
  let base = template;
  for (const c of entryCss) base = base.replace(new RegExp(`\\s*<link rel="stylesheet"[^>]*href="/${c.replaceAll('.', '\\.')}">`, 'u'), '');
  const written: string[] = [];
  for (const page of PAGES) {
    const html = await entry.renderPage(page.path);
    const css = [...entryCss, ...app.css, ...(page.module ? chunkFiles(manifest, page.module).css : [])];
    const file = path.join(WEB, pageFile(page.path));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // The page paints before the app is even fetched (Lighthouse counts every request that ends before the largest
    // paint as needed by it: with the entry fetched at once, LCP was 1.8-2.0× a static page; after the paint, ~1.05×).
    fs.writeFileSync(file, fillTemplate(entreeApresAffichage(base), { html, route: page.path, title: page.title, head: styles(css) }));
    written.push(pageFile(page.path));
  }
  fs.writeFileSync(path.join(WEB, 'index.html'), fillTemplate(base, { html: await entry.renderShell(), route: null, head: styles([...entryCss, ...app.css]) }));
  written.push('index.html');
  // The manifest and the prerender's module were only for this step.
  fs.rmSync(path.join(WEB, '.vite'), { recursive: true, force: true });
  fs.rmSync(SSR, { recursive: true, force: true });
  return written;
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  // `tsx scripts/prerender.ts [webDir ssrDir]` (other folders: to try a build without touching dist/).
  const written = await prerender(...(process.argv.slice(2) as []));
  console.log(`prerendered ${written.join(', ')}`);
}
