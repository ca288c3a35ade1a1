import type { FastifyRequest } from 'fastify';
import { displayName } from '../demandes/upload.js';
import { REFUS_FICHIER, typeFromExtension } from '../../../domain/documents.js';
import { PHOTO_COTE_MAX, PHOTO_TYPES } from '../../../domain/signalements.js';
import { ApiError } from '../../errors.js';

/** A photo as stored: a JPEG without any metadata, upright, its longest side at most PHOTO_COTE_MAX. */
export interface PhotoPreparee {
  data: Buffer;
  largeur: number;
  hauteur: number;
}

/**
 * Decoding stops past this many pixels (a 64-megapixel picture): a small file may claim a huge image. The profile
 * pictures' limit too (features/compte/avatar.ts).
 */
export const PIXELS_MAX = 64_000_000;
const QUALITE_JPEG = 82;

const estTypePhoto = (type: string | undefined | null): type is (typeof PHOTO_TYPES)[number] => (PHOTO_TYPES as readonly string[]).includes(type ?? '');

const typeRefuse = (nom: string) =>
  new ApiError(415, 'UNSUPPORTED_FILE_TYPE', `Le fichier «\u00a0${nom}\u00a0» n’est pas accepté : une photo est un fichier JPEG ou PNG.`);

/**
 * Reads the one file of a multipart call (any field name; other fields are ignored), at most `maxBytes`, and
 * checks it like a document (src/server/features/demandes/upload.ts): a JPEG or PNG by its extension and by
 * its content (magic bytes), the two agreeing. Answers the bytes and the name as the person gave it.
 */
export async function recevoirPhoto(request: FastifyRequest, maxBytes: number): Promise<{ octets: Buffer; nom: string }> {
  let recue: { octets: Buffer; nom: string } | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: maxBytes, files: 1, fields: 5, parts: 6, fieldSize: 1024 } })) {
      if (part.type !== 'file') continue;
      if (!part.filename) {
        part.file.resume();
        throw new ApiError(400, 'NO_FILE', 'Une photo a été envoyée sans nom : choisissez-la de nouveau.');
      }
      const nom = displayName(part.filename);
      if (!estTypePhoto(typeFromExtension(nom))) {
        part.file.resume();
        throw typeRefuse(nom);
      }
      let octets: Buffer;
      try {
        octets = await part.toBuffer();
      } catch (error) {
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new ApiError(413, 'FILE_TOO_LARGE', REFUS_FICHIER.taille(nom, maxBytes));
        throw error;
      }
      recue = { octets, nom };
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_FILES_LIMIT') throw new ApiError(413, 'TOO_MANY_FILES', 'Envoyez une seule photo à la fois.');
    throw error;
  }
  if (!recue) throw new ApiError(400, 'NO_FILE', 'Aucune photo reçue : choisissez une photo.');
  const { octets, nom } = recue;
  if (octets.length === 0) throw new ApiError(400, 'EMPTY_FILE', REFUS_FICHIER.vide(nom));
  // file-type loads with the first upload.
  const { fileTypeFromBuffer } = await import('file-type');
  const detecte = (await fileTypeFromBuffer(octets))?.mime;
  if (!estTypePhoto(detecte)) throw typeRefuse(nom);
  if (detecte !== typeFromExtension(nom)) throw new ApiError(415, 'FILE_TYPE_MISMATCH', REFUS_FICHIER.contenu(nom));
  return recue;
}

/**
 * Re-encodes a checked photo with sharp: turned upright by its EXIF orientation, resized so that its longest side
 * is at most PHOTO_COTE_MAX (never enlarged), flattened on white (a PNG's transparency), written as a JPEG with no
 * metadata at all — sharp writes none unless asked (no EXIF, so no GPS position, no XMP, IPTC or ICC profile; the
 * colours converted to sRGB). The work runs on libuv's threads, not on the event loop.
 */
export async function preparerPhoto(octets: Buffer, nom: string): Promise<PhotoPreparee> {
  const { default: sharp } = await import('sharp');
  try {
    const { data, info } = await sharp(octets, { limitInputPixels: PIXELS_MAX, failOn: 'error' })
      .autoOrient()
      .resize({ width: PHOTO_COTE_MAX, height: PHOTO_COTE_MAX, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: QUALITE_JPEG })
      .toBuffer({ resolveWithObject: true });
    return { data, largeur: info.width, hauteur: info.height };
  } catch {
    throw new ApiError(415, 'UNREADABLE_IMAGE', `La photo «\u00a0${nom}\u00a0» n’a pas pu être lue (fichier abîmé ou image trop grande). Essayez une autre photo.`);
  }
}
