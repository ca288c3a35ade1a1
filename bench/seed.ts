// Generated housing requests for the benches, shaped like a real town hall's file: every status in
// plausible shares, French first and last names (accents, apostrophes, hyphens, particles) drawn with
// Zipf-like weights so that some names are common and most are rare, phone numbers and e-mails written
// as people write them, dates over about three years, validities renewed or not. Deterministic in `n`
// (a seeded generator per row); written straight into the database in batches of 500, one transaction each.
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Insertable } from 'kysely';
import { ajouterMois, STATUTS_CLOTURES, VALIDITE_MOIS_DEFAUT } from '../src/domain/cycleDeVie.js';
import { texteDeRecherche, type DemandeCreation } from '../src/domain/demande.js';
import { foldForSearch } from '../src/domain/normalise.js';
import {
  BAILLEUR_VALUES,
  LOGEMENT_ACTUEL_VALUES,
  QUARTIER_SOUHAITE_VALUES,
  QUARTIER_VALUES,
  SITUATION_FAMILIALE_VALUES,
  TYPE_DE_LOGEMENT_VALUES,
} from '../src/domain/options.js';
import { STATUT_RADIEE, STATUTS, statutRang, type Statut } from '../src/domain/statut.js';
import { natif, type Db } from '../src/server/db/index.js';
import type { Categorie } from '../src/domain/documents.js';
import type { DocumentTable, NewDemande } from '../src/server/db/schema.js';
import { hashAccessKey, newAccessKey } from '../src/server/features/demandes/access.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { TACHE } from '../src/server/features/demandes/cycleDeVie.js';
import { random } from '../test/generated-inputs.js';

/** Last names, most frequent first (INSEE-like order), then names from everywhere the district's people come from. */
const NOMS = [
  'Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Laurent',
  'Lefèvre', 'Michel', 'García', 'David', 'Bertrand', 'Roux', 'Vincent', 'Fournier', 'Morel', 'Girard', 'André', 'Mercier',
  'Dupont', 'Lambert', 'Bonnet', 'François', 'Martinez', 'Legrand', 'Garnier', 'Faure', 'Rousseau', 'Blanc', 'Guérin',
  'Muller', 'Henry', 'Roussel', 'Nicolas', 'Perrin', 'Morin', 'Mathieu', 'Clément', 'Gauthier', 'Dumont', 'López',
  'Fontaine', 'Chevalier', 'Robin', 'Masson', 'Sánchez', 'Gérard', 'Nguyen', 'Boyer', 'Denis', 'Lemaire', 'Duval', 'Joly',
  'Benali', "N'Diaye", 'Le Goff', "D'Angelo", 'de La Fontaine', 'Traoré', 'Diallo', 'Haddad', 'Belkacem', 'Bensaïd',
  'Mansouri', 'Camara', 'Koné', 'Ouédraogo', 'Ben Amor', 'El Idrissi', 'Aït Ahmed', 'Saïdi', "O'Neill", "Dell'Acqua",
  'Di Meglio', 'Santoro', 'Esposito', 'Ferreira', 'Pereira', 'Dos Santos', 'Tran', 'Le Bihan', 'Kerbrat', 'Le Roux',
  'de Saint-Exupéry', 'Rivière', 'Ménard', 'Prévost', 'Barré', 'Noël', 'Pérez', 'Fernández', 'Da Silva', 'Lacroix', 'Fabre',
  'Ben Youssef', "M'Bappé", "L'Hôte", "D'Almeida", 'Le Gall', 'du Pont', 'Van der Berg', 'Saint-Martin', 'Vidal', 'Maréchal',
  'Hoarau', 'Payet', 'Grondin', 'Zerbib', 'Cohen', 'Boughanem', 'Chérif', 'Hamidou', 'Mbappé', 'Öztürk', 'Yılmaz', 'Kowalski',
];

/** First names, most frequent first (generations mixed), compound ones included. */
const PRENOMS = [
  'Marie', 'Nathalie', 'Jean', 'Isabelle', 'Sylvie', 'Michel', 'Catherine', 'Philippe', 'Nicolas', 'Sandrine', 'Céline',
  'Stéphane', 'Christophe', 'Sébastien', 'Julien', 'Valérie', 'Léa', 'Emma', 'Chloé', 'Inès', 'Lucas', 'Hugo', 'Mohamed',
  'Fatima', 'Hélène', 'Françoise', 'Marie-Hélène', 'Jean-Pierre', 'Anne-Sophie', 'Jean-François', 'Marie-Claude',
  'Pierre-Yves', 'Aïcha', 'Amina', 'Yanis', 'Karim', 'Sofia', 'Théo', 'Maëlle', 'Loïc', 'Jérôme', 'Mathéo', 'Noé', 'Zoé',
  'Cécile', 'Anaïs', 'Océane', 'Mélanie', 'Gaëlle', 'Joël', 'Raphaël', 'Rachid', 'Nadia', 'Samira', 'Youssef', 'Mamadou',
  'Aminata', 'Fatoumata', 'Moussa', 'Ibrahim', 'Khadija', 'Yasmine', 'Ilyès', 'Bérénice', 'Agnès', 'Renée', 'Josiane',
  'Ginette', 'Dominique', 'Ève', 'Irène', 'Léon', 'Louis', 'Gabriel', 'Arthur', 'Jules', 'Adèle', 'Jade', 'Louise', 'Alice',
  'Lina', 'Rose', 'Anna', 'Mia', 'Ambre', 'Juliette', 'Mathilde', 'Élodie', 'Émilie', 'Éric', 'Hervé', 'Gérard', 'Thérèse',
  'Jean-Baptiste', 'Marie-Ange', "N'Golo", 'Anne-Laure', 'Chaïma', 'Naïm', 'Mehdi', 'Lætitia', 'Clémence', 'François-Xavier',
];

const DOMAINES = ['gmail.com', 'gmail.com', 'gmail.com', 'hotmail.fr', 'hotmail.com', 'orange.fr', 'free.fr', 'yahoo.fr', 'laposte.net', 'sfr.fr', 'outlook.fr', 'icloud.com', 'live.fr', 'wanadoo.fr'];

const RUES = [
  'Avenue Marcel-Pagnol', 'Rue Charloun-Rieu', "Avenue des Jardins-d'Estelle", 'Avenue du Clos-Gabriel', 'Avenue Jean-Monnet',
  'Boulevard de la Grande-Thumine', 'Boulevard des Deux-Ormes', 'Route de Berre', 'Boulevard du Château-Double', 'Rue Émile-Tavan',
];

const MOTIVATIONS = [
  'Logement trop petit pour la famille.',
  "Logement trop petit depuis l'arrivée de notre deuxième enfant.",
  'Loyer trop élevé par rapport à mes revenus.',
  "Séparation : je dois quitter l'appartement avant la fin de l'année.",
  'Appartement insalubre (humidité, moisissures) signalé au bailleur.',
  "Je suis hébergée chez ma sœur avec mes enfants, c'est provisoire.",
  'Rapprochement du lieu de travail et de l’école des enfants.',
  'Personne âgée, 4e étage sans ascenseur : besoin d’un rez-de-chaussée.',
  'Handicap : besoin d’un logement adapté (PMR).',
  'Fin de bail, le propriétaire vend le logement.',
];

/** Statuses in plausible shares (a file where most requests wait, few are allotted). */
const PARTS: readonly [Statut, number][] = [
  ['En attente des documents', 17],
  ['En cours de traitement', 14],
  ['Demande envoyée', 12],
  ['En attente', 31],
  ['Passage CAL', 4],
  ['Attribué', 8],
  ['Radiée', 8],
  ['Refusé', 6],
];
if (PARTS.length !== STATUTS.length) throw new Error('bench/seed.ts: a status has no share');

/** The running sums of `weights`, divided by their total (the last one is 1). */
function cumulative(weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  let sum = 0;
  return weights.map((w) => (sum += w) / total);
}
const zipf = (length: number, s = 1) => cumulative(Array.from({ length }, (_, i) => 1 / (i + 1) ** s));
function draw<T>(list: readonly T[], cdf: number[], r: number): T {
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid]! < r) lo = mid + 1;
    else hi = mid;
  }
  return list[lo]!;
}
const NOMS_CDF = zipf(NOMS.length, 0.6);
const PRENOMS_CDF = zipf(PRENOMS.length, 0.7);
const STATUTS_CDF = cumulative(PARTS.map(([, w]) => w));
const pick = <T>(list: readonly T[], r: number): T => list[Math.floor(r * list.length)]!;

/** An e-mail as people choose theirs: folded, without spaces or apostrophes. */
function email(prenom: string, nom: string, n: number, r: () => number): string {
  const p = foldForSearch(prenom).replace(/[^a-z-]/gu, '');
  const m = foldForSearch(nom).replace(/[^a-z]/gu, '');
  const forms = [`${p}.${m}`, `${p}.${m}${n % 100}`, `${p[0]}${m}`, `${m}.${p}${70 + (n % 30)}`, `${p}${m}${n % 1000}`, `${p}_${m}`];
  return `${pick(forms, r())}@${pick(DOMAINES, r())}`;
}

/** A mobile or landline number as typed: spaced, dotted, glued or international. */
function telephone(r: () => number): string {
  const digits = `0${pick(['6', '6', '7', '4'], r())}${String(Math.floor(r() * 1e8)).padStart(8, '0')}`;
  const pairs = digits.match(/../gu)!;
  switch (Math.floor(r() * 5)) {
    case 0:
    case 1:
      return pairs.join(' ');
    case 2:
      return digits;
    case 3:
      return pairs.join('.');
    default:
      return `+33 ${digits[1]} ${pairs.slice(1).join(' ').slice(1)}`;
  }
}

const DEBUT = Date.UTC(2024, 0, 2, 8);
/** The day the seed takes as today (validities are renewed up to it or not). */
const AUJOURDHUI = new Date().toISOString();

export function generatedRequest(n: number): NewDemande {
  const r = random(n * 2654435761 + 1);
  const prenom = draw(PRENOMS, PRENOMS_CDF, r());
  const nom = draw(NOMS, NOMS_CDF, r());
  let statut = draw(PARTS.map(([s]) => s), STATUTS_CDF, r());
  // About 3 years of requests at 100,000 (one every 15 minutes), in office hours or not.
  const at = new Date(DEBUT + n * 15 * 60_000 + Math.floor(r() * 600_000)).toISOString();
  const enfants = Math.min(5, Math.floor(-Math.log(1 - r()) * 1.2));
  const creation: DemandeCreation = {
    numeroUnique: `013${String(n).padStart(9, '0')}`,
    prenom,
    nom,
    sexe: r() < 0.55 ? 'femme' : 'homme',
    dateDeNaissance: r() < 0.1 ? null : `${1945 + Math.floor(r() * 60)}-${String(1 + Math.floor(r() * 12)).padStart(2, '0')}-${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`,
    email: email(prenom, nom, n, r),
    numeroDeTelephone: r() < 0.05 ? '' : telephone(r),
    adresse: `${1 + Math.floor(r() * 120)}${r() < 0.1 ? ' bis' : ''} ${pick(RUES, r())}`,
    adresseComplement: r() < 0.4 ? `Bât. ${'ABCDEFGH'[Math.floor(r() * 8)]}, appt ${1 + Math.floor(r() * 60)}` : '',
    codePostal: '13090',
    ville: 'Aix-en-Provence',
    salaireBrut: r() < 0.2 ? null : Math.round(600 + r() * 2400),
    salaireAvisImpot1: r() < 0.5 ? null : Math.round(8000 + r() * 25000),
    salaireAvisImpot2: null,
    situationFamiliale: pick(SITUATION_FAMILIALE_VALUES, r()),
    nombreDEnfants: enfants,
    logementActuel: pick(LOGEMENT_ACTUEL_VALUES, r()),
    typeDeLogementActuel: pick(TYPE_DE_LOGEMENT_VALUES, r()),
    quartierActuel: r() < 0.2 ? null : pick(QUARTIER_VALUES, r()),
    bailleurActuel: pick(BAILLEUR_VALUES, r()),
    typeDeLogementSouhaite: TYPE_DE_LOGEMENT_VALUES[Math.min(5, enfants + Math.floor(r() * 2))]!,
    quartierSouhaite: [...new Set([pick(QUARTIER_SOUHAITE_VALUES, r()), pick(QUARTIER_SOUHAITE_VALUES, r())])],
    motivations: pick(MOTIVATIONS, r()),
    commentaires: r() < 0.85 ? '' : 'Disponible le matin, rappeler au numéro indiqué.',
  };
  // Validity: a closed request keeps its first year; an open one was renewed each year up to today, except
  // one in ten, left to run out: expired within the last month (« Expirée »), or struck off (« Radiée ») as
  // the daily job does a month after (RADIATION_APRES_MOIS 13).
  let valideJusqua = ajouterMois(at, VALIDITE_MOIS_DEFAUT);
  if (!STATUTS_CLOTURES.includes(statut)) {
    const renouvelee = r() < 0.9;
    for (let year = 2; valideJusqua <= AUJOURDHUI; year += 1) {
      const suivante = ajouterMois(at, VALIDITE_MOIS_DEFAUT * year);
      if (!renouvelee && suivante > AUJOURDHUI) break;
      valideJusqua = suivante;
    }
    if (valideJusqua <= AUJOURDHUI && ajouterMois(valideJusqua, 1) <= AUJOURDHUI) statut = STATUT_RADIEE;
  }

  return {
    ...creation,
    quartierSouhaite: JSON.stringify(creation.quartierSouhaite),
    id: crypto.randomUUID(),
    accessKeyHash: SHARED_HASH,
    dateDEnregistrement: at,
    statutDeLaDemande: statut,
    updatedAt: at,
    ownerUserId: null,
    searchText: texteDeRecherche({ ...creation, dateDEnregistrement: at, statutDeLaDemande: statut }),
    nomTri: foldForSearch(nom),
    prenomTri: foldForSearch(prenom),
    statutRang: statutRang(statut),
    valideJusqua,
  };
}

const SHARED_HASH = hashAccessKey(newAccessKey());

/** Five labels (migration 0016); one request in ten carries one, one in a hundred two. */
export const ETIQUETTES_SEMEES = Array.from({ length: 5 }, (_, i) => `00000000-0000-4000-8000-00000000000${i + 1}`);
function etiquettesGenerees(n: number): string[] {
  const r = random(n * 104729 + 5);
  const x = r();
  if (x >= 0.1) return [];
  const une = ETIQUETTES_SEMEES[Math.floor(r() * 5)]!;
  return x < 0.01 ? [...new Set([une, ETIQUETTES_SEMEES[Math.floor(r() * 5)]!])] : [une];
}

/** Three open requests in a hundred wait on a request for corrections, a third of them answered (migration 0015). */
export function correctionGeneree(n: number, statut: string): 'demandee' | 'faite' | null {
  const r = random(n * 7919 + 3);
  return !(STATUTS_CLOTURES as readonly string[]).includes(statut) && r() < 0.03 ? (r() < 0.35 ? 'faite' : 'demandee') : null;
}

/**
 * Writes `count` generated requests, then marks today's run of the daily job as done: the seeded rows are
 * the file as that job left it, and a server started on them does not spend the bench striking off or
 * reminding thousands of requests.
 */
export async function seedRequests(db: Db, count: number): Promise<number> {
  const started = Date.now();
  await db
    .insertInto('etiquettes')
    .values(ETIQUETTES_SEMEES.map((id, i) => ({ id, nom: `Étiquette ${i + 1}`, nomCle: `étiquette ${i + 1}`, couleur: 'bleu', creeLe: new Date(DEBUT).toISOString() })))
    .onConflict((oc) => oc.doNothing())
    .execute();
  for (let i = 0; i < count; i += 500) {
    const rows = Array.from({ length: Math.min(500, count - i) }, (_, j) => {
      const row = generatedRequest(i + j);
      return { ...row, correction: correctionGeneree(i + j, row.statutDeLaDemande) };
    });
    const poses = rows.flatMap((row, j) => etiquettesGenerees(i + j).map((etiquetteId) => ({ housingRequestId: row.id, etiquetteId, posePar: null, poseLe: row.dateDEnregistrement })));
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('housingRequests').values(rows).execute();
      if (poses.length > 0) await trx.insertInto('demandeEtiquettes').values(poses).execute();
    });
  }
  // SQLite: the search index built once, as a server would have kept it (decision 0024), not left to its first search.
  const n = natif(db);
  if (n) await new DemandesRepository(db, n.kind).reconstruireRecherche();
  await db
    .insertInto('taches')
    .values({ nom: TACHE, bailJusqua: '', derniereFin: new Date().toISOString() })
    .onConflict((oc) => oc.column('nom').doUpdateSet({ derniereFin: new Date().toISOString() }))
    .execute();
  return (Date.now() - started) / 1000;
}

/**
 * `count` generated requests (generatedRequest), each with the documents `fichiers` gives it, written as the app
 * stores them: the file under `uploads` (`<request>/<document>/<category>-<n>-piece.pdf`) and its row, by
 * batches of 500 requests in one transaction each. Answers the documents' total size in bytes.
 */
export async function semerAvecDocuments(db: Db, uploads: string, count: number, fichiers: () => { category: Categorie; content: Buffer }[]): Promise<number> {
  let octets = 0;
  for (let i = 0; i < count; i += 500) {
    const requests = Array.from({ length: Math.min(500, count - i) }, (_, j) => generatedRequest(i + j));
    const documents: Insertable<DocumentTable>[] = [];
    for (const request of requests) {
      for (const [d, { category, content }] of fichiers().entries()) {
        const id = crypto.randomUUID();
        const storageKey = `${request.id}/${id}/${category}-${d + 1}-piece.pdf`;
        await fsp.mkdir(path.dirname(path.join(uploads, storageKey)), { recursive: true });
        await fsp.writeFile(path.join(uploads, storageKey), content);
        octets += content.length;
        documents.push({
          id,
          housingRequestId: request.id,
          category,
          position: d + 1,
          storageKey,
          originalName: 'piece.pdf',
          contentType: 'application/pdf',
          size: content.length,
          sha256: crypto.createHash('sha256').update(content).digest('hex'),
          uploadedAt: new Date().toISOString(),
        });
      }
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('housingRequests').values(requests).execute();
      if (documents.length > 0) await trx.insertInto('documents').values(documents).execute();
    });
  }
  return octets;
}
