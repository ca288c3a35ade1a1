import { useEffect } from 'react';

/** Each page's own French <title>. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} — Quartier Vivant`;
  }, [title]);
}
