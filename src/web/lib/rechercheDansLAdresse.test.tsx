// @vitest-environment jsdom
import { act, renderHook } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { useRechercheDansLAdresse } from './rechercheDansLAdresse.js';

describe('a search field bound to the address', () => {
  it('keeps what is typed while its own search reaches the address late, and follows a search put there by something else', async () => {
    vi.useFakeTimers();
    try {
      const envoyer = vi.fn<(value: string) => void>();
      const { result, rerender } = renderHook(({ adresse }) => useRechercheDansLAdresse(adresse, envoyer), { initialProps: { adresse: 'pagnol' } });
      expect(result.current[0]).toBe('pagnol');

      // The field is cleared; after the quiet time its search is sent…
      act(() => result.current[1](''));
      act(() => void vi.advanceTimersByTime(300));
      expect(envoyer).toHaveBeenLastCalledWith('');
      // …but the address still holds the search before for a render: the field stays as the person left it.
      rerender({ adresse: 'pagnol' });
      expect(result.current[0]).toBe('');
      // The person types on; then the address gets the field's own search: nothing typed is lost.
      act(() => result.current[1]('b'));
      rerender({ adresse: '' });
      expect(result.current[0]).toBe('b');
      act(() => result.current[1]('banc'));
      act(() => void vi.advanceTimersByTime(300));
      expect(envoyer).toHaveBeenLastCalledWith('banc');
      rerender({ adresse: 'banc' });
      expect(result.current[0]).toBe('banc');

      // Something else puts a search in the address (a saved view), then takes it back (the browser's back).
      rerender({ adresse: 'velo' });
      expect(result.current[0]).toBe('velo');
      rerender({ adresse: 'banc' });
      expect(result.current[0]).toBe('banc');
      expect(envoyer).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the space typed between two words while the address holds the search without it', () => {
    vi.useFakeTimers();
    try {
      const envoyer = vi.fn<(value: string) => void>();
      const { result, rerender } = renderHook(({ adresse }) => useRechercheDansLAdresse(adresse, envoyer), { initialProps: { adresse: '' } });
      act(() => result.current[1]('jean '));
      act(() => void vi.advanceTimersByTime(300));
      expect(envoyer).toHaveBeenLastCalledWith('jean ');
      // The address reads its search trimmed (listeDepuisAdresse): the field's own search, not another one.
      rerender({ adresse: 'jean' });
      expect(result.current[0]).toBe('jean ');
      act(() => result.current[1]('jean dupont'));
      expect(result.current[0]).toBe('jean dupont');
    } finally {
      vi.useRealTimers();
    }
  });
});
