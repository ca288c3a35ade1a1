import { isRole, isVisibilite, VISIBILITE_DEFAUT, type ProfilPersonnel, type ProfilPublic } from '../../../domain/compte.js';
import type { UserRow } from '../../db/schema.js';

/** The stored default picture of new users (served by the web app). */
export const DEFAULT_PIC = '/avatar-defaut.svg';

/**
 * How much of a public profile a viewer sees (docs/produit.md « Comptes », « Qui voit mon profil ») :
 * `complet` name and chosen picture, `prenom` the first name and the default picture.
 */
export type Regard = 'complet' | 'prenom';

/** A picture's version is a UUID the app generated (avatar.ts); nothing else ever becomes part of a storage key. */
const VERSION = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/u;
export const ACCOUNT_ID = /^[\w-]{1,64}$/u;
export const isPictureVersion = (v: unknown): v is string => typeof v === 'string' && VERSION.test(v);

/** A stored picture's address, as written in the `image` column and given in profiles. */
export const picUrl = (uid: string, version: string): string => `/app/api/user/pic/${encodeURIComponent(uid)}?v=${version}`;

/**
 * The version of a user's own stored picture, read from their `image` column, or null. The column is
 * trusted only when it is exactly the address the app writes for that user (`picUrl`): any other value
 * (another user's folder, `../`, an outside address) counts as no picture.
 */
export function pictureVersion(user: Pick<UserRow, 'id' | 'image'> | undefined): string | null {
  const image = user?.image;
  // An account id is letters, digits, '-' and '_' (better-auth's): a storage folder name as it is.
  if (!user || !image || !ACCOUNT_ID.test(user.id)) return null;
  const prefix = picUrl(user.id, '');
  if (!image.startsWith(prefix)) return null;
  const version = image.slice(prefix.length);
  return isPictureVersion(version) ? version : null;
}

/** The picture to show for a user: their own stored one, else the default. */
export function picOf(user: Pick<UserRow, 'id' | 'image'>): string {
  const version = pictureVersion(user);
  return version ? picUrl(user.id, version) : DEFAULT_PIC;
}

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/** The public profile: never e-mail, birthday, street, residence or gender; the name and picture as chosen. */
export function toPublic(u: UserRow, regard: Regard): ProfilPublic {
  return {
    uid: u.id,
    pic: regard === 'complet' ? picOf(u) : DEFAULT_PIC,
    ...(regard === 'complet' ? { nom: u.nom } : {}),
    prenom: u.prenom,
    quartier: u.quartier,
    ville: u.ville,
    pays: u.pays,
    emailVerified: Boolean(u.emailVerified),
  };
}

/** Personal data, for the user and admins. */
export function toPersonnel(u: UserRow): ProfilPersonnel {
  return {
    ...toPublic(u, 'complet'),
    nom: u.nom,
    gender: u.gender,
    visibilite: isVisibilite(u.visibilite) ? u.visibilite : VISIBILITE_DEFAUT,
    email: u.email,
    birthday: u.birthday,
    residence: u.residence,
    rue: u.rue,
    userType: isRole(u.userType) ? u.userType : 'habitant',
    dateDEnregistrement: iso(u.createdAt),
  };
}
