import { useCallback, useState } from 'react';
import { errorMessage, fetchOk } from './api.js';

/** Saves a file the API answered (fetched with the request's key, which a plain link cannot send). */
export async function telecharger(url: string, headers: Record<string, string>, fileName: string): Promise<void> {
  const blob = await (await fetchOk(url, { headers })).blob();
  const objectUrl = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = objectUrl;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(objectUrl), 60_000);
}

/** A download started by a button: whether it is under way, and why it failed, in French. */
export function useTelechargement() {
  const [etat, setEtat] = useState<{ pending: boolean; error: string | null }>({ pending: false, error: null });
  const lancer = useCallback(async (telecharge: () => Promise<void>) => {
    setEtat({ pending: true, error: null });
    try {
      await telecharge();
      setEtat({ pending: false, error: null });
    } catch (error) {
      setEtat({ pending: false, error: errorMessage(error, 'Le téléchargement a échoué. Réessayez dans un instant.') });
    }
  }, []);
  return { ...etat, lancer };
}
