// A NATS operator (decentralized JWT auth) made in the test, the way `nsc` makes one: an
// operator, a system account, an application account allowed JetStream, and a user of it
// in a creds file — for a nats-server run with `operator:` and a MEMORY resolver.
import { createAccount, createOperator, createUser, encodeAccount, encodeOperator, encodeUser, fmtCreds } from '@nats-io/jwt';
import type { NatsServerOptions } from '@wirehook/testkit';

/** What a nats-server in operator mode is started with, and creds files for it. */
export interface TestOperator {
  /** `startNatsServer({ operator })`: the operator JWT and both accounts preloaded. */
  server: NonNullable<NatsServerOptions['operator']>;
  /** A creds file's text: a user of the application account (JetStream allowed). */
  creds: string;
  /** A creds file's text for a user of an account the server does not know (another operator's). */
  strangerCreds: string;
}

/** No limit (JWT limits: -1 is unlimited). */
const UNLIMITED = -1;

/** Makes new keys and JWTs every call: operator, system account, application account and its user. */
export async function testOperator(): Promise<TestOperator> {
  const operator = createOperator();
  const system = createAccount();
  const app = createAccount();
  const operatorJwt = await encodeOperator('wirehook-test', operator, { system_account: system.getPublicKey() });
  const systemJwt = await encodeAccount('SYS', system, {}, { signer: operator });
  // A limit left out of an account JWT is 0 (no connections, no subscriptions), and without
  // mem_storage/disk_storage JetStream is off for the account: no stream can be made.
  const limits = {
    conn: UNLIMITED,
    subs: UNLIMITED,
    data: UNLIMITED,
    payload: UNLIMITED,
    imports: UNLIMITED,
    exports: UNLIMITED,
    wildcards: true,
    leaf: UNLIMITED,
  };
  const jetStream = { mem_storage: UNLIMITED, disk_storage: UNLIMITED, streams: UNLIMITED, consumer: UNLIMITED };
  const appJwt = await encodeAccount('APP', app, { limits: { ...limits, ...jetStream } }, { signer: operator });
  return {
    server: { jwt: operatorJwt, systemAccount: system.getPublicKey(), accounts: { [system.getPublicKey()]: systemJwt, [app.getPublicKey()]: appJwt } },
    creds: await userCreds(app),
    strangerCreds: await userCreds(createAccount()),
  };
}

async function userCreds(account: ReturnType<typeof createAccount>): Promise<string> {
  const user = createUser();
  return new TextDecoder().decode(fmtCreds(await encodeUser('wirehook', user, account), user));
}
