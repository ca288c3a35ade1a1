import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { isPhotoType, PHOTO_MAX_OCTETS, PHOTO_TAILLE_MESSAGE, PHOTO_TYPE_MESSAGE, uidSchema } from '../../../domain/compte.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { ApiError } from '../../errors.js';
import { avecFichiers, fichier, reponses } from '../../http.js';
import { AVATARS_PREFIX } from '../../storage/index.js';
import { PIXELS_MAX } from '../signalements/photos.js';
import type { CompteRepository } from './repository.js';
import type { CompteService } from './service.js';
import { ACCOUNT_ID, DEFAULT_PIC, isPictureVersion, pictureVersion, picUrl } from './vues.js';

const AVATAR_SIZE = 256;

export function avatarKey(uid: string, version: string): string {
  // Both parts are checked again here (an invariant: callers pass the session's id or a checked version).
  if (!ACCOUNT_ID.test(uid) || !isPictureVersion(version)) throw new Error('invalid avatar key');
  return `${AVATARS_PREFIX}/${uid}/${version}.webp`;
}

/** User files are never run as a page of the app's origin, nor sniffed as another type. */
function pictureHeaders(reply: FastifyReply): FastifyReply {
  return reply.header('X-Content-Type-Options', 'nosniff').header('Content-Security-Policy', "sandbox; default-src 'none'");
}

/**
 * Profile pictures: checked on content like documents (JPEG or PNG), turned upright, cropped square,
 * resized to 256 px and re-encoded (which also drops the photo's metadata, GPS position included).
 */
export function avatarRoutes(repository: CompteRepository) {
  // Files: multipart in this scope only.
  return avecFichiers((app) => {
    const { storage, rateLimits } = app.deps;

    // Limited as documents are: each picture costs a decoding and an encoding.
    app.post('/user/me/pic', { config: { rateLimit: rateLimits.upload }, schema: { response: reponses(201, z.object({ data: z.object({ pic: z.string() }) })) } }, async (request, reply) => {
      const me = (await compteDe(request))!;
      if (!request.isMultipart()) throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'La photo doit être envoyée en multipart/form-data.');
      const part = await request.file({ limits: { fileSize: PHOTO_MAX_OCTETS, files: 1 } });
      if (!part) throw new ApiError(400, 'NO_FILE', 'Aucune photo reçue.');
      let input: Buffer;
      try {
        input = await part.toBuffer();
      } catch (error) {
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
          throw new ApiError(413, 'FILE_TOO_LARGE', PHOTO_TAILLE_MESSAGE);
        }
        throw error;
      }
      // file-type and sharp load with the first picture.
      const { fileTypeFromBuffer } = await import('file-type');
      const type = (await fileTypeFromBuffer(input))?.mime;
      if (!isPhotoType(type)) {
        throw new ApiError(415, 'UNSUPPORTED_FILE_TYPE', PHOTO_TYPE_MESSAGE);
      }
      const { default: sharp } = await import('sharp');
      let output: Buffer;
      try {
        output = await sharp(input, { limitInputPixels: PIXELS_MAX }).rotate().resize(AVATAR_SIZE, AVATAR_SIZE, { fit: 'cover' }).webp({ quality: 80 }).toBuffer();
      } catch {
        throw new ApiError(415, 'UNREADABLE_IMAGE', 'Cette image n’a pas pu être lue (fichier abîmé ou image trop grande). Essayez une autre photo.');
      }
      const version = randomUUID();
      const temp = storage.createTemp();
      temp.stream.end(output);
      await temp.commit(avatarKey(me.id, version));
      const previous = await repository.findById(me.id);
      const pic = picUrl(me.id, version);
      await repository.update(me.id, { image: pic });
      // Only this user's own previous picture, under their own folder, is removed.
      const old = pictureVersion(previous);
      if (old) await storage.remove(avatarKey(me.id, old));
      return reply.status(201).send({ data: { pic } });
    });
  });
}

const picQuery = z.object({ v: z.string().max(64, { error: 'Version de photo inconnue.' }).optional() });

/**
 * A profile picture, to the viewers its owner chose (the same rule as the public profile); anyone else,
 * and a user without a picture, is sent to the default one.
 */
export function avatarPublic({ repository, service }: { repository: CompteRepository; service: CompteService }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { storage } = app.deps;

    app.get('/user/pic/:uid', { schema: { params: z.object({ uid: uidSchema }), querystring: picQuery, response: fichier() } }, async (request, reply) => {
      const { uid } = request.params;
      const { v } = request.query;
      const user = await repository.findById(uid);
      const current = pictureVersion(user);
      if (!user || !current || (v && v !== current) || !(await storage.exists(avatarKey(uid, current)))) {
        return reply.redirect(DEFAULT_PIC);
      }
      if ((await service.regard((await compteDe(request))?.id ?? null, user)) !== 'complet') return reply.redirect(DEFAULT_PIC);
      // Who may see it depends on the viewer: kept by the browser only, never by a shared cache.
      return pictureHeaders(reply)
        .header('Content-Type', 'image/webp')
        .header('Cache-Control', v ? 'private, max-age=31536000, immutable' : 'private, no-cache')
        .send(storage.read(avatarKey(uid, current)));
    });
  };
}
