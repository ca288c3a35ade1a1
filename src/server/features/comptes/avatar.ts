import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import { ApiError } from '../../errors.js';
import { DEFAULT_PIC, requireUser } from './routes.js';

const AVATAR_SIZE = 256;
const AVATAR_MAX_BYTES = 5 * 1024 * 1024;
const avatarKey = (uid: string, version: string) => `avatars/${uid}/${version}.webp`;

/**
 * Profile pictures: checked on content like documents (JPEG or PNG), turned upright, cropped square,
 * resized to 256 px and re-encoded (which also drops the photo's metadata, GPS position included).
 */
export default async function avatarRoutes(app: FastifyInstance): Promise<void> {
  const { db, storage } = app.deps;

  app.post('/user/me/pic', async (request, reply) => {
    const me = await requireUser(app, request);
    if (!request.isMultipart()) throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'La photo doit être envoyée en multipart/form-data.');
    const part = await request.file({ limits: { fileSize: AVATAR_MAX_BYTES, files: 1 } });
    if (!part) throw new ApiError(400, 'NO_FILE', 'Aucune photo reçue.');
    let input: Buffer;
    try {
      input = await part.toBuffer();
    } catch (error) {
      if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
        throw new ApiError(413, 'FILE_TOO_LARGE', 'La photo dépasse la taille maximale de 5 Mo.');
      }
      throw error;
    }
    const type = (await fileTypeFromBuffer(input))?.mime;
    if (type !== 'image/jpeg' && type !== 'image/png') {
      throw new ApiError(415, 'UNSUPPORTED_FILE_TYPE', 'La photo doit être une image JPEG ou PNG.');
    }
    let output: Buffer;
    try {
      output = await sharp(input).rotate().resize(AVATAR_SIZE, AVATAR_SIZE, { fit: 'cover' }).webp({ quality: 80 }).toBuffer();
    } catch {
      throw new ApiError(415, 'UNREADABLE_IMAGE', "Cette image n'a pas pu être lue. Essayez une autre photo.");
    }
    const version = randomUUID();
    const temp = storage.createTemp();
    temp.stream.end(output);
    await temp.commit(avatarKey(me.id, version));
    const previous = await db.selectFrom('user').select('image').where('id', '=', me.id).executeTakeFirst();
    const pic = `/app/api/user/pic/${me.id}?v=${version}`;
    await db.updateTable('user').set({ image: pic }).where('id', '=', me.id).execute();
    const old = previous?.image ? new URL(previous.image, 'http://x').searchParams.get('v') : null;
    if (old) await storage.remove(avatarKey(me.id, old));
    return reply.status(201).send({ data: { pic } });
  });

  app.get('/user/pic/:uid', async (request, reply) => {
    const { uid } = request.params as { uid: string };
    const { v } = request.query as { v?: string };
    const row = await db.selectFrom('user').select('image').where('id', '=', uid).executeTakeFirst();
    const current = row?.image ? new URL(row.image, 'http://x').searchParams.get('v') : null;
    if (!current || (v && v !== current) || !(await storage.exists(avatarKey(uid, current)))) {
      return reply.redirect(DEFAULT_PIC);
    }
    return reply
      .header('Content-Type', 'image/webp')
      .header('Cache-Control', v ? 'public, max-age=31536000, immutable' : 'no-cache')
      .send(storage.read(avatarKey(uid, current)));
  });
}
