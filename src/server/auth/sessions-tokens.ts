import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  BinaryOperationNode,
  ColumnNode,
  ColumnUpdateNode,
  InsertQueryNode,
  OperationNodeTransformer,
  PrimitiveValueListNode,
  ReferenceNode,
  ValueListNode,
  ValueNode,
  ValuesNode,
  type Kysely,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type TableNode,
  type UnknownRow,
} from 'kysely';

/**
 * Session tokens are stored hashed (docs/decisions/0011-session-tokens.md): `session.token` holds
 * SHA-256(token) in hex, never the token the cookie carries, so a copy of the database (even with
 * DATA_DIR/auth-secret beside it) cannot be turned into a cookie.
 *
 * better-auth knows nothing of it: this Kysely plugin sits on the instance handed to better-auth only.
 * - writes: the `token` value of an insert into, or an update of, `session` is replaced by its hash;
 * - look-ups: `token = ?` and `token in (…)` on `session` compare with the hash of what was asked;
 * - answers: a `token` read back is the clear token better-auth asked for (this query, or one of the
 *   last seconds); a row whose clear token this process never saw (a listing of someone's sessions)
 *   carries a handle instead: `#<hash>.<mac>`, a value only this process can make (its key lives in
 *   memory, never on disk) and that it maps back to the hash, so revoking a listed session works.
 */

const TABLE = 'session';
const COLUMN = 'token';
const HASH = /^[0-9a-f]{64}$/u;
/** How long a clear token seen in a query can be given back for its hash (a request's life). */
const RECENT_MS = 10_000;
const RECENT_MAX = 1_000;

export function hashSessionToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export class SessionTokenPlugin implements KyselyPlugin {
  /** Queries that touch `session`: their answers are rewritten. */
  private readonly touched = new WeakMap<QueryId, true>();
  /** hash → clear token, for the clear tokens seen in the last RECENT_MS (bounded). */
  private readonly recent = new Map<string, { clear: string; at: number }>();
  private readonly handleKey = randomBytes(32);

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const hasher = new TokenHasher((value) => this.toStored(value));
    const node = hasher.transformNode(args.node);
    if (!hasher.sessionTable) return args.node;
    this.touched.set(args.queryId, true);
    return node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (!this.touched.has(args.queryId) || !args.result.rows.length) return args.result;
    return { ...args.result, rows: args.result.rows.map((row) => this.toClear(row)) };
  }

  /** What the database keeps for a token better-auth handed over (a clear token or a handle). */
  private toStored(value: unknown): unknown {
    if (typeof value !== 'string') return value;
    const fromHandle = this.hashOfHandle(value);
    if (fromHandle) return fromHandle;
    const hash = hashSessionToken(value);
    this.remember(hash, value);
    return hash;
  }

  private toClear(row: UnknownRow): UnknownRow {
    const stored = row[COLUMN];
    if (typeof stored !== 'string' || !HASH.test(stored)) return row;
    const seen = this.recent.get(stored);
    const clear = seen && Date.now() - seen.at < RECENT_MS ? seen.clear : this.handle(stored);
    return { ...row, [COLUMN]: clear };
  }

  private remember(hash: string, clear: string): void {
    this.recent.delete(hash);
    this.recent.set(hash, { clear, at: Date.now() });
    if (this.recent.size > RECENT_MAX) this.recent.delete(this.recent.keys().next().value!);
  }

  private mac(hash: string): string {
    return createHmac('sha256', this.handleKey).update(hash).digest('base64url');
  }

  private handle(hash: string): string {
    return `#${hash}.${this.mac(hash)}`;
  }

  private hashOfHandle(value: string): string | null {
    if (!value.startsWith('#')) return null;
    const [hash, mac] = value.slice(1).split('.');
    if (!hash || !mac || !HASH.test(hash)) return null;
    const expected = Buffer.from(this.mac(hash));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? hash : null;
  }
}

/** The Kysely instance better-auth gets: the app's, with session tokens hashed. */
export function withHashedSessionTokens<DB>(db: Kysely<DB>): Kysely<DB> {
  return db.withPlugin(new SessionTokenPlugin());
}

function tableName(node: TableNode): string {
  return node.table.identifier.name;
}

/**
 * Is this a reference to the session's token column (`session.token`, or `token` alone)? Of better-auth's
 * tables only `session` has a `token` column, and this plugin sees better-auth's queries only; the
 * rewrite is kept anyway only for a query that names the session table.
 */
function isTokenReference(node: OperationNode): boolean {
  if (ReferenceNode.is(node)) {
    if (!ColumnNode.is(node.column) || node.column.column.name !== COLUMN) return false;
    return !node.table || tableName(node.table) === TABLE;
  }
  return ColumnNode.is(node) && node.column.name === COLUMN;
}

class TokenHasher extends OperationNodeTransformer {
  /** Whether the query reads or writes the session table (anywhere, subqueries included). */
  sessionTable = false;

  constructor(private readonly store: (value: unknown) => unknown) {
    super();
  }

  protected override transformTable(node: TableNode, queryId?: QueryId): TableNode {
    if (tableName(node) === TABLE) this.sessionTable = true;
    return super.transformTable(node, queryId);
  }

  private operand(node: OperationNode): OperationNode {
    if (ValueNode.is(node)) return ValueNode.create(this.store(node.value));
    if (PrimitiveValueListNode.is(node)) return PrimitiveValueListNode.create(node.values.map((v) => this.store(v)));
    if (ValueListNode.is(node)) return ValueListNode.create(node.values.map((v) => this.operand(v)));
    return node;
  }

  protected override transformBinaryOperation(node: BinaryOperationNode, queryId?: QueryId): BinaryOperationNode {
    const out = super.transformBinaryOperation(node, queryId);
    if (!isTokenReference(out.leftOperand)) return out;
    return BinaryOperationNode.create(out.leftOperand, out.operator, this.operand(out.rightOperand));
  }

  protected override transformColumnUpdate(node: ColumnUpdateNode, queryId?: QueryId): ColumnUpdateNode {
    const out = super.transformColumnUpdate(node, queryId);
    return isTokenReference(out.column) ? ColumnUpdateNode.create(out.column, this.operand(out.value)) : out;
  }

  protected override transformInsertQuery(node: InsertQueryNode, queryId?: QueryId): InsertQueryNode {
    const out = super.transformInsertQuery(node, queryId);
    if (!out.into || tableName(out.into) !== TABLE || !out.columns || !out.values || !ValuesNode.is(out.values)) return out;
    const index = out.columns.findIndex((c) => c.column.name === COLUMN);
    if (index < 0) return out;
    const values = out.values.values.map((row) => {
      if (PrimitiveValueListNode.is(row)) return PrimitiveValueListNode.create(row.values.map((v, i) => (i === index ? this.store(v) : v)));
      if (ValueListNode.is(row)) return ValueListNode.create(row.values.map((v, i) => (i === index ? this.operand(v) : v)));
      return row;
    });
    return InsertQueryNode.cloneWith(out, { values: ValuesNode.create(values) });
  }
}
