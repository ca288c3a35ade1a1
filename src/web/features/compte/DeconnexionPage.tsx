import { Loader, Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { paths } from '../../lib/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useDeconnexion } from './api.js';

/** /deconnexion ends the server session, then goes to the landing page (docs/produit.md « Comptes »). */
export function DeconnexionPage() {
  usePageTitle('Déconnexion');
  const navigate = useNavigate();
  const { mutate: deconnecter } = useDeconnexion();
  useEffect(() => {
    deconnecter(undefined, { onSettled: () => navigate(paths.accueil, { replace: true }) });
  }, [deconnecter, navigate]);
  return (
    <Stack align="flex-start" role="status">
      <Loader size="sm" aria-hidden="true" />
      <Text>Déconnexion…</Text>
    </Stack>
  );
}
