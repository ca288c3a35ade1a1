import { Alert, Badge, Loader, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { Navigate } from 'react-router';
import { ROLES, type Role } from '../../../domain/compte.js';
import { AccesReserve } from '../../components/AccesReserve.js';
import { formatJour } from '../../../domain/dates.js';
import { labelOf } from '../../../domain/options.js';
import { errorMessage } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { useMoi } from '../../lib/session.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useChangementRole, useUtilisateurs } from './api.js';

/** Admins list accounts and change their role (the server refuses everyone else). */
export function UtilisateursPage() {
  usePageTitle('Utilisateurs');
  const { data: moi, isPending } = useMoi();
  const [q, setQ] = useState('');
  const [debounced] = useDebouncedValue(q, 300);
  const users = useUtilisateurs(debounced, moi?.userType === 'admin');
  const changement = useChangementRole();
  const message = changement.isSuccess
    ? { ok: true, text: `${changement.variables.nom} a maintenant le rôle ${labelOf(ROLES, changement.variables.role).toLowerCase()}.` }
    : changement.isError
      ? { ok: false, text: errorMessage(changement.error, 'Le rôle n’a pas pu être changé.') }
      : null;

  if (isPending) return <Loader role="progressbar" aria-label="Chargement" />;
  if (!moi) return <Navigate to={paths.connexion} replace />;
  if (moi.userType !== 'admin') {
    return <AccesReserve>Cette page est réservée aux administrateurs.</AccesReserve>;
  }

  return (
    <Stack gap="md" maw={1100}>
      <Title order={1}>Utilisateurs</Title>
      <TextInput label="Rechercher" description="Nom, prénom, e-mail ou rôle" value={q} onChange={(e) => setQ(e.currentTarget.value)} maw={420} />
      <div role="status">{message && <Alert color={message.ok ? 'teal' : 'red'}>{message.text}</Alert>}</div>
      {users.isPending ? (
        <Loader role="progressbar" aria-label="Chargement des utilisateurs" />
      ) : users.error ? (
        <Alert color="red" role="alert">
          {users.error.message}
        </Alert>
      ) : (
        <>
          <Text>{users.data.total} compte(s)</Text>
          <Text size="sm" c="dimmed">
            Les rôles Gestionnaire et Administrateur ne se donnent qu’à une adresse e-mail confirmée : la personne doit d’abord cliquer le lien
            reçu par e-mail.
          </Text>
          {/* Scrolled sideways on a phone: reachable with the keyboard even when no row has a control. */}
          <Table.ScrollContainer minWidth={720} scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': 'Comptes' } }}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Nom</Table.Th>
                  <Table.Th scope="col">E-mail</Table.Th>
                  <Table.Th scope="col">Adresse</Table.Th>
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
                    <Table.Td>
                      {u.emailVerified ? (
                        <Badge color="teal" variant="light" c="dark.9">
                          Confirmée
                        </Badge>
                      ) : (
                        <Badge color="orange" variant="light" c="dark.9">
                          Non confirmée
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td>{formatJour(u.dateDEnregistrement)}</Table.Td>
                    <Table.Td>
                      <NativeSelect
                        aria-label={`Rôle de ${u.prenom} ${u.nom}`}
                        data={ROLES}
                        value={u.userType}
                        onChange={(e) => changement.mutate({ uid: u.uid, nom: `${u.prenom} ${u.nom}`, role: e.currentTarget.value as Role })}
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
