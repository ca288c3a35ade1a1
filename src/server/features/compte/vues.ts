import { isRole, type ProfilPersonnel, type ProfilPublic } from '../../../domain/compte.js';
import type { UserRow } from '../../db/schema.js';

/** The stored default picture of new users (served by the web app). */
export const DEFAULT_PIC = '/avatar-defaut.svg';

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/** The public profile: never e-mail, birthday, street or residence. */
export function toPublic(u: UserRow): ProfilPublic {
  return {
    uid: u.id,
    pic: u.image ?? DEFAULT_PIC,
    nom: u.nom,
    prenom: u.prenom,
    gender: u.gender,
    quartier: u.quartier,
    ville: u.ville,
    pays: u.pays,
    emailVerified: Boolean(u.emailVerified),
  };
}

export function toPersonnel(u: UserRow): ProfilPersonnel {
  return {
    ...toPublic(u),
    email: u.email,
    birthday: u.birthday,
    residence: u.residence,
    rue: u.rue,
    userType: isRole(u.userType) ? u.userType : 'habitant',
    dateDEnregistrement: iso(u.createdAt),
  };
}
