import type { FastifyError, FastifyInstance } from 'fastify';

/** An error meant for the person: a status, a stable code and a French message (DESIGN.md errors). */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

export interface ErrorBody {
  error: { code: string; message: string; fields?: Record<string, string> };
}

/** French messages for the framework's and plugins' own client errors. */
const KNOWN: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'INVALID_JSON', message: "Le contenu envoyé n'est pas un JSON valide." },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'INVALID_JSON', message: 'Le contenu envoyé est vide.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: "Ce type de contenu n'est pas accepté." },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'TOO_LARGE', message: 'Le contenu envoyé est trop volumineux.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'BAD_REQUEST', message: 'La taille annoncée du contenu est incorrecte.' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Les fichiers doivent être envoyés en multipart/form-data.',
  },
  FST_PARTS_LIMIT: { status: 413, code: 'TOO_MANY_PARTS', message: 'Le formulaire envoyé contient trop de parties.' },
  FST_FIELDS_LIMIT: { status: 413, code: 'TOO_MANY_PARTS', message: 'Le formulaire envoyé contient trop de champs.' },
  FST_PROTO_VIOLATION: { status: 400, code: 'BAD_REQUEST', message: 'Nom de champ refusé.' },
};

export function errorBody(code: string, message: string, fields?: Record<string, string>): ErrorBody {
  return { error: fields ? { code, message, fields } : { code, message } };
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.status(error.statusCode).send(errorBody(error.code, error.message, error.fields));
    }
    const known = error.code ? KNOWN[error.code] : undefined;
    if (known) {
      return reply.status(known.status).send(errorBody(known.code, known.message));
    }
    if (error.validation) {
      return reply.status(400).send(errorBody('VALIDATION', 'La requête contient des valeurs invalides.'));
    }
    if (error.statusCode === 429) {
      return reply
        .status(429)
        .send(errorBody('RATE_LIMITED', 'Trop de tentatives en peu de temps. Patientez quelques minutes puis réessayez.'));
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      request.log.info({ err: error }, 'client error');
      return reply.status(error.statusCode).send(errorBody('BAD_REQUEST', 'La requête est incorrecte.'));
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.status(500).send(errorBody('INTERNAL', 'Une erreur inattendue est survenue. Réessayez dans un instant.'));
  });
}
