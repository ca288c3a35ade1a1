import { describe, expect, it } from 'vitest';
import { demandeVueSchema } from '../domain/demande.js';
import { z } from '../domain/zod.js';
import { serializerCompiler } from './serializer.js';

describe('answers written from their schema', () => {
  it('sends only the fields the schema names', () => {
    const write = serializerCompiler({ schema: z.object({ data: z.object({ numeroUnique: z.string(), prenom: z.string().nullable() }) }) });
    expect(JSON.parse(write({ data: { numeroUnique: '013000111', prenom: null, accessKeyHash: 'secret', email: 'a@b.fr' } }))).toEqual({
      data: { numeroUnique: '013000111', prenom: null },
    });
  });

  it('writes each branch of a union by its own schema: the status view never carries the full view’s fields', () => {
    const write = serializerCompiler({ schema: z.object({ data: demandeVueSchema }) });
    const statut = { acces: 'statut', numeroUnique: '013000111', statutDeLaDemande: 'En attente', dateDEnregistrement: '2026-11-22T00:00:00.000Z' };
    expect(JSON.parse(write({ data: { ...statut, email: 'fuite@exemple.fr', motivations: 'privé' } }))).toEqual({ data: statut });
  });

  it('picks a union’s branch by its discriminating field alone, not by validating the whole branch', () => {
    const vue = z.discriminatedUnion('acces', [
      z.object({ acces: z.literal('statut'), statut: z.enum(['En attente', 'Attribué']) }),
      z.object({ acces: z.literal('complet'), statut: z.enum(['En attente', 'Attribué']), situation: z.enum(['celibataire', 'marie']) }),
    ]);
    const write = serializerCompiler({ schema: z.object({ data: vue }) });
    // A full view whose family situation is none the schema knows: the writer writes, it does not validate (before, the
    // value matched neither branch and the answer was a 500).
    const complet = JSON.parse(write({ data: { acces: 'complet', statut: 'Attribué', situation: 'inconnue', accessKeyHash: 'secret' } })) as Record<string, unknown>;
    expect(complet).toEqual({ data: { acces: 'complet', statut: 'Attribué', situation: 'inconnue' } });
    expect(JSON.parse(write({ data: { acces: 'statut', statut: 'Attribué', situation: 'marie' } }))).toEqual({ data: { acces: 'statut', statut: 'Attribué' } });
  });

  it('writes a nullable enum, a nullable number and a nested union by their types', () => {
    const write = serializerCompiler({
      schema: z.object({
        sexe: z.enum(['femme', 'homme']).nullable(),
        salaire: z.number().nullable(),
        documents: z.array(z.object({ avis: z.enum(['accepte', 'a-remplacer']).nullable(), cache: z.string() }).partial()),
      }),
    });
    expect(JSON.parse(write({ sexe: null, salaire: 1200.5, documents: [{ avis: 'accepte', secret: 'x' }, { avis: null }] }))).toEqual({
      sexe: null,
      salaire: 1200.5,
      documents: [{ avis: 'accepte' }, { avis: null }],
    });
    expect(JSON.parse(write({ sexe: 'femme', salaire: null, documents: [] }))).toEqual({ sexe: 'femme', salaire: null, documents: [] });
    expect(() => write({ sexe: 3, salaire: null, documents: [] })).toThrow();
  });

  it('writes an object that may be null by its schema, whatever its values (no validation of the branch)', () => {
    const write = serializerCompiler({
      schema: z.object({ correction: z.object({ etat: z.enum(['demandee', 'faite']), motif: z.string() }).nullable(), liste: z.array(z.string()).nullable() }),
    });
    expect(JSON.parse(write({ correction: null, liste: null }))).toEqual({ correction: null, liste: null });
    // A state the schema does not know: written as it is (before, the object branch failed ajv's check, then the null
    // one, and the answer was a 500).
    expect(JSON.parse(write({ correction: { etat: 'inconnu', motif: 'Pièce illisible', cle: 'secret' }, liste: ['a'] }))).toEqual({
      correction: { etat: 'inconnu', motif: 'Pièce illisible' },
      liste: ['a'],
    });
  });

  it('picks a union’s branch deeper in the answer, and inside a list, each item by its own field', () => {
    const vue = z.discriminatedUnion('type', [
      z.object({ type: z.literal('a'), a: z.string() }),
      z.object({ type: z.literal('b'), b: z.string() }),
      z.object({ type: z.literal('c'), c: z.string() }),
    ]);
    const profonde = serializerCompiler({ schema: z.object({ data: z.object({ n: z.number(), vue }) }) });
    for (const [type, attendu] of [
      ['a', { type: 'a', a: 'x' }],
      ['b', { type: 'b', b: 'y' }],
      ['c', { type: 'c', c: 'z' }],
    ] as const) {
      expect(JSON.parse(profonde({ data: { n: 1, vue: { type, a: 'x', b: 'y', c: 'z' } } }))).toEqual({ data: { n: 1, vue: attendu } });
    }
    // No branch's constant: the last branch, as the schema's last `else` (its constant written as the schema says).
    expect(JSON.parse(profonde({ data: { n: 2, vue: { type: 'autre', a: 'x', c: 'z' } } }))).toEqual({ data: { n: 2, vue: { type: 'c', c: 'z' } } });
    const liste = serializerCompiler({ schema: z.object({ data: z.array(vue) }) });
    expect(JSON.parse(liste({ data: [{ type: 'b', a: 'x', b: 'y' }, { type: 'a', a: 'x', b: 'y' }] }))).toEqual({ data: [{ type: 'b', b: 'y' }, { type: 'a', a: 'x' }] });
  });
});
