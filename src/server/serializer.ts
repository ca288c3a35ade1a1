import fastJson from 'fast-json-stringify';
import { z } from '../domain/zod.js';

/**
 * Answers are written by fast-json-stringify from the JSON Schema of each route's zod answer schema,
 * converted once when the route is declared: only the fields the schema names are sent (a guard against
 * leaking a column), at Fastify's usual speed. (Parsing every answer with zod before writing it tripled the
 * garbage collector's work and cost 15 % of the status lookup's throughput: docs/decisions/0010.)
 */
export function ecriture(schema: unknown): (data: unknown) => string {
  const jsonSchema = pourEcrire(z.toJSONSchema(schema as z.ZodType, { target: 'draft-7', io: 'output', unrepresentable: 'any' }));
  const aiguillage = aiguillageUnique(jsonSchema);
  if (!aiguillage) return ecrivain(jsonSchema);
  // One writer per branch, the branch picked here by the discriminating field: fast-json-stringify would compile an
  // ajv validator for the `if` (~80 ms at the route's first answer, and a validation at each one).
  const { chemin, champ, branches, sinon } = aiguillage;
  const parValeur = new Map(branches.map(({ valeur, schema: branche }) => [valeur, ecrivain(remplacer(jsonSchema, chemin, branche))]));
  const parDefaut = ecrivain(remplacer(jsonSchema, chemin, sinon));
  return (data) => {
    let noeud = data as Noeud | null | undefined;
    for (const cle of chemin) noeud = noeud?.[cle] as Noeud | null | undefined;
    const valeur = noeud !== null && typeof noeud === 'object' ? noeud[champ] : undefined;
    return ((typeof valeur === 'string' && parValeur.get(valeur)) || parDefaut)(data);
  };
}

const ecrivain = (jsonSchema: unknown) => fastJson(jsonSchema as Parameters<typeof fastJson>[0]);

/**
 * Fastify's serializer compiler: each answer's writer is made when the route first answers with it, not at start
 * (some 130 writers, ~2 MB, most of them for routes an idle or anonymous server never answers; issue 11 point 6).
 * test/routes.test.ts makes every route's writers, so that a schema that cannot be written fails there.
 */
export function serializerCompiler({ schema }: { schema: unknown }): (data: unknown) => string {
  let write: ((data: unknown) => string) | undefined;
  return (data) => (write ??= ecriture(schema))(data);
}

type Noeud = Record<string, unknown>;
const estNoeud = (value: unknown): value is Noeud => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The JSON Schema as the writer needs it. fast-json-stringify picks a union's branch (anyOf, oneOf) by validating the
 * value against each branch in turn with ajv, the whole branch, nested objects and enums included: the private key's
 * full view paid ~5 µs a request for it (issue 11). A writer only writes; so:
 * - zod's objects say `additionalProperties: false`: dropped, else an answer with one field too many would match no
 *   branch (the writer still writes only the named fields);
 * - a union of plain values (a nullable enum: `anyOf: [{type: string, enum}, {type: null}]`) becomes one list of
 *   types, which the writer tells apart by `typeof`;
 * - an object or an array that may be null (`anyOf: [{type: object, …}, {type: null}]`) becomes the object or array
 *   with `nullable: true` (fast-json-stringify's own keyword), written without ajv;
 * - a union of objects told apart by one field's constant (zod's discriminatedUnion) becomes `if`/`then`/`else` on
 *   that field alone, the last branch in the last `else` (`ecriture` then makes one writer per branch when it can).
 */
export function pourEcrire(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(pourEcrire);
  if (!estNoeud(node)) return node;
  const copie: Noeud = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'additionalProperties' && value === false) continue;
    copie[key] = pourEcrire(value);
  }
  for (const union of ['anyOf', 'oneOf'] as const) {
    const branches = copie[union];
    if (!Array.isArray(branches) || !branches.every(estNoeud)) continue;
    const { [union]: _branches, ...freres } = copie;
    const nullable = objetOuNull(branches);
    if (nullable) return { ...freres, ...nullable, nullable: true };
    const types = typesSimples(branches);
    if (types) return { ...freres, type: types };
    const discriminant = champDiscriminant(branches);
    if (discriminant && Object.keys(freres).length === 0) return siAlorsSinon(branches, discriminant);
  }
  return copie;
}

/** The types of a union of plain values (no object, array, reference or nested union), or null. */
function typesSimples(branches: Noeud[]): string[] | null {
  const types = new Set<string>();
  for (const branche of branches) {
    const keys = Object.keys(branche).filter((k) => !['type', 'enum', 'const', 'format', 'description', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum'].includes(k));
    const type = branche.type;
    const liste = typeof type === 'string' ? [type] : Array.isArray(type) ? type : null;
    if (keys.length > 0 || !liste || liste.some((t) => t === 'object' || t === 'array' || typeof t !== 'string')) return null;
    for (const t of liste as string[]) types.add(t);
  }
  return [...types];
}

/** The field every branch (an object) requires with a constant of its own, or null. */
function champDiscriminant(branches: Noeud[]): string | null {
  const premiere = branches[0]!.properties;
  if (!estNoeud(premiere)) return null;
  for (const champ of Object.keys(premiere)) {
    const valeurs = branches.map((b) => {
      const propriete = estNoeud(b.properties) ? b.properties[champ] : undefined;
      const requis = Array.isArray(b.required) && b.required.includes(champ);
      return b.type === 'object' && requis && estNoeud(propriete) && typeof propriete.const === 'string' ? propriete.const : null;
    });
    if (valeurs.every((v) => v !== null) && new Set(valeurs).size === valeurs.length) return champ;
  }
  return null;
}

function siAlorsSinon(branches: Noeud[], champ: string): Noeud {
  const [premiere, ...reste] = branches as [Noeud, ...Noeud[]];
  if (reste.length === 0) return premiere;
  const constante = (premiere.properties as Record<string, Noeud>)[champ]!.const;
  return { if: { type: 'object', properties: { [champ]: { const: constante } }, required: [champ] }, then: premiere, else: siAlorsSinon(reste, champ) };
}

/** The object or array of a union of it and null (no union of its own at its top), or null. */
function objetOuNull(branches: Noeud[]): Noeud | null {
  if (branches.length !== 2) return null;
  const nul = branches.findIndex((b) => b.type === 'null' && Object.keys(b).length === 1);
  if (nul === -1) return null;
  const autre = branches[1 - nul]!;
  const combine = ['anyOf', 'oneOf', 'allOf', 'if', '$ref', 'nullable'].some((k) => k in autre);
  return (autre.type === 'object' || autre.type === 'array') && !combine ? autre : null;
}

/**
 * The one `if`/`then`/`else` chain of the schema (pourEcrire's `siAlorsSinon`) when it is reached through object
 * properties only and no branch holds another: its path, its field, each branch's constant and the last `else`. Else
 * null (the writer keeps fast-json-stringify's own handling).
 */
function aiguillageUnique(schema: unknown): { chemin: string[]; champ: string; branches: { valeur: string; schema: Noeud }[]; sinon: Noeud } | null {
  const trouves: { chemin: string[]; noeud: Noeud }[] = [];
  let ailleurs = false;
  const parcourir = (noeud: unknown, chemin: string[] | null): void => {
    if (Array.isArray(noeud)) return noeud.forEach((n) => parcourir(n, null));
    if (!estNoeud(noeud)) return;
    if ('if' in noeud) {
      if (chemin) trouves.push({ chemin, noeud });
      else ailleurs = true;
      return;
    }
    for (const [cle, valeur] of Object.entries(noeud)) {
      if (cle === 'properties' && estNoeud(valeur)) {
        for (const [nom, propriete] of Object.entries(valeur)) parcourir(propriete, chemin ? [...chemin, nom] : null);
      } else {
        parcourir(valeur, null);
      }
    }
  };
  parcourir(schema, []);
  if (ailleurs || trouves.length !== 1) return null;
  const [{ chemin, noeud }] = trouves as [{ chemin: string[]; noeud: Noeud }];
  const branches: { valeur: string; schema: Noeud }[] = [];
  let champ: string | undefined;
  let courant: Noeud = noeud;
  while ('if' in courant) {
    const si = courant.if as Noeud;
    const proprietes = si.properties as Record<string, Noeud>;
    const [nom] = Object.keys(proprietes) as [string];
    if (champ !== undefined && nom !== champ) return null;
    champ = nom;
    branches.push({ valeur: proprietes[nom]!.const as string, schema: courant.then as Noeud });
    courant = courant.else as Noeud;
  }
  const sansAutre = [...branches.map((b) => b.schema), courant].every((b) => !JSON.stringify(b).includes('"if":'));
  return champ !== undefined && sansAutre ? { chemin, champ, branches, sinon: courant } : null;
}

/** A copy of `schema` with the node at `chemin` (names of properties) replaced by `par`. */
function remplacer(schema: unknown, chemin: string[], par: Noeud): unknown {
  if (chemin.length === 0) return par;
  const noeud = schema as Noeud;
  const [nom, ...reste] = chemin as [string, ...string[]];
  const proprietes = noeud.properties as Noeud;
  return { ...noeud, properties: { ...proprietes, [nom]: remplacer(proprietes[nom], reste, par) } };
}
