import { Alert, Loader, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { formatJour } from '../../../domain/dates.js';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Navigate } from 'react-router';
import { ROLES, type Role } from '../../../domain/compte.js';
import { paths } from '../../app/paths.js';
import { ApiError } from '../../lib/api.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { listUsers, setRole, useMoi } from './api.js';

/** Admins list accounts and change their role (the server refuses everyone else). */
export function UtilisateursPage() {
  usePageTitle('Utilisateurs');
  const { data: moi, isPending } = useMoi();
  const [q, setQ] = useState('');
  const [debounced] = useDebouncedValue(q, 300);
  const queryClient = useQueryClient();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const users = useQuery({ queryKey: ['utilisateurs', debounced], queryFn: () => listUsers(debounced), enabled: moi?.userType === 'admin' });

  if (isPending) return <Loader aria-label="Chargement" />;
  if (!moi) return <Navigate to={paths.connexion} replace />;
  if (moi.userType !== 'admin') {
    return (
      <Stack maw={640}>
        <Title order={1}>Accès réservé</Title>
        <Alert color="orange">Cette page est réservée aux administrateurs.</Alert>
      </Stack>
    );
  }

  async function change(uid: string, name: string, role: Role) {
    setMessage(null);
    try {
      await setRole(uid, role);
      setMessage({ ok: true, text: `${name} a maintenant le rôle ${ROLES.find((r) => r.value === role)!.label.toLowerCase()}.` });
    } catch (error) {
      setMessage({ ok: false, text: error instanceof ApiError ? error.message : 'Le rôle n’a pas pu être changé.' });
    }
    await queryClient.invalidateQueries({ queryKey: ['utilisateurs'] });
  }

  return (
    <Stack gap="md" maw={1100}>
      <Title order={1}>Utilisateurs</Title>
      <TextInput label="Rechercher" description="Nom, prénom, e-mail ou rôle" value={q} onChange={(e) => setQ(e.currentTarget.value)} maw={420} />
      <div role="status">{message && <Alert color={message.ok ? 'teal' : 'red'}>{message.text}</Alert>}</div>
      {users.isPending ? (
        <Loader aria-label="Chargement des utilisateurs" />
      ) : users.error ? (
        <Alert color="red" role="alert">
          {users.error.message}
        </Alert>
      ) : (
        <>
          <Text>{users.data.total} compte(s)</Text>
          <Table.ScrollContainer minWidth={640}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Nom</Table.Th>
                  <Table.Th scope="col">E-mail</Table.Th>
                  <Table.Th scope="col">Inscription</Table.Th>
                  <Table.Th scope="col">Rôle</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {users.data.data.map((u) => (
                  <Table.Tr key={u.uid}>
                    <Table.Td>
                      {u.prenom} {u.nom}
                    </Table.Td>
                    <Table.Td>{u.email}</Table.Td>
                    <Table.Td>{formatJour(u.dateDEnregistrement)}</Table.Td>
                    <Table.Td>
                      <NativeSelect
                        aria-label={`Rôle de ${u.prenom} ${u.nom}`}
                        data={ROLES.map((r) => ({ value: r.value, label: r.label }))}
                        value={u.userType}
                        onChange={(e) => void change(u.uid, `${u.prenom} ${u.nom}`, e.currentTarget.value as Role)}
                        disabled={u.uid === moi.uid}
                      />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
    </Stack>
  );
}
