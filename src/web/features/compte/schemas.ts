/** The account forms' schemas the domain does not hold, composed from its pieces. */
import { emailSchema, motDePasseSaisiSchema, profilSchema } from '../../../domain/compte.js';
import { z } from '../../../domain/zod.js';

/** Signing in checks only that a password was typed: its length rules apply when it is chosen. */
export const connexionSchema = z.object({
  email: emailSchema,
  password: motDePasseSaisiSchema,
});

export const mesInformationsSchema = profilSchema.extend({ email: emailSchema });

export const oubliSchema = z.object({ email: emailSchema });
