import { Alert, Anchor, List, Loader, Stack, Text, Title } from '@mantine/core';
import { AVERTIR_AVANT_FIN_ABSOLUE_MS } from '../../../domain/compte.js';
import type { ReactNode } from 'react';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useInformationsLegales } from './api.js';
import { Section } from './Section.js';

/** The date of the internal evaluation this statement rests on (docs/accessibilite.md). */
const DATE_DECLARATION = '26 novembre 2026';

function SousSection({ titre, children }: { titre: string; children: ReactNode }) {
  return (
    <div>
      <Title order={3} size="h4" mb={4}>
        {titre}
      </Title>
      <Stack gap="xs">{children}</Stack>
    </div>
  );
}

/**
 * « Déclaration d’accessibilité » (loi n° 2005-102, article 47; décret n° 2019-768), after the RGAA 4.1
 * model: conformance state, tests, what is not accessible, how the statement was made, contact and recourse.
 * Who to write to comes from the server's settings (LEGAL_*), as on the other legal pages; everything else
 * is static, so the recourse shows even when those settings cannot be loaded. The footer's mention
 * (« Accessibilité : non conforme », app/Layout.tsx) must say the same state as this page. « Non conforme »: no
 * audit has been made yet (RGAA « Obligations »: without an audit the mention is « non conforme »).
 */
export function AccessibilitePage() {
  usePageTitle('Déclaration d’accessibilité');
  const { data, isPending, isError } = useInformationsLegales();
  return (
    <Stack maw={760} gap="lg">
      <Title order={1}>Déclaration d’accessibilité</Title>
      <Text>
        L’éditeur de Quartier Vivant s’engage à rendre ce service en ligne accessible, conformément à l’article 47 de la loi
        n° 2005-102 du 11 février 2005 et au décret n° 2019-768 du 24 juillet 2019.
      </Text>
      <Text>
        Cette déclaration d’accessibilité s’applique au site Quartier Vivant, service de la mairie annexe du Jas de Bouffan
        (Aix-en-Provence) pour les demandes de logement social et la vie du quartier.
      </Text>

      <Section titre="État de conformité">
        <Text>
          Le site Quartier Vivant est <strong>non conforme</strong> avec le référentiel général d’amélioration de
          l’accessibilité (RGAA), version 4.1 : aucun audit n’a encore été réalisé, et les limites connues sont énumérées
          ci-dessous.
        </Text>
        <Text>
          Aucun audit de conformité complet n’a encore été réalisé : cet état résulte d’une évaluation interne, menée le{' '}
          {DATE_DECLARATION}.
        </Text>
      </Section>

      <Section titre="Résultats des tests">
        <Text>
          Faute d’audit complet, aucun taux de conformité aux critères du RGAA n’est publié. L’évaluation interne a porté sur
          un échantillon de quatre pages :
        </Text>
        <List spacing={4}>
          <List.Item>la page de connexion ;</List.Item>
          <List.Item>le formulaire de demande de logement social ;</List.Item>
          <List.Item>la page d’une demande ;</List.Item>
          <List.Item>la liste des demandes, réservée aux agents de la mairie annexe.</List.Item>
        </List>
        <Text>
          À chaque nouvelle version, des contrôles automatiques avec l’outil axe-core sont faits sur les pages du site,
          sur un écran de téléphone (375 pixels de large) et sur un écran d’ordinateur (1 280 pixels de large). Ces contrôles
          ne détectent qu’une partie des défauts d’accessibilité.
        </Text>
      </Section>

      <Section titre="Contenus non accessibles">
        <SousSection titre="Non-conformités">
          <Text>
            Les défauts relevés par l’évaluation interne du {DATE_DECLARATION} ont été corrigés : la structure de certaines
            pages (titres, pied de page), l’intitulé de certains liens, et la façon dont certains messages et certaines listes
            sont restitués par les lecteurs d’écran. Le site reste pourtant « non conforme » : tant qu’aucun audit n’a été
            réalisé, il ne peut pas être déclaré conforme, même partiellement.
          </Text>
          {/* The 12 hours: SESSION_LIMITS.gestion.absoluteMs (src/server/auth/sessions.ts); the 10 minutes:
              AVERTIR_AVANT_FIN_ABSOLUE_MS (src/domain/compte.ts). */}
          <Text>Limites connues à ce jour :</Text>
          <List spacing={4}>
            <List.Item>
              l’attestation d’enregistrement d’une demande (fichier PDF) est structurée pour être lue par les lecteurs
              d’écran, mais elle n’a pas encore été contrôlée avec un outil de vérification des PDF accessibles (norme
              PDF/UA) ; les informations qu’elle contient (numéro unique, date d’enregistrement, statut) figurent aussi sur
              la page de la demande ;
            </List.Item>
            <List.Item>
              pour les agents de la mairie annexe, la session de connexion prend fin 12 heures après la connexion, même en
              pleine activité, et ne peut pas être prolongée ; un message les prévient {AVERTIR_AVANT_FIN_ABSOLUE_MS / 60_000} minutes avant ;
            </List.Item>
            <List.Item>la restitution du site par les lecteurs d’écran n’a pas encore été testée.</List.Item>
          </List>
          <Text>
            Faute d’audit complet, d’autres contenus peuvent ne pas être accessibles. Si vous en rencontrez, signalez-les-nous
            (voir « Retour d’information et contact ») : nous vous aiderons à accéder à l’information et nous corrigerons le
            défaut.
          </Text>
        </SousSection>
        <SousSection titre="Dérogations pour charge disproportionnée">
          <Text>Aucune dérogation pour charge disproportionnée n’est invoquée.</Text>
        </SousSection>
        <SousSection titre="Contenus non soumis à l’obligation d’accessibilité">
          <Text>
            Les documents que les habitants envoient eux-mêmes à l’appui de leur demande (pièces justificatives scannées ou
            photographiées : livret de famille, pièce d’identité, avis d’imposition, bulletins de salaire…). Ces contenus ne
            sont ni produits ni contrôlés par la mairie.
          </Text>
        </SousSection>
      </Section>

      <Section titre="Établissement de cette déclaration">
        <Text>Cette déclaration a été établie le {DATE_DECLARATION}.</Text>
        <SousSection titre="Technologies utilisées pour la réalisation du site">
          <Text>HTML5, CSS, JavaScript, WAI-ARIA.</Text>
        </SousSection>
        <SousSection titre="Environnement de test">
          <Text>
            Navigateur Chromium, avec l’outil axe-core, et navigation au clavier seul. Les vérifications avec les lecteurs
            d’écran NVDA (Windows) et VoiceOver (macOS et iOS) restent à faire.
          </Text>
        </SousSection>
        <SousSection titre="Outils pour évaluer l’accessibilité">
          <Text>axe-core (contrôles automatiques), relecture du code des pages au regard des critères du RGAA 4.1.</Text>
        </SousSection>
        <SousSection titre="Pages du site ayant fait l’objet de la vérification">
          <List spacing={4}>
            <List.Item>Connexion (/connexion)</List.Item>
            <List.Item>Nouvelle demande de logement (/logement/nouveau)</List.Item>
            <List.Item>Page d’une demande (/logement/ suivi du numéro unique de la demande, par exemple /logement/013…)</List.Item>
            <List.Item>Liste des demandes, pour les agents (/logement/list)</List.Item>
          </List>
        </SousSection>
      </Section>

      <Section titre="Retour d’information et contact">
        <Text>
          Si vous n’arrivez pas à accéder à un contenu ou à un service, vous pouvez contacter la mairie annexe pour être
          orienté vers une alternative accessible ou obtenir le contenu sous une autre forme.
        </Text>
        {isPending && <Loader role="progressbar" aria-label="Chargement des coordonnées de la mairie annexe" />}
        {isError && (
          <Alert color="red" role="alert">
            Les coordonnées de la mairie annexe n’ont pas pu être chargées. Rechargez la page dans un instant, ou rendez-vous à
            la mairie annexe du Jas de Bouffan.
          </Alert>
        )}
        {data && (
          <List spacing={4}>
            <List.Item>Contact : {data.contact}</List.Item>
            <List.Item>
              Éditeur du site : {data.editeur}, {data.adresse}
            </List.Item>
          </List>
        )}
        <Text>
          Si vous avez déposé une demande de logement, vous pouvez aussi écrire à la mairie annexe depuis la page de votre
          demande, rubrique « Messages ».
        </Text>
      </Section>

      <Section titre="Voies de recours">
        <Text>
          Cette procédure est à utiliser dans le cas suivant : vous avez signalé à la mairie un défaut d’accessibilité qui vous
          empêche d’accéder à un contenu ou à un des services du site, et vous n’avez pas obtenu de réponse satisfaisante.
        </Text>
        <Text>Vous pouvez alors saisir le Défenseur des droits :</Text>
        <List spacing={4}>
          <List.Item>
            <Anchor href="https://formulaire.defenseurdesdroits.fr/" rel="noreferrer">
              écrire un message au Défenseur des droits (formulaire en ligne)
            </Anchor>{' '}
            ;
          </List.Item>
          <List.Item>
            <Anchor href="https://www.defenseurdesdroits.fr/saisir/delegues" rel="noreferrer">
              contacter le délégué du Défenseur des droits dans votre région
            </Anchor>{' '}
            ;
          </List.Item>
          <List.Item>
            envoyer un courrier par la poste (gratuit, ne pas mettre de timbre) : Défenseur des droits, Libre réponse 71120,
            75342 Paris CEDEX 07.
          </List.Item>
        </List>
      </Section>
    </Stack>
  );
}
