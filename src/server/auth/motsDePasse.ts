import { dictionary as common } from '@zxcvbn-ts/language-common';
import { dictionary as francais } from '@zxcvbn-ts/language-fr';

/**
 * The weak-password rule (docs/produit.md « Comptes », ASVS 2.1.7): a password is refused when it is
 * guessed early by an attacker who knows French habits. It is read, lowercased and without accents, as
 * a short chain of guessable pieces: words (the French list below, zxcvbn's French and English lists),
 * keyboard walks (AZERTY and QWERTY rows and columns), the alphabet and digits in order, one character
 * repeated, a few digits or signs (a year, « 123 », « ! »), and the person's own e-mail, names and
 * district. Each piece costs a little; a password whose cheapest reading costs at most BUDGET is refused.
 * A whole password that is a short pattern repeated (`abcabcabcabc`, `121212121212`) is refused too.
 * Common leet substitutions (`s0l3il`) are undone first. No composition rule is added (ASVS 2.1.9).
 */

/** Passwords and words French people use most (leaked French lists, first names, cities, the district). */
const FRENCH_COMMON = `
motdepasse motdepass mdp mdpasse monmotdepasse nouveaumotdepasse motdepasse1 secret confidentiel
azerty azertyuiop azerty123 qwerty wxcvbn qsdfgh qsdfghjklm azertyui azertyu
soleil bonjour bonsoir bonnenuit coucou salut salutatous cava bienvenue merci mercibeaucoup
doudou chouchou loulou lolo lulu titi toto tata tutu nounou nounours bisounours doudoune zizou
jetaime jetadore jetaimetrop jetaimemonamour jetaimeplus jetaimefort jetaimepour jtm teamo iloveyou
amour monamour mamour mesamours amoureux amoureuse tendresse bonheur toujours pourtoujours forever
cheri cherie mocheri macherie bebe monbebe chaton minou minette poussin lapin canard tresor montresor
bisou bisous calin calins gros bisous doux doudouce puce mapuce loupiot loulou ninou nana nanou
maman papa mamie papi papy mamy tonton tata famille mafamille mesenfants enfants fiston fifille
princesse prince reine roi bebe ange monange diable demon
marseille marseillais marseillaise olympique olympiquedemarseille allezlom allezom lom droitaubut
paris parisien parisienne psg allezparis lyon olympiquelyonnais toulouse nice nantes bordeaux lille
rennes montpellier strasbourg toulon avignon arles nimes grenoble aubagne martigues cassis lacioutat
vitrolles marignane gardanne istres salon salondeprovence pertuis manosque frejus cannes antibes
aix aixenprovence aixois aixoise provence provencal provencale paysdaix sextius mirabeau cezanne
saintevictoire montsaintevictoire lavande cigale cigales calanque calanques pastis bouillabaisse
pagnol mistral olive olivier tapenade santon santons pétanque petanque boules
jasdebouffan jas bouffan jasbouffan jdb encagnane corsy luynes milles puyricard celony
quartiervivant quartier vivant mairie mairieannexe annexe logement logements logementsocial hlm
demande demandedelogement habitant habitante voisin voisine voisins resident residente residence
france francais francaise vivelafrance allezlesbleus lesbleus bleus marianne republique
liberte egalite fraternite bretagne normandie corse alsace occitanie savoie auvergne
football foot footballeur basket basketball rugby tennis handball judo karate danse
zidane mbappe griezmann benzema ribery platini pogba neymar messi ronaldo cristiano
chocolat caramel bonbon bonbons nutella crepe crepes gaufre croissant baguette fromage camembert
pizza frites burger sushi champagne vin rose ricard whisky vodka biere
fraise framboise cerise pomme banane citron orange vanille pistache noisette abricot peche
fleur fleurs rose roses tulipe jasmin violette marguerite lilas muguet coquelicot tournesol
etoile etoiles lumiere soleil lune ciel nuage arcenciel mer plage ocean vague montagne neige
printemps ete automne hiver vacances voyage liberte paradis bonheur destin espoir reve reves
papillon dauphin tigre lion lionne panthere loup louve chat chaton chien chiot cheval jument
poney ours nounours renard hibou aigle faucon serpent dragon licorne sirene fee magie
musique guitare piano batterie chanson chanteur chanteuse rap rock disco
ordinateur internet informatique portable telephone iphone samsung google facebook instagram
snapchat tiktok youtube twitter windows linux apple orange free bouygues sfr
pokemon pikachu naruto dragonball sangoku goku onepiece luffy zelda mario sonic minecraft fortnite
starwars harrypotter batman superman spiderman marvel avengers disney mickey minnie barbie
hellokitty titanic matrix simpson simpsons homer bart scoubidou tintin asterix obelix
nicolas camille thomas julien olivier alexandre celine juliette isabelle nathalie stephanie
caroline sandrine sebastien christophe frederic vincent laurent patrick philippe pierre francois
mathieu maxime guillaume antoine benjamin romain quentin clement kevin anthony jeremy damien jerome
cedric ludovic arnaud aurelie emilie julie marie sophie laura sarah manon lea chloe emma ines
lucas hugo louis nathan enzo theo jules gabriel raphael arthur adam mohamed mehdi karim yanis
rayan sofiane nabil samir ali amine bilal ilyes younes nadia fatima yasmine sonia leila samia
christine catherine sylvie valerie veronique martine monique nicole francoise brigitte chantal
michel jean jeanpierre jeanclaude jeanluc jeanmarc jeanpaul jeanfrancois jacques alain bernard
daniel gerard rene andre claude serge didier eric pascal thierry dominique stephane fabrice
christian franck herve gilles marc david bruno denis yves joel olivia alice jade louise rose anna
lina mila ambre lena julia zoe clara eva romane margaux lucie pauline marine mathilde charlotte
elodie audrey melanie virginie delphine severine karine laetitia celia marion justine morgane
oceane coralie jessica vanessa cindy sabrina melissa alexia charlene amandine anais elise
martin bernard dubois durand lefebvre leroy moreau simon laurent michel garcia david bertrand
roux vincent fournier morel girard andre mercier dupont lambert bonnet francois martinez
lundi mardi mercredi jeudi vendredi samedi dimanche janvier fevrier mars avril mai juin juillet
aout septembre octobre novembre decembre noel joyeuxnoel bonneannee anniversaire joyeuxanniversaire
un deux trois quatre cinq six sept huit neuf dix onze douze undeuxtrois zero
rouge bleu vert jaune noir blanc violet gris marron
admin administrateur utilisateur invite connexion compte moncompte inscription acces
travail boulot bureau ecole college lycee universite etudiant etudiante professeur
dieu jesus allah bismillah inchallah marie alleluia
`;

/** Keyboard rows and columns (AZERTY as typed in France, QWERTY), and characters in order. */
const KEYBOARD_LINES = [
  '1234567890',
  '0123456789',
  'abcdefghijklmnopqrstuvwxyz',
  // AZERTY: the digit row unshifted (accents removed, as passwords are read), the letter rows, the columns.
  "&e\"'(-e_ca)=",
  'azertyuiop^$',
  'qsdfghjklmu*',
  '<wxcvbn,;:!',
  '1aqw',
  '2zsx',
  '3edc',
  '4rfv',
  '5tgb',
  '6yhn',
  '7uj,',
  '8ik;',
  '9ol:',
  '0pm!',
  // QWERTY
  '`1234567890-=',
  'qwertyuiop[]\\',
  "asdfghjkl;'",
  'zxcvbnm,./',
  '1qaz',
  '2wsx',
  '4rfv',
  '5tgb',
  '6yhn',
  '7ujm',
  '8ik,',
  '9ol.',
  "0p;/",
  // The numeric keypad.
  '789456123',
  '147258369',
  '741852963',
];

/** What each kind of piece costs; a password costing at most BUDGET is refused. */
const COST = { personal: 1, frequent: 1, word: 1.5, pattern: 1 } as const;
const BUDGET = 3;
/** Digits and signs (no letters) cost by length; longer runs of random digits are real strength. */
const filler = (length: number): number => (length <= 2 ? 0.5 : length <= 4 ? 1 : length <= 6 ? 1.5 : Infinity);
const MIN_WORD = 3;

/** Lowercase, accents and ligatures removed. */
export function plain(text: string): string {
  return text.toLowerCase().replace(/œ/gu, 'oe').replace(/æ/gu, 'ae').replace(/ß/gu, 'ss').normalize('NFKD').replace(/\p{M}/gu, '');
}

const SEPARATORS = /[\s\-_.'’]+/gu;
const squeeze = (text: string): string => text.replace(SEPARATORS, '');

const toSet = (words: Iterable<string>): Set<string> => {
  const set = new Set<string>();
  for (const word of words) {
    const w = squeeze(plain(word));
    if (w.length >= MIN_WORD) set.add(w);
  }
  return set;
};

const FREQUENT = toSet(FRENCH_COMMON.split(/\s+/u));
const ENGLISH_PASSWORDS = (common['passwords-common'] as string[]).map((p) => p.toLowerCase());
/** zxcvbn's English list of the 49,000 most common passwords, compared whole in lowercase (the original rule). */
const ENGLISH_SET = new Set(ENGLISH_PASSWORDS);
export const COMMON_PASSWORD_COUNT = ENGLISH_SET.size;
/** Every other word: zxcvbn's French lists (common words, first names, last names, Wikipedia) and the English passwords. */
const WORDS = toSet([...Object.values(francais as Record<string, string[]>).flat(), ...ENGLISH_PASSWORDS]);
export const FRENCH_WORD_COUNT = WORDS.size;

const WALKS = new Set<string>();
for (const line of KEYBOARD_LINES) {
  for (const l of [line, [...line].reverse().join('')]) {
    for (let i = 0; i < l.length; i++) for (let j = i + 2; j <= l.length; j++) WALKS.add(l.slice(i, j));
  }
}

const LEET: [RegExp, string][] = [
  [/0/gu, 'o'],
  [/3/gu, 'e'],
  [/4/gu, 'a'],
  [/5/gu, 's'],
  [/7/gu, 't'],
  [/8/gu, 'b'],
  [/@/gu, 'a'],
  [/\$/gu, 's'],
  [/€/gu, 'e'],
  [/[!|]/gu, 'i'],
];
/** Leet undone between the first and the last letter-like character: `s0l3il123456` → `soleil123456`. */
function unleet(text: string, one: 'i' | 'l'): string {
  const letterLike = /[\p{L}@$€]/u;
  const chars = [...text];
  const first = chars.findIndex((c) => letterLike.test(c));
  if (first < 0) return text;
  const last = chars.length - 1 - [...chars].reverse().findIndex((c) => letterLike.test(c));
  let core = chars.slice(first, last + 1).join('');
  for (const [from, to] of LEET) core = core.replace(from, to);
  return chars.slice(0, first).join('') + core.replace(/1/gu, one) + chars.slice(last + 1).join('');
}

/** Who is choosing the password: what they must not use as one. */
export interface Personne {
  email?: string | null;
  nom?: string | null;
  prenom?: string | null;
  /** better-auth's display name (« prénom nom »). */
  name?: string | null;
}

/** The person's own words: e-mail (whole, local part, domain and their pieces), names, each in every form. */
function personalWords(personne: Personne | undefined): Set<string> {
  const words = new Set<string>();
  if (!personne) return words;
  const add = (value: string) => {
    const p = plain(value.trim());
    for (const w of [p, squeeze(p)]) if (w.length >= MIN_WORD) words.add(w);
  };
  const email = personne.email ?? '';
  if (email) {
    add(email);
    const [local = '', domain = ''] = email.split('@');
    add(local);
    add(domain);
    for (const piece of `${local} ${domain}`.split(/[^\p{L}\p{N}]+/u)) add(piece);
  }
  const names = [personne.prenom, personne.nom, personne.name].filter((n): n is string => typeof n === 'string' && n.trim() !== '');
  for (const n of names) {
    add(n);
    for (const piece of n.split(/[^\p{L}\p{N}]+/u)) add(piece);
  }
  if (personne.prenom && personne.nom) {
    add(`${personne.prenom}${personne.nom}`);
    add(`${personne.nom}${personne.prenom}`);
  }
  return words;
}

const isRun = (s: string): boolean => s.length >= 3 && [...s].every((c) => c === s[0]);
const hasLetter = (s: string): boolean => /\p{L}/u.test(s);

/** The cheapest reading of `s` as guessable pieces (Infinity when some part is none of them). */
function cheapestReading(s: string, personal: ReadonlySet<string>): number {
  const n = s.length;
  const best = new Array<number>(n + 1).fill(Infinity);
  best[0] = 0;
  for (let i = 0; i < n; i++) {
    const from = best[i]!;
    if (from >= BUDGET) continue; // every piece costs ≥ 0.5: nothing cheaper can follow
    for (let j = i + 1; j <= n; j++) {
      const piece = s.slice(i, j);
      let cost = Infinity;
      if (personal.has(piece)) cost = COST.personal;
      else if (FREQUENT.has(piece)) cost = COST.frequent;
      else if ((piece.length >= 2 && WALKS.has(piece)) || isRun(piece)) cost = COST.pattern;
      else if (WORDS.has(piece)) cost = COST.word;
      if (!hasLetter(piece)) cost = Math.min(cost, filler(piece.length));
      if (from + cost < best[j]!) best[j] = from + cost;
    }
  }
  return best[n]!;
}

/** `abcabcabcabc`, `121212121212`, `soleilsoleil`: a unit repeated, the unit short or itself guessable. */
function repeatedUnit(s: string): string | null {
  const match = /^(.+?)\1+$/su.exec(s);
  return match ? match[1]! : null;
}

/** The forms a password is read in: as typed (lowercase, no accents), without separators, leet undone. */
function forms(password: string): string[] {
  const p = plain(password);
  const squeezed = squeeze(p);
  return [...new Set([p, squeezed, unleet(p, 'i'), unleet(p, 'l'), unleet(squeezed, 'i'), unleet(squeezed, 'l')])];
}

/**
 * True when the password is too easy to guess: a common password, a French word or name with a few
 * digits around it, a keyboard walk, a sequence, a repetition, or the person's own e-mail, names or
 * district. Case, accents, separators and leet substitutions make no difference.
 */
export function motDePasseTropFacile(password: string, personne?: Personne): boolean {
  if (ENGLISH_SET.has(password.toLowerCase())) return true;
  if (personne?.email && plain(password.trim()) === plain(personne.email.trim())) return true;
  const personal = personalWords(personne);
  for (const form of forms(password)) {
    if (form.trim() === '') return true;
    if (cheapestReading(form, personal) <= BUDGET) return true;
    const unit = repeatedUnit(form);
    if (unit !== null && (unit.length <= 4 || cheapestReading(unit, personal) <= BUDGET)) return true;
  }
  return false;
}
