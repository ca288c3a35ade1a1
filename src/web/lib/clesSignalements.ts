import { useSyncExternalStore } from 'react';

/**
 * Private keys of technical reports kept in this tab (docs/produit.md « Signalements techniques »), as the housing
 * requests' are (clesDAcces.ts): the follow link's key (`#cle=…`) lets its holder add photos and say « Toujours pas
 * résolu ». By report number, in sessionStorage only: the key goes when the tab or window is closed, and comes back
 * with the e-mailed link. Apart from the housing keys, so that « Mes demandes » never lists a report.
 */
const STORAGE_KEY = 'quartier-vivant.cles-signalements';

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

function readAll(): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(storage()?.getItem(STORAGE_KEY) ?? '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

const listeners = new Set<() => void>();

function writeAll(cles: Record<string, string>): void {
  try {
    if (Object.keys(cles).length === 0) storage()?.removeItem(STORAGE_KEY);
    else storage()?.setItem(STORAGE_KEY, JSON.stringify(cles));
  } catch {
    /* full or refused storage: the link still works */
  }
  for (const listener of listeners) listener();
}

export function getCleSignalement(numero: string): string | undefined {
  return readAll()[numero];
}

export function saveCleSignalement(numero: string, cle: string): void {
  writeAll({ ...readAll(), [numero]: cle });
}

/** Every report key of this tab goes (sign-out, « Oublier cet appareil »). */
export function oublierClesSignalements(): void {
  writeAll({});
}

/** The header that proves the holder of a report's follow link, when this tab keeps its key. */
export function enTetesSignalant(numero: string): Record<string, string> {
  const cle = getCleSignalement(numero);
  return cle ? { 'X-Access-Key': cle } : {};
}

/**
 * Reads `#cle=…` from the address, keeps it in this tab and removes it from the address bar (so that it is never
 * shared by copying the address). True when a key was taken.
 */
export function takeCleSignalementFromHash(numero: string): boolean {
  const match = /(?:^#|&)cle=([A-Za-z0-9_-]+)/u.exec(window.location.hash);
  if (!match?.[1]) return false;
  saveCleSignalement(numero, match[1]);
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  return true;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether this tab keeps the key of this report, kept up to date. */
export function useCleSignalement(numero: string): boolean {
  return useSyncExternalStore(subscribe, () => getCleSignalement(numero) !== undefined, () => false);
}
