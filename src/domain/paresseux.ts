/**
 * A value made on its first use, then kept. For Intl's formatters and collators: building one loads ICU's data for
 * its locale and time zone (several MB of the server's memory), which an idle server never needs (issue 11 point 6).
 */
export function aLaPremiereUtilisation<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}
