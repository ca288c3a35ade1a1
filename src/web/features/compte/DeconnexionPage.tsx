import { Loader, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { paths } from '../../app/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { setLocalSignedIn, signOut } from './api.js';

/** /deconnexion ends the server session, then goes to the landing page (SPEC §2). */
export function DeconnexionPage() {
  usePageTitle('Déconnexion');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(() => {
    signOut()
      .catch(() => setLocalSignedIn(null))
      .finally(() => {
        queryClient.setQueryData(['moi'], null);
        queryClient.removeQueries({ queryKey: ['logement'] });
        navigate(paths.accueil, { replace: true });
      });
  }, [navigate, queryClient]);
  return (
    <Stack align="flex-start" role="status">
      <Loader size="sm" aria-hidden="true" />
      <Text>Déconnexion…</Text>
    </Stack>
  );
}
