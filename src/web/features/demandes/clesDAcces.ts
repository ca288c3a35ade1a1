/**
 * Private keys of housing requests kept on this device (docs/produit.md « Confidentialité »), so that a resident
 * comes back to the full view without the link. Stored in localStorage, by numéro unique.
 */
const STORAGE_KEY = 'quartier-vivant.cles';

function readAll(): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export function getCle(numeroUnique: string): string | undefined {
  return readAll()[numeroUnique];
}

export function saveCle(numeroUnique: string, cle: string): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ ...readAll(), [numeroUnique]: cle }));
  } catch {
    /* private browsing or full storage: the link still works */
  }
}

export function numerosEnregistres(): string[] {
  return Object.keys(readAll()).sort();
}

/** Reads `#cle=…` from the address, keeps it on the device and removes it from the address bar. */
export function takeCleFromHash(numeroUnique: string): void {
  const match = /(?:^#|&)cle=([A-Za-z0-9_-]+)/u.exec(window.location.hash);
  if (!match?.[1]) return;
  saveCle(numeroUnique, match[1]);
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
}
