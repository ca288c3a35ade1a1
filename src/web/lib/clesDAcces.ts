import { useSyncExternalStore } from 'react';
import { effacerTousLesBrouillons } from './brouillon.js';
import { oublierClesSignalements } from './clesSignalements.js';

/**
 * Private keys of housing requests kept on this device (docs/produit.md « Confidentialité »), so that a resident
 * comes back to the full view without the link. By numéro unique, under one storage key:
 * - in sessionStorage by default: the key goes when the browser session ends (the tab or window is closed);
 * - in localStorage when the resident ticked « Se souvenir de cet appareil ». Keys stored there by earlier
 *   versions (which always used localStorage) count as remembered, until they are forgotten.
 * « Oublier cet appareil » and signing out remove every key from both.
 */
const STORAGE_KEY = 'quartier-vivant.cles';

type Kind = 'session' | 'local';

/** The storage, or null where the browser refuses it (private browsing, disabled storage). */
function storage(kind: Kind): Storage | null {
  try {
    return kind === 'local' ? window.localStorage : window.sessionStorage;
  } catch {
    return null;
  }
}

function readAll(kind: Kind): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(storage(kind)?.getItem(STORAGE_KEY) ?? '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

function writeAll(kind: Kind, cles: Record<string, string>): void {
  try {
    if (Object.keys(cles).length === 0) storage(kind)?.removeItem(STORAGE_KEY);
    else storage(kind)?.setItem(STORAGE_KEY, JSON.stringify(cles));
  } catch {
    /* full storage: the link still works */
  }
}

const listeners = new Set<() => void>();
function notify(): void {
  for (const listener of listeners) listener();
}

export function getCle(numeroUnique: string): string | undefined {
  return readAll('session')[numeroUnique] ?? readAll('local')[numeroUnique];
}

/** True when the key of this request is remembered on this device (localStorage). */
export function estMemorisee(numeroUnique: string): boolean {
  return numeroUnique in readAll('local');
}

/** Keeps a key: for this browser session only, unless `seSouvenir` (then until it is forgotten). */
export function saveCle(numeroUnique: string, cle: string, seSouvenir = false): void {
  const [keep, drop]: [Kind, Kind] = seSouvenir ? ['local', 'session'] : ['session', 'local'];
  writeAll(keep, { ...readAll(keep), [numeroUnique]: cle });
  writeAll(drop, Object.fromEntries(Object.entries(readAll(drop)).filter(([numero]) => numero !== numeroUnique)));
  notify();
}

/** The resident ticks or unticks « Se souvenir de cet appareil » for a key already kept. */
export function setSeSouvenir(numeroUnique: string, seSouvenir: boolean): void {
  const cle = getCle(numeroUnique);
  if (cle) saveCle(numeroUnique, cle, seSouvenir);
}

export function numerosEnregistres(): string[] {
  return [...new Set([...Object.keys(readAll('session')), ...Object.keys(readAll('local'))])].sort();
}

/** A withdrawn request: its key goes from both storages (it opens nothing any more). */
export function oublierCle(numeroUnique: string): void {
  for (const kind of ['session', 'local'] as const) {
    writeAll(kind, Object.fromEntries(Object.entries(readAll(kind)).filter(([numero]) => numero !== numeroUnique)));
  }
  notify();
}

/** « Oublier cet appareil » and sign-out: every key goes, housing requests' (both storages) and reports', and every draft. */
export function oublierToutesLesCles(): void {
  effacerTousLesBrouillons();
  oublierClesSignalements();
  for (const kind of ['session', 'local'] as const) {
    try {
      storage(kind)?.removeItem(STORAGE_KEY);
    } catch {
      /* nothing to remove */
    }
  }
  notify();
}

/**
 * Reads `#cle=…` from the address, keeps it on the device (remembered if it already was) and removes it from
 * the address bar. True when a key was taken.
 */
export function takeCleFromHash(numeroUnique: string): boolean {
  const match = /(?:^#|&)cle=([A-Za-z0-9_-]+)/u.exec(window.location.hash);
  if (!match?.[1]) return false;
  saveCle(numeroUnique, match[1], estMemorisee(numeroUnique));
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  return true;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Another tab forgetting the device (localStorage) shows here too.
  const onStorage = (event: StorageEvent) => {
    if (event.key === STORAGE_KEY || event.key === null) listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** The numéros whose key this device keeps, kept up to date when keys are saved or forgotten. */
export function useNumerosEnregistres(): string[] {
  // The prerendered page (and the hydration of it) shows none; the device's own come right after.
  const snapshot = useSyncExternalStore(subscribe, () => numerosEnregistres().join('\n'), () => '');
  return snapshot ? snapshot.split('\n') : [];
}

/** Whether this request's key is remembered, kept up to date. */
export function useEstMemorisee(numeroUnique: string): boolean {
  return useSyncExternalStore(subscribe, () => estMemorisee(numeroUnique), () => false);
}
