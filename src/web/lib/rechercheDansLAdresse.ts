import { useDebouncedCallback } from '@mantine/hooks';
import { useState } from 'react';

/**
 * A list's search field bound to the address's `q` (`adresse`): what is typed goes to the address after `ms` of
 * quiet (`envoyer`); a search put there by something else (a saved view, the browser's back, « Effacer ») is written
 * into the field. The field's own search arriving there is not written back: the person may have typed on meanwhile,
 * and the address may follow a render later than the field (then, in between, it still holds the search before).
 * Answers the field's value and what its onChange calls.
 */
export function useRechercheDansLAdresse(adresse: string, envoyer: (value: string) => void, ms = 300): [string, (value: string) => void] {
  const [q, setQ] = useState(adresse);
  // The address's search at the last render, and the last one this field sent or followed.
  const [vue, setVue] = useState(adresse);
  const [envoyee, setEnvoyee] = useState(adresse);
  if (adresse !== vue) {
    setVue(adresse);
    // The address holds a search trimmed (« jean » for the « jean » and a space the field sent): its own still.
    if (adresse.trim() !== envoyee.trim()) {
      setEnvoyee(adresse);
      setQ(adresse);
    }
  }
  const chercher = useDebouncedCallback((value: string) => {
    setEnvoyee(value);
    envoyer(value);
  }, ms);
  return [
    q,
    (value: string) => {
      setQ(value);
      chercher(value);
    },
  ];
}
