import fastJson from 'fast-json-stringify';
import { z } from '../domain/zod.js';

/**
 * Answers are written by fast-json-stringify from the JSON Schema of each route's zod answer schema,
 * converted once when the route is declared: only the fields the schema names are sent (a guard against
 * leaking a column), at Fastify's usual speed. (Parsing every answer with zod before writing it tripled the
 * garbage collector's work and cost 15 % of the status lookup's throughput: docs/decisions/0010.)
 */
export function ecriture(schema: unknown): (data: unknown) => string {
  const jsonSchema = z.toJSONSchema(schema as z.ZodType, { target: 'draft-7', io: 'output', unrepresentable: 'any' });
  return fastJson(allowingExtraFields(jsonSchema) as Parameters<typeof fastJson>[0]);
}

/**
 * Fastify's serializer compiler: each answer's writer is made when the route first answers with it, not at start
 * (some 130 writers, ~2 MB, most of them for routes an idle or anonymous server never answers; issue 11 point 6).
 * test/routes.test.ts makes every route's writers, so that a schema that cannot be written fails there.
 */
export function serializerCompiler({ schema }: { schema: unknown }): (data: unknown) => string {
  let write: ((data: unknown) => string) | undefined;
  return (data) => (write ??= ecriture(schema))(data);
}

/**
 * zod's objects say `additionalProperties: false`; fast-json-stringify picks a union's branch by validating
 * against it, so an answer with one field too many would match no branch and fail. Extra fields are allowed
 * for that choice; the writer still writes only the named ones.
 */
function allowingExtraFields(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(allowingExtraFields);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'additionalProperties' && value === false))
      .map(([key, value]) => [key, allowingExtraFields(value)]),
  );
}
