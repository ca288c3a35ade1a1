/**
 * `target` with some of its members replaced by `overrides`; its other methods keep their own `this` (Kysely's classes
 * hold private fields), each bound once, not at every read (the drivers' are read for every query and transaction).
 * Used by the wrappers of Kysely's driver (durable.ts, pannes.ts).
 */
export function mandataire<T extends object>(target: T, overrides: Partial<Record<keyof T, unknown>>): T {
  type Methode = (...args: unknown[]) => unknown;
  const liees = new Map<PropertyKey, { de: Methode; liee: Methode }>();
  return new Proxy(target, {
    get(object, prop, receiver) {
      if (prop in overrides) return overrides[prop as keyof T];
      const value: unknown = Reflect.get(object, prop, receiver);
      if (typeof value !== 'function') return value;
      const deja = liees.get(prop);
      if (deja?.de === value) return deja.liee;
      const liee = (value as Methode).bind(object);
      liees.set(prop, { de: value as Methode, liee });
      return liee;
    },
  });
}
