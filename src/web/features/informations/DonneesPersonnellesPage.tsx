import { Alert, Anchor, List, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { pluriel } from '../../../domain/pluriel.js';
import { useParametres } from '../../lib/parametres.js';
import { paths } from '../../lib/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useInformationsLegales } from './api.js';
import { Section } from './Section.js';


/**
 * « Données personnelles » (RGPD, articles 13 and 14): purposes, data, recipients, retention, rights.
 * Every duration shown comes from the server's own settings (docs/produit.md « Données personnelles »).
 */
export function DonneesPersonnellesPage() {
  usePageTitle('Données personnelles');
  const { data, isPending, isError } = useInformationsLegales();
  const { data: parametres } = useParametres();
  const cycle = parametres?.cycleDeVie;
  return (
    <Stack maw={760} gap="lg">
      <Title order={1}>Données personnelles</Title>
      <Text>
        Quartier Vivant recueille les informations nécessaires à vos démarches auprès de la mairie annexe du Jas de Bouffan,
        et seulement celles-là. Cette page dit lesquelles, pourquoi, qui les voit, combien de temps elles sont gardées et
        comment exercer vos droits.
      </Text>
      {isPending && <Loader role="progressbar" aria-label="Chargement des informations" />}
      {isError && (
        <Alert color="red" role="alert">
          Cette page n’a pas pu être chargée entièrement. Rechargez-la dans un instant.
        </Alert>
      )}
      {data && (
        <>
          <Section titre="Qui est responsable de vos données">
            <Text>
              {data.editeur}, {data.adresse}.
            </Text>
            <Text>Délégué à la protection des données : {data.dpo}.</Text>
          </Section>

          <Section titre="Pourquoi nous les utilisons">
            <List spacing="xs">
              <List.Item>
                <strong>Demandes de logement social</strong> : enregistrer votre demande, l’instruire, vous informer de son
                avancement et recevoir vos justificatifs. C’est une mission d’intérêt public confiée aux communes par le Code
                de la construction et de l’habitation (articles L441-2-1 et suivants ; RGPD, article 6-1-e).
              </List.Item>
              <List.Item>
                <strong>Compte d’habitant et voisinage</strong> : vous connecter, suivre vos demandes, être mis en relation
                avec les voisins que vous choisissez. Vous créez ce compte librement et pouvez le supprimer à tout moment.
              </List.Item>
              <List.Item>
                <strong>Sécurité du service</strong> : limiter les abus (trop d’essais de mot de passe, envois en rafale) et
                comprendre une panne (RGPD, article 32).
              </List.Item>
            </List>
            <Text>Aucune donnée n’est vendue, utilisée à des fins publicitaires ou transmise hors de l’Union européenne.</Text>
          </Section>

          <Section titre="Quelles données">
            <List spacing="xs">
              <List.Item>
                Pour une demande de logement : votre identité, vos coordonnées, votre adresse, votre situation familiale, vos
                revenus, votre logement actuel et souhaité, vos motivations, et les documents que vous envoyez (livret de
                famille, pièce d’identité, avis d’imposition, bulletins de salaire).
              </List.Item>
              <List.Item>
                Pour un compte : nom, prénom, adresse e-mail, genre, date de naissance, ville, quartier, rue, résidence,
                photo de profil si vous en mettez une, et les voisins que vous suivez.
              </List.Item>
              <List.Item>
                Techniques : l’adresse IP et la page demandée, dans les journaux du serveur. Ils ne contiennent jamais vos
                mots de passe, vos liens privés ni le contenu de vos formulaires.
              </List.Item>
            </List>
            <Text>
              Quand vous tapez votre adresse, le texte saisi est transmis par notre serveur au service national de recherche
              d’adresses (Géoplateforme de l’IGN) pour vous proposer des suggestions ; votre adresse IP ne lui est pas
              transmise.
            </Text>
          </Section>

          <Section titre="Qui y a accès">
            <List spacing="xs">
              <List.Item>
                Vous : avec votre lien privé, ou depuis votre compte si vous avez déposé la demande connecté.
              </List.Item>
              <List.Item>
                Les agents de la mairie annexe chargés des demandes de logement (comptes « gestionnaire ») et les
                administrateurs du service.
              </List.Item>
              <List.Item>
                Pour votre profil : votre nom et votre photo seulement, et seulement aux personnes que vous avez choisies
                (vos voisins, le quartier ou tout le monde). Votre genre et votre date de naissance ne sont jamais montrés.
              </List.Item>
            </List>
            <Text>
              Quiconque connaît le numéro unique d’une demande ne voit que son statut, jamais les informations ni les
              documents.
            </Text>
          </Section>

          <Section titre="Combien de temps nous les gardons">
            <Table withTableBorder>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Données</Table.Th>
                  <Table.Th scope="col">Durée</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {cycle && (
                  <>
                    <Table.Tr>
                      <Table.Th scope="row">Demande de logement en cours</Table.Th>
                      <Table.Td>
                        Valable {cycle.validiteMois} mois à partir de son enregistrement ou de son dernier
                        renouvellement ; un e-mail vous prévient {cycle.rappelsJours.map((j) => pluriel(j, 'jour', 'jours')).join(' puis ')} avant
                        la fin. Sans renouvellement, elle est radiée au bout de {cycle.radiationMois} mois et peut être réactivée, avec son
                        ancienneté, jusqu’au {cycle.reactivationMois}e mois.
                      </Table.Td>
                    </Table.Tr>
                    <Table.Tr>
                      <Table.Th scope="row">Demande radiée, refusée ou attribuée</Table.Th>
                      <Table.Td>
                        Gardée {cycle.conservationMois} mois puis effacée automatiquement, documents
                        compris ; seul reste un historique des statuts sans aucune donnée personnelle.
                      </Table.Td>
                    </Table.Tr>
                  </>
                )}
                <Table.Tr>
                  <Table.Th scope="row">Demande retirée</Table.Th>
                  <Table.Td>Effacée aussitôt, documents compris (« Retirer ma demande »).</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th scope="row">Compte d’habitant</Table.Th>
                  <Table.Td>Jusqu’à ce que vous le supprimiez.</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th scope="row">Session de connexion (habitant)</Table.Th>
                  <Table.Td>
                    Fin après {pluriel(data.durees.sessionHabitantJours, 'jour', 'jours')} sans visite, et au plus tard après{' '}
                    {pluriel(data.durees.sessionHabitantMaxJours, 'jour', 'jours')}.
                  </Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th scope="row">Session de connexion (agent)</Table.Th>
                  <Table.Td>
                    Fin après {pluriel(data.durees.sessionGestionMinutes, 'minute', 'minutes')} d’inactivité, et au plus tard après{' '}
                    {pluriel(data.durees.sessionGestionMaxHeures, 'heure', 'heures')}.
                  </Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th scope="row">E-mails envoyés</Table.Th>
                  <Table.Td>
                    Le texte est effacé dès l’envoi ; le destinataire et l’objet sont gardés{' '}
                    {pluriel(data.durees.traceMailJours, 'jour', 'jours')} pour vérifier la bonne remise.
                  </Table.Td>
                </Table.Tr>
              </Table.Tbody>
            </Table>
          </Section>

          <Section titre="Vos droits">
            <Text>
              Vous pouvez accéder à vos données, les faire rectifier, les effacer, en limiter l’utilisation ou vous y opposer,
              et recevoir une copie de celles que vous nous avez confiées (RGPD, articles 15 à 21).
            </Text>
            <List spacing="xs">
              <List.Item>Voir votre demande et vos documents : ouvrez votre lien privé.</List.Item>
              <List.Item>
                Télécharger vos données : bouton « Télécharger mes données » de votre{' '}
                <Anchor component={Link} to={paths.profil}>
                  profil
                </Anchor>{' '}
                ou de la page de votre demande.
              </List.Item>
              <List.Item>
                Effacer : « Retirer ma demande » sur la page de votre demande, « Supprimer mon compte » dans votre profil.
              </List.Item>
              <List.Item>
                Pour tout le reste (rectification, opposition, question) : écrivez à la mairie annexe ({data.contact}) ou au
                délégué à la protection des données ({data.dpo}). Une réponse vous est due dans un délai d’un mois.
              </List.Item>
            </List>
            <Text>
              Si vous estimez que vos droits ne sont pas respectés, vous pouvez adresser une réclamation à la CNIL (
              <Anchor href="https://www.cnil.fr/fr/adresser-une-plainte" rel="noreferrer">
                cnil.fr
              </Anchor>
              , 3 place de Fontenoy, TSA 80715, 75334 Paris Cedex 07).
            </Text>
          </Section>

          <Section titre="Cookies et stockage sur votre appareil">
            <Text>
              Aucun cookie de mesure d’audience ni de publicité. Quand vous vous connectez, un cookie de session,
              indispensable, garde votre connexion ; il disparaît à la déconnexion. Les liens privés de vos demandes sont gardés
              dans votre navigateur jusqu’à sa fermeture, ou plus longtemps si vous cochez « Se souvenir de cet appareil » ;
              « Oublier cet appareil » les efface. Un formulaire de demande commencé est gardé sur l’appareil jusqu’à son
              enregistrement, 7 jours au plus, pour ne rien perdre si la page se ferme ; il s’efface à l’enregistrement, à la
              déconnexion, avec « Oublier cet appareil » ou par « effacez le brouillon » sous le formulaire.
            </Text>
          </Section>
        </>
      )}
    </Stack>
  );
}
