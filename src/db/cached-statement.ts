import { CompiledQuery, sql, type Kysely, type QueryExecutorProvider, type QueryResult, type RawBuilder } from 'kysely';

/** Any Kysely handle (the runtime's tables, or the Slack front end's beside them): the statement only needs to run on it. */
type StatementDb = QueryExecutorProvider & Pick<Kysely<unknown>, 'executeQuery'>;

const slotKey = Symbol('slot');

/** Stands for parameter `name` while a statement's text is compiled. */
interface Slot {
  readonly [slotKey]: string;
}

interface Compiled {
  sql: string;
  /** The parameter each `$n` takes, in order. */
  names: string[];
}

/**
 * A statement written with kysely's sql tag whose text depends only on its
 * shape (which optional parts it has), never on its values. Each shape is
 * compiled once, with placeholders standing for the values; every later call
 * sends the same text with its values in order. The statements of an approval
 * cycle run thousands of times a second: building and compiling them each
 * time cost more CPU than the rest of the driver, and the same string each
 * time keeps the prepared-statement lookup cheap.
 *
 * `build` receives each parameter as a placeholder: it may place them in the
 * text but must not look at them; everything it decides on goes in `shape`.
 */
export class CachedStatement<P extends Record<string, unknown>, S extends string = string> {
  private readonly compiled = new Map<S, Compiled>();

  constructor(private readonly build: (params: P, shape: S) => RawBuilder<unknown>) {}

  async execute<R>(db: StatementDb, shape: S, params: P): Promise<QueryResult<R>> {
    const compiled = this.compiled.get(shape) ?? this.compile(db, shape, params);
    const names = compiled.names;
    const values = new Array<unknown>(names.length);
    for (let i = 0; i < names.length; i++) values[i] = params[names[i]!];
    return db.executeQuery<R>(CompiledQuery.raw(compiled.sql, values));
  }

  private compile(db: StatementDb, shape: S, params: P): Compiled {
    const slots: Record<string, Slot> = {};
    for (const name of Object.keys(params)) slots[name] = { [slotKey]: name };
    const query = this.build(slots as unknown as P, shape).compile(db);
    const names = query.parameters.map((value, i) => {
      const name = typeof value === 'object' && value !== null ? (value as Partial<Slot>)[slotKey] : undefined;
      // A value baked into the text would be sent again with every later call of this shape.
      if (name === undefined) throw new Error(`cached statement: parameter $${i + 1} of shape "${shape}" is not one of its params`);
      return name;
    });
    const compiled = { sql: query.sql, names };
    this.compiled.set(shape, compiled);
    return compiled;
  }
}

/**
 * `column` equal to the parameter `value`: by `=` when it is one value, by `= ANY(value::arrayType)`
 * when it is several (`many`, a shape of the statement). PostgreSQL plans a prepared `= ANY($1)`
 * for an array of unknown length, finds that plan dearer than one made for the array it is given,
 * and so plans it again on every call, which costs more than running a short statement; with `=`
 * a connection keeps one plan. Several values share one planning among them.
 */
export function oneOrAny(column: string, value: unknown, many: boolean, arrayType: 'integer[]' | 'text[]'): RawBuilder<unknown> {
  return many ? sql`${sql.raw(column)} = ANY(${value}::${sql.raw(arrayType)})` : sql`${sql.raw(column)} = ${value}`;
}
