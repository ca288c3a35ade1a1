import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The pages prerendered at build (scripts/prerender.ts) under `webDir`: address → file relative to `webDir`
 * (`/` → pages/index.html, `/logement` → pages/logement.html…).
 */
export function pagesPrerendues(webDir: string): Map<string, string> {
  const pages = new Map<string, string>();
  const pagesDir = path.join(webDir, 'pages');
  if (!fs.existsSync(pagesDir)) return pages;
  for (const entry of fs.readdirSync(pagesDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.html')) continue;
    const file = path.relative(webDir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    const route = file.slice('pages'.length, -'.html'.length);
    pages.set(route === '/index' ? '/' : route, file);
  }
  return pages;
}

/** An inline script: a <script> tag without attributes (one with `src` runs a file, which `'self'` allows). */
const SCRIPT_EN_LIGNE = /<script>([\s\S]*?)<\/script>/gu;

/**
 * The CSP sources (`'sha256-…'`) of the inline scripts of the HTML the server sends (the shell and the prerendered
 * pages, whose script loads the app once the page has painted: scripts/prerender.ts `amorce`). Read from the files
 * themselves, so that the policy allows exactly the scripts they hold, and no other.
 */
export function sourcesDesScriptsEnLigne(webDir: string | undefined): string[] {
  if (!webDir || !fs.existsSync(path.join(webDir, 'index.html'))) return [];
  const sources = new Set<string>();
  for (const file of ['index.html', ...pagesPrerendues(webDir).values()]) {
    for (const [, script] of fs.readFileSync(path.join(webDir, file), 'utf8').matchAll(SCRIPT_EN_LIGNE)) {
      sources.add(`'sha256-${createHash('sha256').update(script!, 'utf8').digest('base64')}'`);
    }
  }
  return [...sources];
}
