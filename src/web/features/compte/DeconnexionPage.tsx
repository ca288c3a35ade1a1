import { Loader, Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { oublierToutesLesCles } from '../../lib/clesDAcces.js';
import { paths } from '../../lib/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useDeconnexion } from './api.js';

/**
 * /deconnexion ends the server session, forgets every private key kept in this browser (a shared computer must not
 * open the previous resident's request: docs/produit.md « Confidentialité »), then goes to the landing page.
 */
export function DeconnexionPage() {
  usePageTitle('Déconnexion');
  const navigate = useNavigate();
  const { mutate: deconnecter } = useDeconnexion();
  useEffect(() => {
    oublierToutesLesCles();
    deconnecter(undefined, { onSettled: () => navigate(paths.accueil, { replace: true }) });
  }, [deconnecter, navigate]);
  return (
    <Stack align="flex-start" role="status">
      <Loader size="sm" aria-hidden="true" />
      <Text>Déconnexion…</Text>
    </Stack>
  );
}
