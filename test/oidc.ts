import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID provider (panva's oidc-provider) on loopback, standing in for Google in the API tests
 * and the browser tests: development interactions (any login, then a consent page), PKCE, signed ID
 * tokens. Every account's display name is `name`, its e-mail `<login>@example.org`.
 */
export async function startOidcProvider(options: {
  port?: number;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  name: string;
  givenName: string;
  familyName: string;
}): Promise<{ issuer: string; close(): Promise<void> }> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name'] },
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({
        sub,
        email: `${sub}@example.org`,
        email_verified: true,
        name: options.name,
        given_name: options.givenName,
        family_name: options.familyName,
      }),
    }),
    features: { devInteractions: { enabled: true } },
  });
  server.on('request', provider.callback());
  return { issuer, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
