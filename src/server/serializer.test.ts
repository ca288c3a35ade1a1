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
});
