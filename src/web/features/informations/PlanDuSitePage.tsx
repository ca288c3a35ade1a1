import { Anchor, Box, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { isGestionnaire } from '../../../domain/compte.js';
import { paths } from '../../lib/paths.js';
import { useMoi } from '../../lib/session.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { Section } from './Section.js';

/** A page of the site map: its link, a word on it when needed, and the pages under it. */
interface Page {
  to: string;
  label: string;
  precision?: string;
  pages?: Page[];
}

const SERVICES: Page[] = [
  { to: paths.accueil, label: 'Accueil' },
  {
    to: paths.logement,
    label: 'Logement social',
    pages: [{ to: paths.nouvelleDemande, label: 'Nouvelle demande de logement social' }],
  },
  {
    to: paths.technique,
    label: 'Signalements techniques',
    pages: [{ to: paths.nouveauSignalement, label: 'Nouveau signalement technique' }],
  },
  { to: paths.securite, label: 'Sécurité' },
];

const COMPTE_DECONNECTE: Page[] = [
  {
    to: paths.connexion,
    label: 'Connexion',
    precision: 'et création d’un compte',
    pages: [{ to: paths.motDePasseOublie, label: 'Mot de passe oublié' }],
  },
];

const COMPTE_CONNECTE: Page[] = [
  { to: paths.profil, label: 'Mon profil' },
  { to: paths.deconnexion, label: 'Déconnexion' },
];

const GESTION: Page[] = [
  { to: paths.toutesLesDemandes, label: 'Toutes les demandes' },
  { to: paths.signalements, label: 'Tous les signalements techniques' },
];

const ADMINISTRATION: Page[] = [
  { to: paths.utilisateurs, label: 'Utilisateurs' },
  { to: paths.etiquettes, label: 'Étiquettes' },
  { to: paths.categories, label: 'Catégories de signalements' },
  { to: paths.clesOpen311, label: 'Clés d’API Open311' },
];

const INFORMATIONS: Page[] = [
  { to: paths.donneesPersonnelles, label: 'Données personnelles' },
  { to: paths.mentionsLegales, label: 'Mentions légales' },
  { to: paths.accessibilite, label: 'Déclaration d’accessibilité' },
];

/**
 * Links as nested lists (ul > li > ul), each named as the page's own title. Plain elements: Mantine's List.Item
 * puts its content in a span, where a nested list is not valid HTML (RGAA 8.2).
 */
function Pages({ pages }: { pages: Page[] }) {
  return (
    <Box component="ul" m={0} pl="lg">
      {pages.map((page) => (
        <Box component="li" key={page.to} mt={4}>
          <Anchor component={Link} to={page.to}>
            {page.label}
          </Anchor>
          {page.precision && ` (${page.precision})`}
          {page.pages && <Pages pages={page.pages} />}
        </Box>
      ))}
    </Box>
  );
}

/**
 * « Plan du site » (RGAA 12.1: a second way to find a page, beside the menu), linked from the footer. Every
 * page a person can open from a link: the services, the account's (as the menu shows them, signed in or
 * out), and, to those whose role opens them, the managers' and the admins' (the same session as the menu,
 * app/Layout.tsx). A request's page opens with its private link or its number, so it is said, not listed.
 */
export function PlanDuSitePage() {
  usePageTitle('Plan du site');
  const { data: moi } = useMoi();
  return (
    <Stack maw={760} gap="lg">
      <Title order={1}>Plan du site</Title>
      <Text>Toutes les pages de Quartier Vivant, par rubrique.</Text>

      <Section titre="Services">
        <Pages pages={SERVICES} />
        <Text>
          La page d’une demande de logement s’ouvre avec le lien privé reçu par e-mail, ou depuis « Logement social » avec le numéro
          unique de la demande.
        </Text>
      </Section>

      <Section titre="Mon compte">
        <Pages pages={moi ? COMPTE_CONNECTE : COMPTE_DECONNECTE} />
      </Section>

      {moi && isGestionnaire(moi.userType) && (
        <Section titre="Gestion">
          <Pages pages={GESTION} />
        </Section>
      )}

      {moi?.userType === 'admin' && (
        <Section titre="Administration">
          <Pages pages={ADMINISTRATION} />
        </Section>
      )}

      <Section titre="Informations">
        <Pages pages={INFORMATIONS} />
      </Section>
    </Stack>
  );
}
