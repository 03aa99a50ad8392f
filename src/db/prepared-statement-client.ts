import pg from 'pg';

/**
 * Per connection; past it, new statement texts run unnamed. Our statements are
 * a fixed set (a few dozen), so the cap only matters for ad-hoc SQL and keeps a
 * long-lived connection from collecting an unbounded number of plans.
 */
export const maxPreparedStatements = 256;

/**
 * A pg Client that prepares every parameterised statement once per connection
 * and executes it by name afterwards. Our decision statements are long CTEs:
 * parsing and planning them on every call cost PostgreSQL more than executing
 * them. Parameterless texts keep the simple protocol, which is what lets a
 * migration file hold several statements.
 */
export class PreparedStatementClient extends pg.Client {
  readonly #names = new Map<string, string>();

  override query(...args: any[]): any {
    const [text, values] = args;
    if (typeof text === 'string' && Array.isArray(values) && values.length > 0 && args.length === 2) {
      const name = this.#nameFor(text);
      if (name) return this.#named(name, text, values);
    }
    return (super.query as (...a: unknown[]) => unknown)(...args);
  }

  /**
   * What `super.query({ name, text, values })` does, with the query built from the text instead:
   * pg copies a config object through its property descriptors, a slow path on every statement.
   */
  #named(name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
    let settle!: (error: Error | undefined, result: pg.QueryResult) => void;
    // As pg's own promise: an error's stack leads back to the code that awaited the query.
    const result = new Promise<pg.QueryResult>((resolve, reject) => {
      settle = (error, res) => (error ? reject(error) : resolve(res));
    }).catch((error: unknown) => {
      if (error instanceof Error) Error.captureStackTrace(error);
      throw error;
    });
    const query = Object.assign(new pg.Query(text, values, settle), { name });
    super.query(query);
    return result;
  }

  #nameFor(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined || this.#names.size >= maxPreparedStatements) return known;
    // Unique per connection by construction, which is all pg and PostgreSQL require.
    const name = `s${this.#names.size + 1}`;
    this.#names.set(text, name);
    return name;
  }
}
