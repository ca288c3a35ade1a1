import { Alert, Badge, Card, Group, Loader, NativeSelect, Pagination, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue, useMediaQuery } from '@mantine/hooks';
import { useState } from 'react';
import { PAGE_UTILISATEURS, ROLES, type ProfilPersonnel, type Role } from '../../../domain/compte.js';
import { AccesReserve, ConnexionRequise } from '../../components/AccesReserve.js';
import { formatJour } from '../../../domain/dates.js';
import { labelOf } from '../../../domain/options.js';
import { de, pluriel } from '../../../domain/pluriel.js';
import { errorMessage } from '../../lib/api.js';
import { useMoi } from '../../lib/session.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useChangementRole, useUtilisateurs } from './api.js';

/** Admins list accounts and change their role (the server refuses everyone else). */
export function UtilisateursPage() {
  usePageTitle('Utilisateurs');
  const { data: moi, isPending } = useMoi();
  const [q, setQ] = useState('');
  const [debounced] = useDebouncedValue(q, 300);
  // 50 accounts a page (the server's); a new search starts at its first page.
  const [page, setPage] = useState({ q: '', n: 1 });
  const numero = page.q === debounced ? page.n : 1;
  const users = useUtilisateurs(debounced, numero, moi?.userType === 'admin');
  const pages = users.data ? Math.max(1, Math.ceil(users.data.total / PAGE_UTILISATEURS)) : 1;
  const changement = useChangementRole();
  // Below Mantine's sm (48em) the accounts stack as cards: a table's last column, the role, would be off screen.
  const etroit = useMediaQuery('(max-width: 47.99em)');
  // A role changed is said politely (status region); a change refused, as an alert.
  const reussite = changement.isSuccess
    ? `${changement.variables.nom} a maintenant le rôle ${labelOf(ROLES, changement.variables.role).toLowerCase()}.`
    : null;
  const echec = changement.isError ? errorMessage(changement.error, 'Le rôle n’a pas pu être changé.') : null;

  if (isPending) return <Loader role="progressbar" aria-label="Chargement" />;
  if (!moi) return <ConnexionRequise />;
  if (moi.userType !== 'admin') {
    return <AccesReserve>Cette page est réservée aux administrateurs.</AccesReserve>;
  }

  return (
    <Stack gap="md" maw={1100}>
      <Title order={1}>Utilisateurs</Title>
      <TextInput label="Rechercher" description="Nom, prénom, e-mail ou rôle" value={q} onChange={(e) => setQ(e.currentTarget.value)} maw={420} />
      <div role="status">
        {reussite && (
          <Alert role="none" color="teal">
            {reussite}
          </Alert>
        )}
      </div>
      {echec && (
        <Alert color="red" role="alert">
          {echec}
        </Alert>
      )}
      {users.isPending ? (
        <Loader role="progressbar" aria-label="Chargement des utilisateurs" />
      ) : users.error ? (
        <Alert color="red" role="alert">
          {users.error.message}
        </Alert>
      ) : (
        <>
          <Text>{pluriel(users.data.total, 'compte', 'comptes')}</Text>
          <Text size="sm" c="dimmed">
            Les rôles Gestionnaire et Administrateur ne se donnent qu’à une adresse e-mail confirmée : la personne doit d’abord cliquer le lien
            reçu par e-mail.
          </Text>
          {etroit ? (
            <Stack component="ul" gap="sm" aria-label="Comptes" p={0} m={0} style={{ listStyle: 'none' }}>
              {users.data.data.map((u) => (
                <Card component="li" key={u.uid} withBorder padding="sm">
                  <Stack gap={6}>
                    <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                      {u.prenom} {u.nom}
                    </Text>
                    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                      {u.email}
                    </Text>
                    <Group gap="xs">
                      <AdresseConfirmee confirmee={u.emailVerified} enClair />
                      <Text size="sm" c="dimmed">
                        Inscription le {formatJour(u.dateDEnregistrement)}
                      </Text>
                    </Group>
                    <ChoixDuRole compte={u} label="Rôle" disabled={u.uid === moi.uid} onChange={changement.mutate} />
                  </Stack>
                </Card>
              ))}
            </Stack>
          ) : (
            /* Scrolled sideways on a narrow window: reachable with the keyboard even when no row has a control. */
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
                        <AdresseConfirmee confirmee={u.emailVerified} />
                      </Table.Td>
                      <Table.Td>{formatJour(u.dateDEnregistrement)}</Table.Td>
                      <Table.Td>
                        <ChoixDuRole compte={u} disabled={u.uid === moi.uid} onChange={changement.mutate} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {pages > 1 && (
            <Pagination
              total={pages}
              value={Math.min(numero, pages)}
              onChange={(n) => setPage({ q: debounced, n })}
              getItemProps={(n) => ({ 'aria-label': `Page ${n}` })}
              getControlProps={(control) => ({
                'aria-label': { first: 'Première page', previous: 'Page précédente', next: 'Page suivante', last: 'Dernière page' }[control],
              })}
            />
          )}
        </>
      )}
    </Stack>
  );
}

/** Whether the account's e-mail address is confirmed; on a card, where no column header says « Adresse », in full. */
function AdresseConfirmee({ confirmee, enClair = false }: { confirmee: boolean; enClair?: boolean }) {
  const texte = confirmee ? 'Confirmée' : 'Non confirmée';
  return (
    <Badge color={confirmee ? 'teal' : 'orange'} variant="light" c="dark.9">
      {enClair ? `Adresse ${texte.toLowerCase()}` : texte}
    </Badge>
  );
}

/** The account's role, changed on choosing: « Rôle d’Élodie Martin » for assistive technologies, in the table and on a card alike. */
function ChoixDuRole({
  compte,
  label,
  disabled,
  onChange,
}: {
  compte: ProfilPersonnel;
  label?: string;
  disabled: boolean;
  onChange: (changement: { uid: string; nom: string; role: Role }) => void;
}) {
  const nom = `${compte.prenom} ${compte.nom}`;
  return (
    <NativeSelect
      label={label}
      aria-label={`Rôle ${de(nom)}`}
      data={ROLES}
      value={compte.userType}
      onChange={(e) => onChange({ uid: compte.uid, nom, role: e.currentTarget.value as Role })}
      disabled={disabled}
    />
  );
}
